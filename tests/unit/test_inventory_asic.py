"""The inventory's ``asic:`` key (device, group or default) names the ASIC for headroom."""

from __future__ import annotations

from pathlib import Path

from rocetune.inventory import load_inventory
from rocetune.load import load_device

LAB = Path(__file__).parents[2] / "inventories" / "lab"


def test_asic_key_is_inherited_and_overrides_the_snapshot(tmp_path: Path) -> None:
    inv_file = tmp_path / "inventory.yaml"
    snap = LAB / "snapshots" / "leaf3"
    inv_file.write_text(
        "groups:\n"
        "  cumulus: {platform: cumulus, asic: spectrum3}\n"
        "devices:\n"
        f"  leaf3: {{groups: [cumulus], snapshot: {snap}}}\n"
        f"  leaf9: {{platform: cumulus, asic: spectrum4, snapshot: {snap}}}\n"
        f"  leaf0: {{platform: cumulus, snapshot: {snap}}}\n",
        encoding="utf-8",
    )
    inv = load_inventory(inv_file)
    assert inv.devices["leaf3"].asic == "spectrum3"
    assert inv.devices["leaf9"].asic == "spectrum4"
    assert inv.devices["leaf0"].asic is None
    d = inv.devices["leaf3"]
    loaded = load_device(d.name, d.snapshot, d.platform, d.role, d.asic)
    assert loaded.result is not None
    assert loaded.result.device.asic == "spectrum3"
    plain = load_device(d.name, d.snapshot, d.platform, d.role)
    assert plain.result is not None
    assert plain.result.device.asic is None
