"""Robustness of the EOS driver: mutated real configs and JSON outputs never crash it.

Inputs: every file of the shared EOS corpus (when present) and the EOS fixtures. The
running-config is fuzzed alone (:func:`check_parse`); the LLDP and interface-status JSON are
fuzzed next to the unchanged RoCE spine running-config (a snapshot without a running-config
is a ParseError by design); broken JSON there must become Unparsed items, never an error.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given

from rocetune.platforms.base import ParseResult
from rocetune.platforms.eos import PLATFORM as EOS
from rocetune.platforms.eos.commands import INTERFACES_STATUS, LLDP_DETAIL, RUNNING_CONFIG
from rocetune.snapshot import Command, Snapshot, SourceFile
from tests.fuzz.mutations import FUZZ_SETTINGS, check_parse, mutated
from tests.paths import CORPUS as CORPUS_ROOT

DRIVER = EOS
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "eos"
SPINE = FIXTURES / "roce_spine"
CORPUS = CORPUS_ROOT / "eos"

CONFIGS = [
    p.read_text(encoding="utf-8")
    for p in [
        *(sorted(CORPUS.glob("*")) if CORPUS.is_dir() else []),
        *sorted(FIXTURES.glob("*.cfg")),
        SPINE / RUNNING_CONFIG.filename,
    ]
]
SPINE_CONFIG = (SPINE / RUNNING_CONFIG.filename).read_text(encoding="utf-8")
SPINE_PORTS = ("Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1", "Ethernet32/1")
LLDP = [(SPINE / LLDP_DETAIL.filename).read_text(encoding="utf-8")]
STATUS = [(SPINE / INTERFACES_STATUS.filename).read_text(encoding="utf-8")]


@FUZZ_SETTINGS
@given(mutated(CONFIGS))
def test_mutated_running_config(text: str) -> None:
    check_parse(DRIVER, RUNNING_CONFIG, text)
    DRIVER.sniff("fuzz.cfg", text)  # never raises


def _check_beside_config(command: Command, text: str) -> None:
    files = {
        RUNNING_CONFIG.filename: SourceFile(path="run.txt", text=SPINE_CONFIG),
        command.filename: SourceFile(path="out.json", text=text),
    }
    result = DRIVER.parse(Snapshot(files=files, origin="fuzz"), "dut", None)
    assert isinstance(result, ParseResult)
    assert result.device.name == "dut"
    assert set(SPINE_PORTS) <= set(result.device.ports)
    for item in result.device.unparsed:
        assert item.line is None or item.line >= 1


@FUZZ_SETTINGS
@given(mutated(LLDP))
def test_mutated_lldp_json(text: str) -> None:
    _check_beside_config(LLDP_DETAIL, text)
    DRIVER.sniff("fuzz.json", text)


@FUZZ_SETTINGS
@given(mutated(STATUS))
def test_mutated_interfaces_status_json(text: str) -> None:
    _check_beside_config(INTERFACES_STATUS, text)
