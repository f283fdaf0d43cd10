"""Every SONiC JSON of the shared corpus and of our fixtures parses; detection is exact;
deleting any one table never breaks the parser and turns the matching fields to None."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune.errors import ParseError
from rocetune.model import Device
from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.platforms.sonic.parse import parse_text
from tests.paths import CORPUS as CORPUS_ROOT

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sonic"
CORPUS = CORPUS_ROOT
SONIC_CORPUS = CORPUS / "sonic"

CORPUS_JSON = sorted(SONIC_CORPUS.rglob("*.json")) if SONIC_CORPUS.is_dir() else []
FIXTURE_JSON = sorted(FIXTURES.glob("*.json"))
OTHER_CORPUS = (
    sorted(
        p
        for p in CORPUS.rglob("*")
        if p.is_file()
        and p.name != "SOURCES.md"
        and not (p.parent == SONIC_CORPUS and p.suffix == ".json")
    )
    if CORPUS.is_dir()
    else []
)
NOT_CONFIG_DB = {
    "sm_pfcwd_config_params.json",  # sonic-mgmt test parameters
    "sb_device_dell_z9664f_platform_qos.json",  # QOS_CAPABILITY_TABLE only
}

# Unparsed items per fixture: a regression net for the parser's coverage.
FIXTURE_UNPARSED = {
    "sb_device_inventec_d7032_qos.json": 0,
    "sb_qos_mellanox4600c_d48c40_t0.json": 0,
    "sb_qos_arista7800r3_48cq2_lc_voq.json": 1,
    "sm_configlet_add_qos_new_dbfmt.json": 10,
    "stock_sn4600c_t0_traditional.json": 0,
    "su_config_qos.json": 1,
    "su_dbmigrator_buffer_dynamic_double_pools_flat.json": 0,
    "su_dbmigrator_qos_map_input_flat.json": 0,
    "su_dbmigrator_qos_oldref_format_3_0_1.json": 0,  # BUFFER_PROFILE mode is read
    "su_mock_asic0_config_db_flat.json": 6,
    "su_mock_config_db_flat.json": 1,
}


def _parse(path: Path) -> Device:
    return parse_text(path.read_text(encoding="utf-8"), str(path), path.stem, None).device


def _check(dev: Device, path: Path) -> None:
    assert dev.kind == "switch"
    assert dev.platform == "sonic"
    for item in dev.unparsed:
        assert item.file == str(path)
        assert item.line is not None
        assert item.line >= 1


@pytest.mark.parametrize("path", CORPUS_JSON, ids=lambda p: p.name)
def test_shared_corpus_file_parses(path: Path) -> None:
    _check(_parse(path), path)


@pytest.mark.parametrize("path", FIXTURE_JSON, ids=lambda p: p.name)
def test_fixture_file_parses(path: Path) -> None:
    dev = _parse(path)
    _check(dev, path)
    assert len(dev.unparsed) == FIXTURE_UNPARSED[path.name]


def test_fixture_list_is_complete() -> None:
    assert sorted(p.name for p in FIXTURE_JSON) == sorted(FIXTURE_UNPARSED)


@pytest.mark.parametrize("path", CORPUS_JSON + FIXTURE_JSON, ids=lambda p: p.name)
def test_sniff_sonic_json(path: Path) -> None:
    found = SONIC.sniff(str(path), path.read_text(encoding="utf-8"))
    assert found == (None if path.name in NOT_CONFIG_DB else CONFIG_DB)


@pytest.mark.parametrize("path", OTHER_CORPUS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_sniff_rejects_everything_else(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    assert SONIC.sniff(str(path), text) is None


# --- quick fuzz: drop each table in turn ------------------------------------------------


def _tables(doc: dict[str, object]) -> list[str]:
    return sorted({key.split("|", 1)[0] for key in doc})


def _without(doc: dict[str, object], table: str) -> dict[str, object]:
    return {k: v for k, v in doc.items() if k.split("|", 1)[0] != table}


# Port fields that must become unknown when the table that defines them is gone.
UNKNOWN_WITHOUT = {
    "PORT_QOS_MAP": ("trust", "dscp_to_priority", "pfc_rx", "pfc_tx", "tc_to_pg", "dscp_rewrite"),
    "QUEUE": ("ecn", "schedulers"),
    "BUFFER_PG": ("pg_buffers",),
    "BUFFER_QUEUE": ("queue_buffers",),
    "PORT": ("speed_mbps", "mtu", "admin_up"),
    "CABLE_LENGTH": ("cable_length_m",),
}


@pytest.mark.parametrize(
    "name",
    [
        "su_mock_config_db_flat.json",
        "su_dbmigrator_qos_oldref_format_3_0_1.json",
        "su_config_qos.json",
        "sb_qos_mellanox4600c_d48c40_t0.json",
    ],
)
def test_dropping_each_table_keeps_parsing(name: str) -> None:
    doc = json.loads((FIXTURES / name).read_text())
    for table in _tables(doc):
        text = json.dumps(_without(doc, table), indent=2)
        dev = parse_text(text, f"{name}-{table}", "fuzz", None).device
        for port in dev.ports.values():
            for attr in UNKNOWN_WITHOUT.get(table, ()):
                assert getattr(port, attr) is None, (table, port.name, attr)
        if table == "BUFFER_POOL":
            assert dev.buffer_pools is None


def test_dropping_each_entry_keeps_parsing() -> None:
    doc = json.loads((FIXTURES / "su_mock_asic0_config_db_flat.json").read_text())
    for key in doc:
        text = json.dumps({k: v for k, v in doc.items() if k != key}, indent=2)
        parse_text(text, key, "fuzz", None)


@pytest.mark.parametrize("cut", range(1, 6000, 397))
def test_truncated_file_raises_a_parse_error_with_a_line(cut: int) -> None:
    text = (FIXTURES / "sm_configlet_add_qos_new_dbfmt.json").read_text()
    with pytest.raises(ParseError) as err:
        parse_text(text[:cut], "cut.json", "fuzz", None)
    assert err.value.line is not None
    assert err.value.file == "cut.json"
