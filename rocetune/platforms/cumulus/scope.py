"""Which ports and features an NVUE item may change (the RT000 contract of Unparsed items).

An item is an NVUE key path (``interface.swp1.qos.pfc.profile``, ``qos.congestion-control.
default-global.traffic-class.3.ecn``) or a command line (``nv set qos pfc ...``), whose words
after ``set``/``unset`` are the same path. From it:

* ports: an ``interface <names>`` path applies to the swp ports its key names (ranges and
  lists expanded); a global ``qos`` path is not bound to ports (None: a ``default-global``
  profile applies to every port, and a named profile to the ports that bind it);
* features: the ``qos`` object (``pfc`` -> pfc and buffers, ``congestion-control`` -> ecn,
  ``mapping`` -> trust and DSCP map ...) or the ``link`` key (``mtu``, ``speed``, ``state``
  and ``breakout`` -> ports). Paths outside QoS and links feed no rule: ``()``.
"""

from __future__ import annotations

import re

from rocetune.model.device import QOS_FEATURES as ALL_QOS_FEATURES
from rocetune.model.device import Feature
from rocetune.platforms.cumulus import values

QOS_FEATURES: dict[str, tuple[Feature, ...]] = {
    "roce": ("trust", "dscp_map", "pfc", "ecn", "scheduler", "buffers", "lldp"),
    "mapping": ("trust", "dscp_map"),
    "egress-queue-mapping": ("dscp_map", "scheduler", "ecn"),
    "pfc": ("pfc", "buffers"),
    "link-pause": ("pfc", "buffers"),
    "congestion-control": ("ecn",),
    "egress-scheduler": ("scheduler",),
    "egress-shaper": ("scheduler",),
    "pfc-watchdog": ("watchdog",),
    "traffic-pool": ("buffers",),
    "advance-buffer-config": ("buffers",),
    "remark": ("dscp_map",),
    "headroom": ("buffers",),
    "shared-headroom-pool": ("buffers",),
}
"""``qos <object>`` -> the facts it feeds."""
_ALL_QOS: tuple[Feature, ...] = ALL_QOS_FEATURES
_LINK_FEATURES: dict[str, tuple[Feature, ...]] = {
    "mtu": ("mtu",),
    "speed": ("speed",),
    "state": ("ports",),
    "breakout": ("ports",),
    "lanes": ("speed",),
    "fec": ("speed",),
}
_SWP = re.compile(r"swp\d+(?:s\d+)?")
_WORDS = re.compile(r"\bnv\s+(?:set|unset)\s+(?P<rest>.*)")


def path_of(item: str) -> tuple[str, ...]:
    """The key path an item text stands for (a dotted path or an ``nv set`` line)."""
    m = _WORDS.search(item)
    if m is not None:
        return tuple(m.group("rest").split())
    if " " in item.strip():
        return ()
    return tuple(item.split("."))


def qos_features(path: tuple[str, ...]) -> tuple[Feature, ...]:
    """Features of a path below ``qos`` (the path without the ``qos`` word)."""
    if not path:
        return _ALL_QOS
    return QOS_FEATURES.get(path[0], _ALL_QOS)


def scope(path: tuple[str, ...]) -> tuple[tuple[str, ...] | None, tuple[Feature, ...]]:
    """(ports, features) of an NVUE key path."""
    if not path:
        return None, ()
    head = path[0]
    if head == "qos":
        return None, qos_features(path[1:])
    if head == "nve":
        return None, ("dscp_map",)
    if head != "interface" or len(path) < 2:
        return None, ()
    names = values.expand_names(path[1]) or []
    ports = tuple(n for n in names if _SWP.fullmatch(n)) or None
    rest = path[2:]
    if not rest:
        return ports, ("ports",)
    if rest[0] == "qos":
        return ports, qos_features(rest[1:])
    if rest[0] == "link":
        return ports, _LINK_FEATURES.get(rest[1] if len(rest) > 1 else "", ())
    return ports, ()


_KEYWORDS: tuple[tuple[str, tuple[Feature, ...]], ...] = (
    ("watchdog", ("watchdog",)),
    ("pfc", ("pfc",)),
    ("pause", ("pfc",)),
    ("flow_control", ("pfc", "buffers")),
    ("ecn", ("ecn",)),
    ("red", ("ecn",)),
    ("sched", ("scheduler",)),
    ("shap", ("scheduler",)),
    ("dscp", ("trust", "dscp_map")),
    ("cos", ("dscp_map",)),
    ("priority", ("dscp_map",)),
    ("trust", ("trust",)),
    ("buffer", ("buffers",)),
    ("pool", ("buffers",)),
    ("alpha", ("buffers",)),
    ("mtu", ("mtu",)),
    ("speed", ("speed",)),
    ("breakout", ("ports",)),
    ("roce", _ALL_QOS),
    ("lossless", ("pfc", "buffers")),
    ("storage-optimized", ("pfc", "ecn", "trust", "dscp_map")),
)


def keyword_features(line: str) -> tuple[Feature, ...]:
    """Features a non-NVUE line (a datapath .conf line, an NCLU command) mentions."""
    lowered = line.lower()
    out: list[Feature] = []
    for word, feats in _KEYWORDS:
        if word in lowered:
            out.extend(f for f in feats if f not in out)
    return tuple(out)


def line_ports(line: str) -> tuple[str, ...] | None:
    """The swp ports a text line names (``net add interface swp1-4 mtu 9216``), or None."""
    found: list[str] = []
    for token in re.findall(r"swp[\w,\-]*\d", line):
        names = values.expand_names(token)
        if names:
            found.extend(n for n in names if _SWP.fullmatch(n))
    return tuple(dict.fromkeys(found)) or None
