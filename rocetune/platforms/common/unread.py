"""Unread is not absent: port fields that only a default decided, forgotten when a line of
the port's own configuration that may change them was not understood.

A switch port's model fields come from configuration lines or, when no line sets them, from
the platform's defaults (trust the port default, MTU 1500, no ECN, watchdog off, no link
pause). When a line of the port's interface body was not understood (an Unparsed item bound
to the port) and that line may change one of those facts (its ``features``), the default is
not known to apply: the field is left unknown (None) so that rules report "could not
verify" instead of asserting the default.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, MutableMapping

from rocetune.model import Unparsed

DEFAULTED: dict[str, tuple[str, ...]] = {
    "trust": ("trust", "dscp_to_priority"),
    "dscp_map": ("dscp_to_priority",),
    "mtu": ("mtu",),
    "pfc": ("pfc_rx", "pfc_tx", "link_pause"),
    "ecn": ("ecn",),
    "scheduler": ("schedulers",),
    "watchdog": ("watchdog",),
    "speed": ("speed_mbps",),
}
"""Feature of an unread line -> the port fields it may decide."""


def blocked_features(items: Iterable[Unparsed]) -> dict[str, frozenset[str]]:
    """Port -> the features of the unread lines bound to it (one pass over the items)."""
    found: dict[str, set[str]] = {}
    for item in items:
        for port in item.ports or ():
            found.setdefault(port, set()).update(item.features)
    return {port: frozenset(features) for port, features in found.items()}


def unread_defaults(
    values: MutableMapping[str, object],
    lines: Mapping[str, int] | Container[str],
    blocked: Iterable[str],
) -> None:
    """Forget the fields no input line set (defaults) that an unread line may change."""
    for feature in blocked:
        for name in DEFAULTED.get(feature, ()):
            if name not in lines and name in values:
                values[name] = None
