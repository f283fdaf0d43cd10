"""Robustness of the SONiC parser: mutations of real CONFIG_DB files and of LLDP output.

Originals: the SONiC corpus (``tests/corpus/sonic/*.json``),
``tests/fixtures/sonic``, ``tests/fixtures/topology`` and the lab snapshots; LLDP:
``tests/fixtures/lldp``. Each example must parse or raise ParseError(file, line) (see
:mod:`tests.fuzz.mutations`). The long run is described in ``tests/fuzz/README.md``.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given

from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic.commands import CONFIG_DB, LLDP
from tests.fuzz.mutations import FUZZ_SETTINGS, check_parse, mutated
from tests.fuzz.snapshots import check_parse_files, check_sniff, read
from tests.paths import CORPUS as CORPUS_ROOT

ROOT = Path(__file__).resolve().parents[2]
CORPUS = CORPUS_ROOT / "sonic"
DRIVER = SONIC


def _configs() -> list[str]:
    paths = [
        *sorted(CORPUS.glob("*.json")),
        *sorted((ROOT / "tests" / "fixtures" / "sonic").glob("*.json")),
        *sorted((ROOT / "tests" / "fixtures" / "topology").glob(f"*/{CONFIG_DB.filename}")),
        *sorted((ROOT / "inventories").glob(f"*/snapshots/*/{CONFIG_DB.filename}")),
    ]
    return [read(p) for p in paths]


CONFIGS = _configs()
LLDP_TEXTS = [read(p) for p in sorted((ROOT / "tests" / "fixtures" / "lldp").glob("*.json"))]
BASE = read(ROOT / "tests" / "fixtures" / "sonic" / "su_config_qos.json")


def test_originals_parse() -> None:
    assert len(CONFIGS) >= 9
    for text in CONFIGS:
        check_parse(DRIVER, CONFIG_DB, text)
    for text in LLDP_TEXTS:
        result = check_parse_files(DRIVER, {CONFIG_DB: BASE, LLDP: text})
        assert result is not None
        assert result.device.lldp


@FUZZ_SETTINGS
@given(mutated(CONFIGS))
def test_config_db_mutations(text: str) -> None:
    check_sniff(DRIVER, CONFIG_DB, text)
    check_parse(DRIVER, CONFIG_DB, text)


@FUZZ_SETTINGS
@given(mutated(LLDP_TEXTS))
def test_lldp_mutations(text: str) -> None:
    check_sniff(DRIVER, LLDP, text)
    result = check_parse_files(DRIVER, {CONFIG_DB: BASE, LLDP: text})
    assert result is not None, "an unreadable optional LLDP output must not lose the device"
    if result.device.lldp is None and text.strip():
        assert result.device.unparsed[-1].item == LLDP.command
