"""Robustness of the Enterprise SONiC driver: mutated sonic-cli configurations never crash it.

Inputs: every file of the Enterprise SONiC corpus (running configurations, grep excerpts,
the HLD transcript with Klish prompts), the plan fixture and a rendered configuration. The
running configuration is fuzzed alone (:func:`check_parse`); sniffing and detection never
raise, and the remediation reader accepts whatever the parser accepts.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given

from rocetune.model import Intent
from rocetune.platforms.detect import detect
from rocetune.platforms.enterprise_sonic import PLATFORM
from rocetune.platforms.enterprise_sonic.commands import RUNNING_CONFIG
from rocetune.platforms.enterprise_sonic.parse import parse_text
from rocetune.render.run import render_fabric
from tests.fuzz.mutations import FUZZ_SETTINGS, check_parse, mutated
from tests.paths import CORPUS as CORPUS_ROOT
from tests.render.fabrics import fabric, switch

DRIVER = PLATFORM
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "enterprise_sonic"
CORPUS = CORPUS_ROOT / "enterprise_sonic"


def _rendered() -> str:
    report = render_fabric(fabric(switch("enterprise_sonic", 400_000), 5, Intent()))
    return next(f.text for f in report.devices[0].files if f.path.endswith(".esonic.cfg"))


CONFIGS = [
    *(p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.txt"))),
    *(p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.txt"))),
    _rendered(),
]


def test_originals_parse() -> None:
    assert len(CONFIGS) >= 7
    for text in CONFIGS:
        device = parse_text(text, "orig.txt", "dut", None).device
        assert device.platform == "enterprise_sonic"


@FUZZ_SETTINGS
@given(mutated(CONFIGS))
def test_mutated_running_config(text: str) -> None:
    check_parse(DRIVER, RUNNING_CONFIG, text)
    DRIVER.sniff("fuzz.txt", text)  # never raises
    detect("fuzz.txt", text)


def test_regression_prompt_only_and_empty_blocks() -> None:
    for text in ("sonic(config)#", "interface", "qos map dscp-tc", "queue\n type", "!\n!\n"):
        parse_text(text, "r.txt", "dut", None)
