"""Robustness of the Cumulus parser: mutations of NVUE configs, other Cumulus files and the
optional JSON outputs (``nv show interface``, ``nv show qos roce``, ``lldpctl``).

Originals: ``tests/fixtures/cumulus``, the Cumulus corpus (``tests/corpus/cumulus``
when present) and the lab snapshots, grouped by what the driver sniffs them as; optional
outputs are parsed next to a base configuration. Each example must parse or raise
ParseError(file, line) (see :mod:`tests.fuzz.mutations`); the long run is described in
``tests/fuzz/README.md``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from rocetune.errors import ParseError
from rocetune.platforms.cumulus import PLATFORM as CUMULUS
from rocetune.platforms.cumulus.commands import (
    LLDP,
    NV_CONFIG,
    NV_INTERFACE,
    NV_QOS_ROCE,
    UNSUPPORTED,
)
from rocetune.snapshot import Command, Snapshot, SourceFile
from tests.fuzz.mutations import FUZZ_SETTINGS, check_parse, mutated
from tests.fuzz.snapshots import check_parse_files, check_sniff, read
from tests.paths import CORPUS as CORPUS_ROOT

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = CORPUS_ROOT / "cumulus"
DRIVER = CUMULUS


def _by_command() -> dict[str, list[str]]:
    paths = [
        *sorted((FIXTURES / "cumulus").iterdir()),
        *sorted(CORPUS.glob("*")),
        *sorted((FIXTURES / "topology").glob(f"*/{NV_CONFIG.filename}")),
        *sorted((ROOT / "inventories").glob(f"*/snapshots/*/{NV_CONFIG.filename}")),
        *sorted((ROOT / "inventories").glob("*/configs/*.yaml")),
    ]
    groups: dict[str, list[str]] = {}
    for path in paths:
        if path.suffix == ".md" or not path.is_file():
            continue
        text = read(path)
        command = DRIVER.sniff(str(path), text)
        if command is not None:
            groups.setdefault(command.id, []).append(text)
    return groups


GROUPS = _by_command()
BASE = read(FIXTURES / "cumulus" / "roce_leaf.yaml")
LLDP_TEXTS = [read(p) for p in sorted((FIXTURES / "lldp").glob("*.json"))]


def test_originals_are_grouped_and_parse() -> None:
    assert len(GROUPS[NV_CONFIG.id]) >= 8
    assert len(GROUPS[UNSUPPORTED.id]) >= 3
    assert len(GROUPS[NV_INTERFACE.id]) == len(GROUPS[NV_QOS_ROCE.id]) == 1
    for text in GROUPS[NV_CONFIG.id]:
        check_parse(DRIVER, NV_CONFIG, text)
    for text in GROUPS[UNSUPPORTED.id]:
        check_parse(DRIVER, UNSUPPORTED, text)
    for text in LLDP_TEXTS:
        result = check_parse_files(DRIVER, {NV_CONFIG: BASE, LLDP: text})
        assert result is not None
        assert result.device.lldp


def _optional(command: Command, text: str) -> None:
    check_sniff(DRIVER, command, text)
    check_parse_files(DRIVER, {NV_CONFIG: BASE, command: text})


@FUZZ_SETTINGS
@given(mutated(GROUPS[NV_CONFIG.id]))
def test_nvue_config_mutations(text: str) -> None:
    check_sniff(DRIVER, NV_CONFIG, text)
    check_parse(DRIVER, NV_CONFIG, text)


@FUZZ_SETTINGS
@given(mutated(GROUPS[UNSUPPORTED.id]))
def test_unsupported_text_mutations(text: str) -> None:
    check_sniff(DRIVER, UNSUPPORTED, text)
    check_parse(DRIVER, UNSUPPORTED, text)
    check_parse_files(DRIVER, {NV_CONFIG: BASE, UNSUPPORTED: text})


@FUZZ_SETTINGS
@given(mutated(GROUPS[NV_INTERFACE.id]))
def test_nv_show_interface_mutations(text: str) -> None:
    _optional(NV_INTERFACE, text)


@FUZZ_SETTINGS
@given(mutated(GROUPS[NV_QOS_ROCE.id]))
def test_nv_show_qos_roce_mutations(text: str) -> None:
    _optional(NV_QOS_ROCE, text)


@FUZZ_SETTINGS
@given(mutated(LLDP_TEXTS))
def test_lldp_mutations(text: str) -> None:
    check_sniff(DRIVER, LLDP, text)
    result = check_parse_files(DRIVER, {NV_CONFIG: BASE, LLDP: text})
    assert result is not None, "an unreadable optional LLDP output must not lose the device"


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [("\x00", 1, 1), ("- set:\n    system:\n      \x00hostname: x\n", 3, 7)],
)
def test_regression_nul_character_in_yaml_has_a_line(text: str, line: int, column: int) -> None:
    """Found by test_nvue_config_mutations: a NUL makes ruamel raise a ReaderError without a
    mark, so the ParseError had no line."""
    check_parse(DRIVER, NV_CONFIG, text)
    with pytest.raises(ParseError) as info:
        DRIVER.parse(Snapshot(files={NV_CONFIG.filename: SourceFile("c.yaml", text)}), "d", None)
    assert (info.value.line, info.value.column) == (line, column)
