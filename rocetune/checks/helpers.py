"""Small helpers shared by rule families (classification, pfc, mtu, links, ecn, buffers, ...).

This is a stable API: other rule modules import it, so change signatures only by adding.

Port facts (``None`` always means "not known from the snapshot"):

- :func:`lossless_priorities` - priorities that are lossless on a port: PFC in both rx and
  tx on a switch port, ``pfc_priorities`` on a NIC port.
- :func:`pfc_priorities` - priorities with PFC enabled in any direction.
- :func:`dscp_priority` - the priority a DSCP maps to on a port (``None`` when unmapped).
- :func:`priority_tc` / :func:`lossless_tcs` - the TC of a priority / of the lossless
  priorities, through ``priority_to_tc``.
- :func:`profile_is_lossless` - whether a buffer profile is a lossless (XOFF) profile.

Results:

- :func:`missing` - the one way to build a :class:`Missing` note for a port field.
- :func:`missing_pfc` - notes for whichever PFC field of a port is unknown.
- :func:`pfc_path` - the model path of a port's PFC setting (for provenance).

Links:

- :func:`resolve_link` - both model ports of a link, or the notes saying which is missing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from rocetune.checks.base import CheckContext, Missing, port_path
from rocetune.model import BufferProfile, Link, LinkEnd, NicPort, Port

PortLike: TypeAlias = Port | NicPort
"""A switch port or a host NIC port."""

DSCP_TRUST = frozenset({"dscp", "both"})
"""Trust modes under which IP packets are classified by DSCP."""


def missing(device: str, port: PortLike, field: str, what: str) -> Missing:
    """A Missing note: ``<port>: <what> not in snapshot``, pointing at ``port.<field>``."""
    return Missing(
        device=device, item=f"{port.name}: {what} not in snapshot", path=port_path(port, field)
    )


def lossless_priorities(port: PortLike) -> frozenset[int] | None:
    """Priorities that are lossless on ``port``, or None when PFC state is unknown.

    A switch port is lossless on a priority when PFC is on for it in both directions
    (``pfc_rx`` and ``pfc_tx``); a NIC port when it is in ``pfc_priorities``.
    """
    if isinstance(port, NicPort):
        return None if port.pfc_priorities is None else frozenset(port.pfc_priorities)
    if port.pfc_rx is None or port.pfc_tx is None:
        return None
    return frozenset(port.pfc_rx) & frozenset(port.pfc_tx)


def pfc_priorities(port: PortLike) -> frozenset[int] | None:
    """Priorities with PFC enabled in any direction, or None when PFC state is unknown."""
    if isinstance(port, NicPort):
        return None if port.pfc_priorities is None else frozenset(port.pfc_priorities)
    if port.pfc_rx is None or port.pfc_tx is None:
        return None
    return frozenset(port.pfc_rx) | frozenset(port.pfc_tx)


def missing_pfc(device: str, port: PortLike) -> list[Missing]:
    """Missing notes for the PFC fields of ``port`` that are unknown (empty when known)."""
    if isinstance(port, NicPort):
        if port.pfc_priorities is None:
            return [missing(device, port, "pfc_priorities", "PFC priorities")]
        return []
    out = []
    if port.pfc_rx is None:
        out.append(missing(device, port, "pfc_rx", "PFC rx priorities"))
    if port.pfc_tx is None:
        out.append(missing(device, port, "pfc_tx", "PFC tx priorities"))
    return out


def pfc_path(port: PortLike) -> str:
    """Model path of the PFC setting of ``port`` (switch: ``pfc_tx``; NIC: ``pfc_priorities``)."""
    return port_path(port, "pfc_priorities" if isinstance(port, NicPort) else "pfc_tx")


def dscp_priority(port: PortLike, dscp: int) -> int | None:
    """The priority ``dscp`` maps to on ``port``; None when the map is unknown or lacks it."""
    dmap = port.dscp_to_priority
    return None if dmap is None else dmap.get(dscp)


def priority_tc(port: PortLike, priority: int) -> int | None:
    """The traffic class of ``priority`` on ``port``; None when unknown or unmapped."""
    ptc = port.priority_to_tc
    return None if ptc is None else ptc.get(priority)


def lossless_tcs(port: PortLike, priorities: Iterable[int]) -> frozenset[int] | None:
    """TCs that the given (lossless) priorities map to; None when ``priority_to_tc`` is unknown."""
    ptc = port.priority_to_tc
    if ptc is None:
        return None
    return frozenset(ptc[p] for p in priorities if p in ptc)


def profile_is_lossless(profile: BufferProfile) -> bool:
    """True for a lossless PG profile: an XOFF threshold is set or the switch computes it
    (or creates it at runtime, as SONiC buffermgrd does for the traditional model)."""
    if profile.computed_at_runtime or profile.generated_at_runtime is not None:
        return True
    return (profile.xoff_bytes or 0) > 0


def resolve_link(
    link: Link, ctx: CheckContext
) -> tuple[tuple[PortLike, PortLike] | None, list[Missing]]:
    """Both model ports of ``link`` (a, b), or None plus notes on what is missing.

    A port absent from a device that is in the model is noted on that device; an end whose
    device is not in the model at all is noted on the other end's device (when that one is
    present). A link with neither device in the model yields no note.
    """
    a, b = ctx.end(link.a), ctx.end(link.b)
    if a is not None and b is not None:  # the usual case, for every link rule on every link
        return (a, b), []
    notes = _end_notes(link, link.a, link.b, a, ctx) + _end_notes(link, link.b, link.a, b, ctx)
    if a is None or b is None:
        return None, notes
    return (a, b), notes


def _end_notes(
    link: Link, end: LinkEnd, other: LinkEnd, port: PortLike | None, ctx: CheckContext
) -> list[Missing]:
    if port is not None:
        return []
    devices = ctx.fabric.devices
    if end.device in devices:
        return [
            Missing(
                device=end.device, item=f"{end.port}: port of link {link.label} not in snapshot"
            )
        ]
    if other.device in devices:
        return [
            Missing(device=other.device, item=f"{other.port}: link peer {end} not in the model")
        ]
    return []
