"""Snapshots as an inventory: ``rocetune audit --snapshots DIR`` and ``snapshots_dir:``.

Host-local collection (``rocetune collect --local`` on every node, e.g. under Slurm) writes
``DIR/<hostname>/``; no inventory lists those hosts one by one. :func:`with_snapshots` makes
every ``DIR/<device>/meta.json`` a device of the inventory (merged with its switches, groups
and intent), and :func:`expected_hosts` names the hosts the inventory expects that have no
snapshot (reported as not collected, exit 3, instead of being collected over SSH).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rocetune.errors import InventoryError
from rocetune.inventory import _NAME_RE, Access, Inventory, ResolvedDevice
from rocetune.platforms import KNOWN_PLATFORMS, drivers
from rocetune.snapshot import read_meta


def with_snapshots(inv: Inventory, directory: Path) -> Inventory:
    """``inv`` plus every snapshot ``directory/<device>/meta.json`` as a device.

    A device the inventory names takes its snapshot from ``directory`` (it wins over the
    entry's ``snapshot:``: it is the newer collection) and keeps everything else (groups,
    role, roce_ports, access); its platform is the inventory's, else the one in meta.json.
    A device the inventory does not name is added with the platform of its meta.json and
    the inventory's defaults; it is a ``host`` when its platform is a host platform.
    Hidden directories (``.gpu01.tmp-*`` of a write in progress) and directories without
    meta.json are not devices. Raises InventoryError when ``directory`` is not a directory.
    """
    if not directory.is_dir():
        raise InventoryError("snapshots: not a directory", file=directory)
    devices = dict(inv.devices)
    for sub in sorted(directory.iterdir(), key=lambda p: p.name):
        if not _NAME_RE.match(sub.name) or not (sub / "meta.json").is_file():
            continue
        try:
            meta_platform = read_meta(sub).platform
        except Exception:  # an invalid meta.json: the snapshot reader reports it
            meta_platform = None
        if meta_platform not in KNOWN_PLATFORMS:
            meta_platform = None
        entry = devices.get(sub.name)
        if entry is not None:
            platform = entry.platform or meta_platform
            devices[sub.name] = _replace_snapshot(entry, sub.resolve(), platform)
            continue
        driver = drivers().get(meta_platform) if meta_platform else None
        role = "host" if driver is not None and driver.kind == "host" else None
        devices[sub.name] = ResolvedDevice(
            name=sub.name,
            host=None,
            platform=meta_platform,
            role=role,
            snapshot=sub.resolve(),
            snapshot_line=None,
            nics=None,
            access=Access(),
        )
    return dataclasses.replace(inv, devices=devices)


def _replace_snapshot(
    entry: ResolvedDevice, snapshot: Path, platform: str | None
) -> ResolvedDevice:
    return dataclasses.replace(entry, snapshot=snapshot, snapshot_line=None, platform=platform)


def expected_hosts(inv: Inventory) -> list[str]:
    """Devices of ``inv`` that are hosts (role ``host`` or a host platform) with no snapshot."""
    out = []
    for dev in inv.devices.values():
        if dev.snapshot is not None:
            continue
        driver = drivers().get(dev.platform) if dev.platform else None
        if dev.role == "host" or (driver is not None and driver.kind == "host"):
            out.append(dev.name)
    return out
