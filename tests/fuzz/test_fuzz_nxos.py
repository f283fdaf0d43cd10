"""Robustness of the NX-OS parser: mutations of running-configs and of the optional JSON outputs.

Originals: ``tests/fixtures/nxos`` (the RoCE spine and the corpus copies) and the NX-OS corpus
(``tests/corpus/nxos``), grouped by what the driver sniffs them as;
optional outputs are parsed next to the spine's running-config. Each example must parse or
raise ParseError(file, line) (see :mod:`tests.fuzz.mutations`).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given

from rocetune.platforms.nxos import PLATFORM as NXOS
from rocetune.platforms.nxos.commands import INTERFACES, LLDP, RUNNING_CONFIG
from rocetune.snapshot import Command
from tests.fuzz.mutations import FUZZ_SETTINGS, check_parse, mutated
from tests.fuzz.snapshots import check_parse_files, check_sniff, read
from tests.paths import CORPUS as CORPUS_ROOT

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nxos"
CORPUS = CORPUS_ROOT / "nxos"
DRIVER = NXOS


def _by_command() -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for path in [*sorted(FIXTURES.iterdir()), *sorted(CORPUS.glob("*"))]:
        if path.suffix == ".md" or not path.is_file():
            continue
        text = read(path)
        command = DRIVER.sniff(str(path), text)
        if command is not None:
            groups.setdefault(command.id, []).append(text)
    return groups


GROUPS = _by_command()
BASE = read(FIXTURES / "roce_spine_running_config.txt")


def test_originals_are_grouped_and_parse() -> None:
    assert len(GROUPS[RUNNING_CONFIG.id]) >= 8
    assert len(GROUPS[LLDP.id]) == len(GROUPS[INTERFACES.id]) == 1
    for text in GROUPS[RUNNING_CONFIG.id]:
        check_parse(DRIVER, RUNNING_CONFIG, text)
    for command in (LLDP, INTERFACES):
        result = check_parse_files(DRIVER, {RUNNING_CONFIG: BASE, command: GROUPS[command.id][0]})
        assert result is not None
        assert result.device.unparsed == ()


def _optional(command: Command, text: str) -> None:
    check_sniff(DRIVER, command, text)
    check_parse_files(DRIVER, {RUNNING_CONFIG: BASE, command: text})


@FUZZ_SETTINGS
@given(mutated(GROUPS[RUNNING_CONFIG.id]))
def test_running_config_mutations(text: str) -> None:
    check_sniff(DRIVER, RUNNING_CONFIG, text)
    check_parse(DRIVER, RUNNING_CONFIG, text)


@FUZZ_SETTINGS
@given(mutated(GROUPS[LLDP.id]))
def test_lldp_mutations(text: str) -> None:
    _optional(LLDP, text)


@FUZZ_SETTINGS
@given(mutated(GROUPS[INTERFACES.id]))
def test_show_interface_mutations(text: str) -> None:
    _optional(INTERFACES, text)
