"""Broadcom shared-headroom SKUs in SONiC (issue 12 item 1): stock configs, their semantics.

The CONFIG_DB of a stock SKU is what sonic-cfggen writes from the SKU's files: PORT from
``port_config.ini``, the rendered ``buffers.json.j2`` and ``qos.json.j2`` (sonic-buildimage's
own expected outputs for these SKUs, unchanged in tests/corpus and tests/realworld), and
DEVICE_METADATA with the platform and HWSKU sonic-buildimage's test renders them for. At
runtime buffermgrd adds the lossless PGs 3-4 from the SKU's ``pg_profile_lookup.ini``; their
``xoff`` is a limit into the pool's shared headroom (``ingress_lossless_pool xoff``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rocetune.api import lint
from rocetune.checks.headroom_pool import pool_uses
from rocetune.model import Device, Intent, Severity
from rocetune.platforms.sonic.parse import parse_text
from rocetune.platforms.sonic.sku_tables import platform_asic, sku_table

TESTS = Path(__file__).parents[2]
FIX = TESTS / "fixtures" / "sonic"
INTENT = Intent(lossless_priorities=[3, 4], roce_dscp=[3, 4])
SKUS = {
    # name: (platform, hwsku, switch type, qos.json, buffers.json, port_config.ini)
    "arista7260_t1": (
        "x86_64-arista_7260cx3_64",
        "Arista-7260CX3-C64",
        "LeafRouter",
        TESTS / "realworld" / "configs" / "sonic" / "sb_qos_arista7260_t1.json",
        TESTS / "corpus" / "sonic" / "sb_buffer_arista7260_t1.json",
        FIX / "sb_port_config_arista7260cx3_c64.ini",
    ),
    "dell6100_t0": (
        "x86_64-dell_s6100_c2538-r0",
        "Force10-S6100",
        "ToRRouter",
        TESTS / "realworld" / "configs" / "sonic" / "sb_qos_dell6100.json",
        TESTS / "corpus" / "sonic" / "sb_buffers_dell6100.json",
        FIX / "sb_port_config_dell_s6100.ini",
    ),
}


def _ports(ini: Path) -> dict[str, dict[str, str]]:
    out = {}
    for line in ini.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, lanes, alias, index, speed = line.split()[:5]
            out[name] = {"lanes": lanes, "alias": alias, "index": index, "speed": speed}
            out[name]["mtu"] = "9100"
    return out


def stock_config(key: str) -> dict[str, Any]:
    """The CONFIG_DB sonic-cfggen builds for the stock SKU ``key``."""
    platform, hwsku, role, qos, buffers, ini = SKUS[key]
    db: dict[str, Any] = {
        "DEVICE_METADATA": {"localhost": {"platform": platform, "hwsku": hwsku, "type": role}},
        "PORT": _ports(ini),
    }
    for part in (qos, buffers):
        db.update(json.loads(part.read_text(encoding="utf-8")))
    return db


def _device(db: dict[str, Any]) -> Device:
    return parse_text(json.dumps(db), "config_db.json", "sw", None).device


def _lint(tmp_path: Path, db: dict[str, Any]) -> list[Any]:
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(db), encoding="utf-8")
    return lint([path], platform="sonic", intent=INTENT).findings


def test_broadcom_tables_and_platforms_are_shipped() -> None:
    assert platform_asic("x86_64-arista_7260cx3_64") == "broadcom"
    assert platform_asic("x86_64-mlnx_msn2700-r0") is None
    table = sku_table("x86_64-arista_7260cx3_64", "Arista-7260CX3-C64")
    assert table is not None
    row = table.row(100_000, 300)
    assert row is not None
    assert (row.size, row.xon, row.xoff) == (1248, 1248, 101088)


@pytest.mark.parametrize("key", sorted(SKUS))
def test_runtime_pgs_take_the_broadcom_table_row(key: str) -> None:
    dev = _device(stock_config(key))
    assert dev.asic == "broadcom"
    pool = (dev.buffer_pools or {})["ingress_lossless_pool"]
    assert (pool.shared_headroom_bytes or 0) > 0
    lossless = [p for p in dev.ports.values() if p.pg_buffers and 3 in p.pg_buffers]
    assert lossless
    prof = lossless[0].pg_buffers[3]  # type: ignore[index]
    assert prof.generated_at_runtime is not None
    assert prof.vendor_table is not None
    assert prof.pool == "ingress_lossless_pool"
    assert prof.xoff_bytes is not None
    assert prof.size_bytes is not None
    assert prof.size_bytes < prof.xoff_bytes  # size reserves only the xon part


@pytest.mark.parametrize("key", sorted(SKUS))
def test_stock_broadcom_config_has_no_buffer_error_nor_pool_warning(
    key: str, tmp_path: Path
) -> None:
    findings = _lint(tmp_path, stock_config(key))
    buffer_codes = {"RT501", "RT502", "RT504", "RT505"}
    errors = [f for f in findings if f.code in buffer_codes and f.severity == Severity.ERROR]
    assert errors == []
    assert not [f for f in findings if f.code == "RT504" and "shared headroom" in f.message]
    assert not [f for f in findings if f.code == "RT000" and "values not known" in f.message]


def test_pool_below_one_port_share_is_an_estimate_warning(tmp_path: Path) -> None:
    db = stock_config("arista7260_t1")
    (use,) = pool_uses(_device(db))
    total, ports = use.total_xoff, use.ports
    assert (ports, len(use.pgs)) == (28, 96)  # 8 ports with PG 3-4, 20 with 2,3,4,6 (tunnel remap)
    db["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"] = str(total // ports - 1024)
    found = [f for f in _lint(tmp_path, db) if f.code == "RT504" and "shared headroom" in f.message]
    assert len(found) == 1
    assert found[0].severity == Severity.WARNING
    assert "estimate" in found[0].expected
    assert "over_subscribe_ratio" in found[0].expected
    assert f"sum of PG xoff {total} B / {ports} ports" in found[0].message


def test_pool_below_one_pg_limit_is_named(tmp_path: Path) -> None:
    db = stock_config("dell6100_t0")
    db["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"] = "10000"
    found = [f for f in _lint(tmp_path, db) if f.code == "RT504" and "shared headroom" in f.message]
    assert len(found) == 1
    assert found[0].severity == Severity.WARNING
    assert "can never use its headroom" in found[0].message


def test_configured_ratio_asks_for_more_than_the_pool(tmp_path: Path) -> None:
    db = stock_config("arista7260_t1")
    db["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {"AZURE": {"over_subscribe_ratio": "1"}}
    found = [f for f in _lint(tmp_path, db) if f.code == "RT504" and "shared headroom" in f.message]
    # the stock pool xoff 8965632 B holds the sum of all 96 PG limits: ratio 1 is met
    assert found == []
    db["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {"AZURE": {"over_subscribe_ratio": "0.5"}}
    found = [f for f in _lint(tmp_path, db) if f.code == "RT504" and "shared headroom" in f.message]
    assert len(found) == 1
    assert "configured over_subscribe_ratio 0.5" in found[0].message


def test_unknown_pg_values_are_rt000_naming_them(tmp_path: Path) -> None:
    db = stock_config("arista7260_t1")
    db["DEVICE_METADATA"]["localhost"]["hwsku"] = "Custom-SKU"
    found = [f for f in _lint(tmp_path, db) if f.code == "RT000" and "RT504" in f.message]
    assert len(found) == 1
    assert "96 lossless PGs on shared headroom pool ingress_lossless_pool" in found[0].message
    assert "not shipped with rocetune" in found[0].message
