"""The inventory cached by content (rocetune.invcache): the same Inventory as a fresh load
after every kind of change, read from the cache only when nothing it depends on changed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from rocetune import api, invcache
from rocetune.errors import InventoryError
from rocetune.inventory import Inventory, load_inventory
from rocetune.parsecache import ParseCache

LAB = Path(__file__).resolve().parents[2] / "inventories" / "lab"


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The inventories read by load_inventory through invcache (cache misses)."""
    seen: list[Path] = []

    def counting(path: Path, **kwargs: Any) -> Inventory:
        seen.append(Path(path))
        return load_inventory(path, **kwargs)

    monkeypatch.setattr(invcache, "load_inventory", counting)
    return seen


def _lab(tmp_path: Path) -> Path:
    """The lab inventory with its snapshots behind a symbolic link (``current``)."""
    root = tmp_path / "lab"
    shutil.copytree(LAB / "snapshots", root / "run1")
    shutil.copytree(LAB / "configs", root / "configs")
    (root / "current").symlink_to("run1")
    text = (
        (LAB / "inventory.yaml").read_text().replace("snapshot: snapshots/", "snapshot: current/")
    )
    (root / "inventory.yaml").write_text(text)
    return root / "inventory.yaml"


def test_the_cached_inventory_equals_a_fresh_load_after_each_change(
    tmp_path: Path, loads: list[Path]
) -> None:
    inventory = _lab(tmp_path)
    cache = ParseCache(tmp_path / "c")
    first = invcache.load(inventory, cache)
    assert first == load_inventory(inventory)
    assert len(loads) == 1
    again = invcache.load(inventory, ParseCache(tmp_path / "c"))
    assert again == load_inventory(inventory)
    assert again.path == inventory
    assert len(loads) == 1  # from the cache
    # the inventory edited: loaded again
    inventory.write_text(inventory.read_text().replace("mtu: {host: 9000", "mtu: {host: 8000"))
    edited = invcache.load(inventory, ParseCache(tmp_path / "c"))
    assert edited == load_inventory(inventory)
    assert edited.intent != first.intent
    assert len(loads) == 2
    # the symbolic link moved to another run: the snapshots resolve there
    shutil.copytree(inventory.parent / "run1", inventory.parent / "run2")
    (inventory.parent / "current").unlink()
    (inventory.parent / "current").symlink_to("run2")
    moved = invcache.load(inventory, ParseCache(tmp_path / "c"))
    assert moved == load_inventory(inventory)
    runs = [d.snapshot.parent.name for d in moved.devices.values() if d.snapshot]
    assert "run2" in runs
    assert "run1" not in runs
    assert len(loads) == 3
    # a snapshot removed: the inventory error of a fresh load
    shutil.rmtree(inventory.parent / "run2" / "leaf1")
    with pytest.raises(InventoryError) as cached_error:
        invcache.load(inventory, ParseCache(tmp_path / "c"))
    with pytest.raises(InventoryError) as plain_error:
        load_inventory(inventory)
    assert str(cached_error.value) == str(plain_error.value)


def test_a_relative_path_resolves_from_the_working_directory(
    tmp_path: Path, loads: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    inventory = _lab(tmp_path)
    monkeypatch.chdir(tmp_path)
    relative = Path("lab/inventory.yaml")
    assert invcache.load(relative, ParseCache(tmp_path / "c")) == load_inventory(relative)
    # the same relative name elsewhere is another inventory
    other = tmp_path / "elsewhere"
    shutil.copytree(inventory.parent, other / "lab", symlinks=True)
    monkeypatch.chdir(other)
    got = invcache.load(relative, ParseCache(tmp_path / "c"))
    assert got == load_inventory(relative)
    assert all(str(other) in str(d.snapshot) for d in got.devices.values() if d.snapshot)
    assert len(loads) == 2


def test_a_forged_entry_is_never_unpickled(tmp_path: Path, loads: list[Path]) -> None:
    import pickle

    inventory = _lab(tmp_path)
    invcache.load(inventory, ParseCache(tmp_path / "c"))
    (entry,) = (tmp_path / "c").rglob("inventory/*.pickle")
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (marker.write_text, ("x",))

    key, tag, _ = entry.read_bytes().split(b"\n", 2)
    entry.write_bytes(key + b"\n" + tag + b"\n" + pickle.dumps(Evil()))
    assert invcache.load(inventory, ParseCache(tmp_path / "c")) == load_inventory(inventory)
    assert not marker.exists()
    assert len(loads) == 2


def test_an_audit_with_a_cache_reads_the_inventory_once_per_change(
    tmp_path: Path, loads: list[Path]
) -> None:
    inventory = _lab(tmp_path)
    plain = api.audit(inventory)
    for _ in range(2):
        cached = api.audit(inventory, cache=ParseCache(tmp_path / "c"))
        assert cached.findings == plain.findings
        assert cached.inventory == plain.inventory == str(inventory)
    assert len(loads) == 1
    assert os.path.isdir(tmp_path / "c")


def test_a_snapshot_that_is_a_link_itself_is_followed_when_it_moves(
    tmp_path: Path, loads: list[Path]
) -> None:
    """The snapshot path's last component a symbolic link (its directory resolved once for
    all snapshots, the link itself each time): retargeted, the inventory loads again; a
    snapshot gone is the error of a fresh load."""
    inventory = _lab(tmp_path)
    root = inventory.parent
    shutil.copytree(root / "run1" / "leaf1", root / "leaf1-b")
    (root / "leaf1-link").symlink_to("run1/leaf1")
    inventory.write_text(inventory.read_text().replace("current/leaf1", "leaf1-link"))
    first = invcache.load(inventory, ParseCache(tmp_path / "c"))
    assert invcache.load(inventory, ParseCache(tmp_path / "c")) == first
    assert len(loads) == 1
    (root / "leaf1-link").unlink()
    (root / "leaf1-link").symlink_to("leaf1-b")
    moved = invcache.load(inventory, ParseCache(tmp_path / "c"))
    assert moved == load_inventory(inventory)
    assert moved.devices["leaf1"].snapshot == root / "leaf1-b"
    assert len(loads) == 2
    (root / "configs" / "leaf4.yaml").unlink()  # a plain file in a plain directory gone
    with pytest.raises(InventoryError) as cached_error:
        invcache.load(inventory, ParseCache(tmp_path / "c"))
    with pytest.raises(InventoryError) as plain_error:
        load_inventory(inventory)
    assert str(cached_error.value) == str(plain_error.value)
