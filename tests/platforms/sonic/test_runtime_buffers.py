"""buffermgrd's runtime lossless PGs (traditional model) and the SKU tables, on a stock config."""

from __future__ import annotations

from pathlib import Path

from rocetune.api import lint
from rocetune.model import Device, Severity
from rocetune.platforms.sonic.parse import parse_text
from rocetune.platforms.sonic.runtime_buffers import headroom_params
from rocetune.platforms.sonic.sku_tables import parse_table, sku_table

STOCK = Path(__file__).parents[2] / "fixtures" / "sonic" / "stock_sn4600c_t0_traditional.json"


def _device() -> Device:
    return parse_text(STOCK.read_text(encoding="utf-8"), str(STOCK), "sw", None).device


def test_lossless_pgs_are_derived_from_the_sku_table() -> None:
    dev = _device()
    assert dev.asic == "spectrum3"
    port = dev.ports["Ethernet0"]
    assert port.pg_buffers is not None
    assert set(port.pg_buffers) == {0}  # no pfc_enable on this port: nothing is created
    lossless = [
        (name, p.pg_buffers)
        for name, p in dev.ports.items()
        if p.pg_buffers is not None and 3 in p.pg_buffers
    ]
    assert len(lossless) == 24
    name, pgs = lossless[0]
    prof = pgs[3]
    assert prof.generated_at_runtime is not None
    assert "generated at runtime" in prof.generated_at_runtime
    row = sku_table("x86_64-mlnx_msn4600c-r0", "Mellanox-SN4600C-D48C40")
    assert row is not None
    cable = int(dev.ports[name].cable_length_m or 0)
    want = row.row(100_000, cable)
    assert want is not None
    assert (prof.xon_bytes, prof.xoff_bytes, prof.size_bytes) == (want.xon, want.xoff, want.size)
    assert prof.name == f"pg_lossless_100000_{cable}m_profile"
    assert prof.vendor_table == row.label(want)


def test_stock_config_has_no_headroom_error_and_one_finding_per_cause() -> None:
    result = lint([STOCK], platform="sonic")
    codes = [(f.code, f.severity) for f in result.findings]
    assert ("RT501", Severity.ERROR) not in codes
    assert ("RT502", Severity.ERROR) not in codes
    assert not [f for f in result.findings if f.code == "RT106" and "XOFF" in f.message]


def test_without_a_table_the_values_are_unknown_not_absent() -> None:
    text = STOCK.read_text(encoding="utf-8").replace("Mellanox-SN4600C-D48C40", "Custom-SKU")
    dev = parse_text(text, "x.json", "sw", None).device
    prof = dev.ports["Ethernet248"].pg_buffers[3]  # type: ignore[index]
    assert prof.xoff_bytes is None
    assert "not shipped with rocetune" in (prof.generated_at_runtime or "")


def test_traffic_pattern_and_gearbox_from_the_config() -> None:
    facts = {
        "lossless_traffic_pattern.mtu": "4096",
        "lossless_traffic_pattern.small_packet_percentage": "100",
        "default_lossless_buffer_parameter.over_subscribe_ratio": "2",
        "platform": "x86_64-mlnx_msn3800-r0",
    }
    params = headroom_params(facts)
    assert params is not None
    assert params.lossless_mtu_bytes == 4096
    assert params.small_packet_pct == 100
    assert params.over_subscribe_ratio == 2
    assert params.gearbox_delay_ns == 400
    assert headroom_params({}) is None


def test_table_parser_skips_comments_and_junk() -> None:
    table = parse_table("# x\n 100000 5m 1 2 3 0\nbad line\n 25000 40m 4 5 6\n", "p", "S")
    assert [(r.speed_mbps, r.cable_m, r.xoff) for r in table.rows] == [
        (100000, 5, 3),
        (25000, 40, 6),
    ]


def test_buffer_pool_type_both_is_valid() -> None:
    text = (
        '{"BUFFER_POOL": {"ingress_lossless_pool": {"type": "both", "mode": "dynamic",'
        ' "size": "1000000", "xoff": "200000"}, "egress_pool": {"type": "both", "size": "5"}}}'
    )
    dev = parse_text(text, "x.json", "sw", None).device
    assert dev.unparsed == ()
    assert dev.buffer_pools is not None
    pool = dev.buffer_pools["ingress_lossless_pool"]
    assert pool.direction is None  # both directions: neither ingress-only nor egress-only
    assert pool.shared_headroom_bytes == 200_000
    assert dev.buffer_pools["egress_pool"].shared_headroom_bytes == 0
