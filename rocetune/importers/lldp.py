"""One collected device's LLDP neighbours -> :class:`Scaffold` (devices and links).

The snapshot is read by the platform parsers (:func:`rocetune.load.load_device`), the same
way an audit reads it: the collected device itself (its platform known from the snapshot) and
each neighbour's system name become devices, each neighbour a link ``local:port`` -
``neighbour:port``. Neighbours' addresses and platforms are not in LLDP as rocetune reads
it: comments leave them to the user.
"""

from __future__ import annotations

import re
from pathlib import Path

from rocetune.errors import RocetuneError
from rocetune.importers.scaffold import ImportedDevice, ImportedLink, Scaffold
from rocetune.load import load_device
from rocetune.model import LldpNeighbor

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_PORT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/:-]{0,63}$")
_MAC = re.compile(r"^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}$")


def _remote_port(n: LldpNeighbor) -> str:
    """The neighbour's port name: its port ID, or its description when the ID is a MAC."""
    if _MAC.match(n.remote_port) and n.remote_port_descr and _PORT.match(n.remote_port_descr):
        return n.remote_port_descr
    return n.remote_port


def import_lldp(snapshot: Path) -> Scaffold:
    """Read a snapshot directory (or file) and scaffold its device and LLDP neighbours."""
    if not snapshot.exists():
        raise RocetuneError("no such snapshot", file=snapshot)
    fallback = snapshot.resolve().name if snapshot.is_dir() else snapshot.stem
    loaded = load_device(fallback, snapshot, None, None)
    if loaded.error is not None:
        raise loaded.error
    if loaded.result is None:
        why = loaded.problem.message if loaded.problem else "not readable"
        raise RocetuneError(f"cannot read this snapshot: {why}", file=snapshot)
    device = loaded.result.device
    if device.lldp is None:
        raise RocetuneError(
            "this snapshot holds no LLDP neighbours (collect it with `rocetune collect`,"
            " which saves the platform's LLDP command)",
            file=snapshot,
        )
    name = next(
        (n for n in (device.snapshot_device, device.hostname, fallback) if n and _NAME.match(n)),
        fallback,
    )
    scaffold = Scaffold(source=f"the LLDP neighbours of {name} (snapshot {snapshot.name})")
    me = scaffold.add(ImportedDevice(name=name, platform=device.platform, role=device.role))
    me.notes.append(f"collected: snapshot {snapshot.name}; set host: (its SSH address)")
    skipped: list[str] = []
    seen: set[tuple[str, str]] = set()
    for n in device.lldp:
        port = _remote_port(n)
        if not _NAME.match(n.remote_name) or not _PORT.match(port) or not _PORT.match(n.local_port):
            skipped.append(f"{n.local_port} -> {n.remote_name!r} {port!r}")
            continue
        if (n.local_port, n.remote_name) in seen:
            continue
        seen.add((n.local_port, n.remote_name))
        if n.remote_name == name:
            continue
        peer = scaffold.add(ImportedDevice(name=n.remote_name))
        note = "seen by LLDP; set host:, platform: and role:"
        if note not in peer.notes:
            peer.notes.append(note)
        scaffold.links.append(ImportedLink(f"{name}:{n.local_port}", f"{n.remote_name}:{port}"))
    if skipped:
        scaffold.notes.append(
            "LLDP neighbours left out (name or port not usable in an inventory): "
            + "; ".join(skipped)
        )
    if not scaffold.links:
        scaffold.notes.append(f"{name} sees no LLDP neighbour: add the other devices by hand")
    return scaffold
