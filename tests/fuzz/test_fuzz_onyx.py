"""Robustness of the Onyx driver: mutated real configs and runbooks never crash it.

Inputs: the real public Onyx files of the acceptance set (tests/realworld/configs/onyx:
running-configs, a CLI transcript, Markdown runbooks, a vendor command sample; sources in
tests/realworld/SOURCES.md) plus one rendered Onyx config of every feature. Each is fuzzed
alone (:func:`check_parse`); sniffing a mutated file never raises.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given

from rocetune.model import Intent
from rocetune.platforms.onyx import PLATFORM as ONYX
from rocetune.platforms.onyx.commands import RUNNING_CONFIG
from rocetune.render.run import render_fabric
from tests.fuzz.mutations import FUZZ_SETTINGS, check_parse, mutated
from tests.fuzz.snapshots import check_parse_files
from tests.render.fabrics import fabric, switch

DRIVER = ONYX
REALWORLD = Path(__file__).resolve().parents[1] / "realworld" / "configs" / "onyx"


def _rendered() -> str:
    report = render_fabric(fabric(switch("onyx", 400_000), 30, Intent()))
    return next(f.text for f in report.devices[0].files if f.lintable)


ORIGINALS = [p.read_text(encoding="utf-8") for p in sorted(REALWORLD.iterdir())] + [_rendered()]


def test_originals_parse() -> None:
    assert len(ORIGINALS) >= 7
    ports = 0
    for text in ORIGINALS:
        result = check_parse_files(DRIVER, {RUNNING_CONFIG: text})
        assert result is not None
        ports += len(result.device.ports)
    assert ports > 30


@FUZZ_SETTINGS
@given(mutated(ORIGINALS))
def test_mutated_running_config(text: str) -> None:
    check_parse(DRIVER, RUNNING_CONFIG, text)
    result = check_parse_files(DRIVER, {RUNNING_CONFIG: text})
    if result is not None:
        for item in result.device.unparsed:
            assert item.line is None or item.line >= 1
    DRIVER.sniff("fuzz.cfg", text)  # never raises


def test_regression_pathological_lines() -> None:
    for text in (
        "interface ethernet 1/1-1/99999 mtu 9216 force\n",
        "interface ethernet 9/9/9-9/9/1 qos trust L3\n",
        "interface mlag-port-channel 1-99999999 qos trust L3\n",
        "interface ethernet 1/1 traffic-class 9 dcb ets wrr 50\n",
        "interface ethernet 1/1 traffic-class 3 congestion-control ecn minimum-absolute 9 "
        "maximum-absolute 1\n",
        "no\n",
        "switch (config interface ethernet 1/1) #\n",
        "interface ethernet 1/1 module-type qsfp-split-9 force\n",
        "traffic pool\n",
        "roce roce\n",
    ):
        assert check_parse_files(DRIVER, {RUNNING_CONFIG: text}) is not None
