"""rocetune's Spectrum headroom against buffermgrd's, on every row of every shipped SKU table.

``tests/fixtures/sonic/headroom_oracle.tsv`` holds, for each row of each NVIDIA SKU's
``pg_profile_lookup.ini`` in sonic-buildimage, the xon/xoff/size that sonic-swss's
``buffer_headroom_mellanox.lua`` returns for that speed and cable length (its header says how
they were obtained). rocetune must give the same numbers to within one cell, and a static
profile equal to the SKU's row must never be an RT501 error.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from rocetune.checks.base import CheckContext
from rocetune.checks.buffers import HeadroomOptions, HeadroomSufficient, XonXoffOrder
from rocetune.model import BufferPool, BufferProfile, Device, Fabric, Intent, Port, Severity
from rocetune.platforms.sonic.asic import asic_family, gearbox_delay_ns
from rocetune.platforms.sonic.sku_tables import SkuRow, SkuTable, all_tables, platform_asic
from rocetune.tune.headroom import HeadroomInputs, asic_constants, compute_headroom

ORACLE = Path(__file__).parents[1] / "fixtures" / "sonic" / "headroom_oracle.tsv"


def _rows() -> list[dict[str, str]]:
    lines = [ln for ln in ORACLE.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


ROWS = _rows()


def _id(r: dict[str, str]) -> str:
    return f"{r['sku']}-{r['speed']}-{r['cable']}"


def test_the_oracle_covers_every_shipped_sku_table() -> None:
    shipped = {
        (t.platform, t.sku): len(t.rows) for t in all_tables() if not platform_asic(t.platform)
    }
    covered: dict[tuple[str, str], int] = {}
    for r in ROWS:
        covered[r["platform"], r["sku"]] = covered.get((r["platform"], r["sku"]), 0) + 1
    assert covered == shipped
    skus = {sku for _, sku in shipped}
    for need in ("ACS-MSN2700", "ACS-MSN3800", "ACS-MSN4600C", "ACS-MSN4700", "ACS-SN5600"):
        assert need in skus
    assert {r["asic"] for r in ROWS} == {
        "MELLANOX-SPECTRUM",
        *(f"MELLANOX-SPECTRUM-{n}" for n in range(2, 7)),
    }


@pytest.mark.parametrize("row", ROWS, ids=[_id(r) for r in ROWS])
def test_rocetune_equals_buffermgrd(row: dict[str, str]) -> None:
    asic = asic_family(row["platform"], row["sku"])
    assert asic is not None
    consts = asic_constants(asic)
    assert consts is asic_constants(row["asic"])  # the platform maps to the ASIC_TABLE entry
    gearbox = gearbox_delay_ns(row["platform"], row["sku"])
    assert gearbox == float(row["gearbox_ns"])
    res = compute_headroom(
        HeadroomInputs(
            speed_mbps=int(row["speed"]),
            cable_m=float(row["cable"].removesuffix("m")),
            gearbox_delay_ns=gearbox,
            lanes=int(row["lanes"]),
        ),
        consts,
    )
    cell = consts.cell_bytes or 1
    assert abs(res.xoff - int(row["lua_xoff"])) < cell
    assert abs(res.xon - int(row["lua_xon"])) < cell
    assert abs(res.size - int(row["lua_size"])) < cell


def _device(row: dict[str, str]) -> Device:
    prof = BufferProfile(
        name=f"pg_lossless_{row['speed']}_{row['cable']}_profile",
        pool="ingress_lossless_pool",
        size_bytes=int(row["table_size"]),
        xon_bytes=int(row["table_xon"]),
        xoff_bytes=int(row["table_xoff"]),
        vendor_table=f"{row['sku']} pg_profile_lookup.ini row {row['speed']} {row['cable']}",
    )
    port = Port(
        name="Ethernet0",
        speed_mbps=int(row["speed"]),
        mtu=9100,
        cable_length_m=float(row["cable"].removesuffix("m")),
        priority_to_tc={3: 3},
        tc_to_pg={3: 3},
        pg_buffers={3: prof},
    )
    return Device(
        name="sw",
        kind="switch",
        platform="sonic",
        asic=asic_family(row["platform"], row["sku"]),
        ports={"Ethernet0": port},
    )


@pytest.mark.parametrize("row", ROWS, ids=[_id(r) for r in ROWS])
def test_a_profile_equal_to_the_sku_row_is_never_an_error(row: dict[str, str]) -> None:
    dev = _device(row)
    intent = Intent(lossless_priorities=[3])
    ctx = CheckContext(fabric=Fabric(devices={"sw": dev}, intent=intent), options=HeadroomOptions())
    results = list(HeadroomSufficient().check_port(dev, dev.ports["Ethernet0"], ctx))
    issues = [r for r in results if hasattr(r, "message")]
    for issue in issues:
        assert issue.severity is Severity.WARNING  # type: ignore[union-attr]
        assert row["table_xoff"] in issue.message  # type: ignore[union-attr]
    lua_larger = int(row["lua_xoff"]) > int(row["table_xoff"])
    if not lua_larger:
        assert issues == []


BROADCOM = [(t, r) for t in all_tables() if platform_asic(t.platform) for r in t.rows]


def test_broadcom_tables_are_shipped() -> None:
    skus = {t.sku for t, _ in BROADCOM}
    assert len(skus) >= 90  # 110 tables; 13 ship without a row, some SKUs share a name
    for need in ("Arista-7260CX3-C64", "Force10-S6100", "Arista-7060X6-64PE-O128S2"):
        assert need in skus


@pytest.mark.parametrize(
    ("table", "row"), BROADCOM, ids=[f"{t.sku}-{r.speed_mbps}-{r.cable_m}m" for t, r in BROADCOM]
)
def test_a_broadcom_profile_equal_to_the_sku_row_is_never_an_error(
    table: SkuTable, row: SkuRow
) -> None:
    """Broadcom rows are limits into the shared headroom pool; no formula is published, so
    the comparison is with the vendor-neutral estimate: a warning naming both numbers."""
    prof = BufferProfile(
        name=f"pg_lossless_{row.speed_mbps}_{row.cable_m}m_profile",
        pool="ingress_lossless_pool",
        size_bytes=row.size,
        xon_bytes=row.xon,
        xoff_bytes=row.xoff,
        vendor_table=table.label(row),
    )
    port = Port(
        name="Ethernet0",
        speed_mbps=row.speed_mbps,
        mtu=9100,
        cable_length_m=float(row.cable_m),
        priority_to_tc={3: 3},
        tc_to_pg={3: 3},
        pg_buffers={3: prof},
    )
    pool = BufferPool(
        name="ingress_lossless_pool", direction="ingress", shared_headroom_bytes=10**7
    )
    dev = Device(
        name="sw",
        kind="switch",
        platform="sonic",
        asic=asic_family(table.platform, table.sku),
        ports={"Ethernet0": port},
        buffer_pools={pool.name: pool},
    )
    assert dev.asic == "broadcom"
    intent = Intent(lossless_priorities=[3])
    ctx = CheckContext(fabric=Fabric(devices={"sw": dev}, intent=intent), options=HeadroomOptions())
    issues = [r for r in HeadroomSufficient().check_port(dev, port, ctx) if hasattr(r, "message")]
    for issue in issues:
        assert issue.severity is Severity.WARNING  # type: ignore[union-attr]
        assert str(row.xoff) in issue.message  # type: ignore[union-attr]
        assert "estimate" in issue.message  # type: ignore[union-attr]
    # without a shared headroom pool (the TD2 templates set no pool xoff) RT502 does not ask
    # for size >= xon + xoff: Broadcom reserves the PG minimum and the headroom apart
    independent = pool.model_copy(update={"shared_headroom_bytes": 0})
    dev = dev.model_copy(update={"buffer_pools": {pool.name: independent}})
    order = [r for r in XonXoffOrder().check_port(dev, port, ctx) if hasattr(r, "message")]
    assert order == []
