"""The fabric's links: the inventory's declared links plus the links LLDP shows.

Vendor-neutral; works on parsed devices (``Device.lldp``) only.

- Every declared link is kept as declared (``source="inventory"``).
- An LLDP neighbour (device A, local port p, sees device B port q) becomes
  ``Link(A:p, B:q, source="lldp")`` when B is a device of the inventory and no declared link
  has A:p or B:q as an end: the inventory wins, and RT710 reports where LLDP disagrees with
  it. B's port is named as :mod:`rocetune.checks.neighbors` resolves it (port ID, port
  description, SONiC alias).
- When both ends see each other only one link is kept; when LLDP links would share a port,
  the first one (devices by name, neighbours in output order) is kept.
- Cable length: the declared ``length_m``, else ``Intent.cable_length_m`` by the roles of
  the two ends (see that field), else None (unknown; rules that need it report RT000).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rocetune.checks.neighbors import NeighborIndex
from rocetune.model import Device, Intent, Link, LinkEnd

_EndKey = tuple[str, str]


def _key(end: LinkEnd) -> _EndKey:
    return end.device, end.port


def lldp_links(
    devices: Mapping[str, Device], known: Iterable[str] = (), taken: Iterable[_EndKey] = ()
) -> list[Link]:
    """Links found by LLDP whose far end is in the inventory and whose ends are not ``taken``.

    ``known`` adds inventory names of devices that are not in ``devices`` (not collected,
    unreadable); ``taken`` are ``(device, port)`` ends already cabled by declared links.
    """
    index = NeighborIndex(devices, known)
    used: set[_EndKey] = set(taken)
    out: list[Link] = []
    for name in sorted(devices):
        for neighbor in devices[name].lldp or ():
            peer = index.peer(neighbor)
            if peer is None:
                continue
            near = LinkEnd(device=name, port=neighbor.local_port)
            ends = {_key(near), _key(peer.end)}
            if len(ends) < 2 or ends & used:
                continue
            used |= ends
            out.append(Link(a=near, b=peer.end, source="lldp"))
    return out


def default_length(
    link: Link, devices: Mapping[str, Device], table: Mapping[str, float]
) -> float | None:
    """The intent's default cable length for ``link`` (see ``Intent.cable_length_m``)."""
    if not table:
        return None
    roles = [_role(devices.get(end.device)) for end in (link.a, link.b)]
    ra, rb = roles
    if ra is not None and rb is not None:
        for pair in (f"{ra}-{rb}", f"{rb}-{ra}"):
            if pair in table:
                return table[pair]
    singles = [table[r] for r in roles if r is not None and r in table]
    if singles:
        return max(singles)
    return table.get("default")


def _role(device: Device | None) -> str | None:
    if device is None:
        return None
    return device.role or device.kind


def merge_links(
    devices: Mapping[str, Device],
    declared: Sequence[Link],
    intent: Intent,
    known: Iterable[str] = (),
) -> tuple[Link, ...]:
    """Declared links, then LLDP links, each with its cable length filled in when known."""
    taken = {_key(end) for link in declared for end in (link.a, link.b)}
    links = [*declared, *lldp_links(devices, known, taken)]
    table = intent.cable_length_m
    return tuple(
        link
        if link.length_m is not None
        else link.model_copy(update={"length_m": default_length(link, devices, table)})
        for link in links
    )
