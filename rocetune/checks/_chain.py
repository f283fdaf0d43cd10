"""Follow a priority through a port's maps (priority -> TC -> queue / PG) for the ecn, ets,
buffers and watchdog rules.

Each lookup returns the number or a :class:`Missing` note that says which map is unknown or
lacks the entry (a map that is known but does not list the priority is a chain problem that
RT106 reports as an error; the rules here can only say they could not follow it).
"""

from __future__ import annotations

from typing import TypeVar

from rocetune.checks.base import CheckContext, Missing, RuleOptions, port_path
from rocetune.checks.helpers import PortLike, missing
from rocetune.model import Link, Port


def _lookup(
    device: str, port: PortLike, field: str, key: int, *, mapping: dict[int, int] | None, what: str
) -> int | Missing:
    if mapping is None:
        return missing(device, port, field, f"{what} map")
    if key not in mapping:
        return Missing(
            device=device,
            item=f"{port.name}: {what} map has no entry for {key} (chain broken, see RT106)",
            path=port_path(port, field),
        )
    return mapping[key]


def tc_of(device: str, port: PortLike, priority: int) -> int | Missing:
    """The traffic class of ``priority`` on a switch or NIC port."""
    return _lookup(
        device, port, "priority_to_tc", priority, mapping=port.priority_to_tc, what="priority->TC"
    )


def queue_of(device: str, port: Port, priority: int) -> int | Missing:
    """The egress queue of ``priority``: priority -> ``priority_to_tc`` -> ``tc_to_queue``."""
    tc = tc_of(device, port, priority)
    if isinstance(tc, Missing):
        return tc
    return _lookup(device, port, "tc_to_queue", tc, mapping=port.tc_to_queue, what="TC->queue")


def pg_of(device: str, port: Port, priority: int) -> int | Missing:
    """The ingress priority group of ``priority``: priority -> TC -> ``tc_to_pg``."""
    tc = tc_of(device, port, priority)
    if isinstance(tc, Missing):
        return tc
    return _lookup(device, port, "tc_to_pg", tc, mapping=port.tc_to_pg, what="TC->PG")


def link_length(ctx: CheckContext, device: str, port: str) -> float | None:
    """The longest known ``length_m`` of the fabric links ending at ``device:port``."""
    links = ctx.fabric.links
    return ctx.memo("link lengths", (links,), lambda: _lengths(links)).get((device, port))


def _lengths(links: tuple[Link, ...]) -> dict[tuple[str, str], float]:
    """(device, port) -> the longest known ``length_m`` of the links ending there (one pass
    over the fabric's links instead of one over a device's links per port)."""
    out: dict[tuple[str, str], float] = {}
    for lk in links:
        if lk.length_m is None:
            continue
        for end in {(lk.a.device, lk.a.port), (lk.b.device, lk.b.port)}:
            out[end] = max(out[end], lk.length_m) if end in out else lk.length_m
    return out


OptionsT = TypeVar("OptionsT", bound=RuleOptions)


def options_of(ctx: CheckContext, model: type[OptionsT]) -> OptionsT:
    """The rule's options as ``model`` (its defaults when the engine passed another type)."""
    opts = ctx.options
    return opts if isinstance(opts, model) else model()


def fmt_ports(names: list[str], limit: int = 4, count: int | None = None) -> str:
    """``Ethernet0, Ethernet4 and 3 more`` for a message (``count``: how many there are
    when ``names`` holds only the first ones)."""
    head = ", ".join(names[:limit])
    count = len(names) if count is None else count
    return head if count <= limit else f"{head} and {count - limit} more"
