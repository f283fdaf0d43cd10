"""Which ports and features a SONiC unparsed item may change (the RT000 contract).

Every :class:`~rocetune.model.Unparsed` item names the CONFIG_DB table it comes from (item
texts are ``TABLE``, ``TABLE|key`` or ``TABLE|key field[=value]``). From that:

* ``features``: the table (and for PORT, PORT_QOS_MAP, QUEUE and DEVICE_METADATA the field)
  says which facts the entry feeds: a DSCP_TO_TC_MAP entry the DSCP map and trust, a
  WRED_PROFILE entry ECN, a BUFFER_* or CABLE_LENGTH entry the buffers, and so on. A table
  rocetune does not know is classified by the QoS words in its name (PFC, WRED, BUFFER...).
* ``ports``: entries keyed by port (PORT, PORT_QOS_MAP, QUEUE, BUFFER_PG, BUFFER_QUEUE,
  PFC_WD, port lists, chassis keys) apply to the ports in the key; entries of an object that
  ports reference by name (maps, WRED and buffer profiles, schedulers) apply to the ports
  that bind that name (:mod:`.bindings`); a CABLE_LENGTH field to the port it names;
  anything else is global (None: it may affect every port).
"""

from __future__ import annotations

import re

from rocetune.model.device import Feature
from rocetune.platforms.common.unparsed import Scope

_MAPS: tuple[Feature, ...] = ("trust", "dscp_map")
TABLE_FEATURES: dict[str, tuple[Feature, ...]] = {
    "PORT": ("ports", "speed", "mtu"),
    "PORT_QOS_MAP": ("trust", "dscp_map", "pfc"),
    "DSCP_TO_TC_MAP": _MAPS,
    "DOT1P_TO_TC_MAP": _MAPS,
    "TC_TO_PRIORITY_GROUP_MAP": ("dscp_map", "pfc", "buffers"),
    "TC_TO_QUEUE_MAP": ("dscp_map", "scheduler", "ecn"),
    "MAP_PFC_PRIORITY_TO_QUEUE": ("pfc",),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": ("pfc", "buffers"),
    "TC_TO_DSCP_MAP": ("dscp_map",),
    "TC_TO_DOT1P_MAP": ("dscp_map",),
    "DSCP_TO_FC_MAP": ("dscp_map",),
    "EXP_TO_FC_MAP": ("dscp_map",),
    "MPLS_TC_TO_TC_MAP": ("dscp_map",),
    "TUNNEL": ("dscp_map",),
    "QUEUE": ("scheduler", "ecn"),
    "SCHEDULER": ("scheduler",),
    "WRED_PROFILE": ("ecn",),
    "BUFFER_POOL": ("buffers",),
    "BUFFER_PROFILE": ("buffers",),
    "BUFFER_PG": ("buffers",),
    "BUFFER_QUEUE": ("buffers",),
    "BUFFER_PORT_INGRESS_PROFILE_LIST": ("buffers",),
    "BUFFER_PORT_EGRESS_PROFILE_LIST": ("buffers",),
    "CABLE_LENGTH": ("buffers",),
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": ("buffers",),
    "LOSSLESS_TRAFFIC_PATTERN": ("buffers",),
    "PFC_WD": ("watchdog",),
    "BREAKOUT_CFG": ("ports",),
    "LLDP": ("lldp",),
}
"""Table -> the facts its entries feed."""

_FIELD_FEATURES: dict[str, dict[str, tuple[Feature, ...]]] = {
    "PORT": {
        "speed": ("speed",),
        "mtu": ("mtu",),
        "admin_status": ("ports",),
        "pfc_asym": ("pfc",),
        "fec": ("speed",),
        "alias": ("lldp",),
    },
    "PORT_QOS_MAP": {
        "dscp_to_tc_map": _MAPS,
        "dot1p_to_tc_map": _MAPS,
        "tc_to_queue_map": ("dscp_map", "scheduler", "ecn"),
        "tc_to_pg_map": ("dscp_map", "pfc", "buffers"),
        "pfc_to_pg_map": ("pfc", "buffers"),
        "pfc_to_queue_map": ("pfc",),
        "pfc_enable": ("pfc",),
        "pfcwd_sw_enable": ("watchdog",),
        "tc_to_dscp_map": ("dscp_map",),
        "scheduler": ("scheduler",),
    },
    "QUEUE": {"scheduler": ("scheduler",), "wred_profile": ("ecn",)},
    "DEVICE_METADATA": {
        "default_pfcwd_status": ("watchdog",),
        "buffer_model": ("buffers",),
        "hostname": ("ports",),
        "asic_name": ("ports",),
    },
}

_WORD_FEATURES: tuple[tuple[str, tuple[Feature, ...]], ...] = (
    ("PFC_WD", ("watchdog",)),
    ("WATCHDOG", ("watchdog",)),
    ("PFC", ("pfc",)),
    ("PAUSE", ("pfc",)),
    ("BUFFER", ("buffers",)),
    ("HEADROOM", ("buffers",)),
    ("LOSSLESS", ("buffers", "pfc")),
    ("CABLE", ("buffers",)),
    ("WRED", ("ecn",)),
    ("ECN", ("ecn",)),
    ("SCHEDULER", ("scheduler",)),
    ("SHAPER", ("scheduler",)),
    ("QUEUE", ("scheduler", "ecn")),
    ("DSCP", ("dscp_map",)),
    ("DOT1P", ("dscp_map",)),
    ("TC_TO", ("dscp_map",)),
    ("QOS", ("trust", "dscp_map")),
    ("MAP", ("dscp_map",)),
    ("POLICER", ("dscp_map",)),
)

PORT_KEYED = frozenset(
    {
        "PORT",
        "PORT_QOS_MAP",
        "QUEUE",
        "BUFFER_PG",
        "BUFFER_QUEUE",
        "BUFFER_PORT_INGRESS_PROFILE_LIST",
        "BUFFER_PORT_EGRESS_PROFILE_LIST",
        "PFC_WD",
        "BREAKOUT_CFG",
    }
)
"""Tables whose keys are ``<ports>`` or ``<ports>|<index>`` (or chassis keys)."""

REFERENCED: dict[str, tuple[str, ...]] = {
    "DSCP_TO_TC_MAP": ("dscp_to_tc_map",),
    "DOT1P_TO_TC_MAP": ("dot1p_to_tc_map",),
    "TC_TO_PRIORITY_GROUP_MAP": ("tc_to_pg_map",),
    "TC_TO_QUEUE_MAP": ("tc_to_queue_map",),
    "MAP_PFC_PRIORITY_TO_QUEUE": ("pfc_to_queue_map",),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": ("pfc_to_pg_map",),
    "TC_TO_DSCP_MAP": ("tc_to_dscp_map",),
}
"""Map tables -> the PORT_QOS_MAP field that binds one of their entries to a port."""

BINDING_TABLE: dict[str, str] = {
    **dict.fromkeys(REFERENCED, "PORT_QOS_MAP"),
    "SCHEDULER": "QUEUE",
    "WRED_PROFILE": "QUEUE",
    "BUFFER_PROFILE": "BUFFER_PG",
}
"""Referenced table -> the table whose entries bind its objects to ports."""

_PORTISH = re.compile(r"(?:Ethernet|Eth|PortChannel|swp)[\w/.:-]*\d[\w/.:-]*", re.IGNORECASE)
_ITEM = re.compile(r"(?P<table>[^|\s]+)(?:\|(?P<key>\S*))?(?:\s+(?P<field>[^=\s]+))?")


def parse_item(item: str) -> tuple[str, str | None, str | None]:
    """``TABLE|key field=value`` -> (table, key, field)."""
    m = _ITEM.match(item)
    if m is None:
        return item, None, None
    return m.group("table"), m.group("key"), m.group("field")


def features_of(table: str, field: str | None) -> tuple[Feature, ...]:
    """The facts an entry (or one field of it) of ``table`` feeds."""
    by_field = _FIELD_FEATURES.get(table, {})
    if field is not None and field in by_field:
        return by_field[field]
    if table == "DEVICE_METADATA":
        return ()
    if table == "PORT" and field is not None:
        return _word_features(field.upper()) or TABLE_FEATURES["PORT"]
    found = TABLE_FEATURES.get(table)
    if found is not None:
        return found
    return _word_features(table.upper())


def _word_features(text: str) -> tuple[Feature, ...]:
    out: list[Feature] = []
    for word, feats in _WORD_FEATURES:
        if word in text:
            out.extend(f for f in feats if f not in out)
    return tuple(out)


def ports_of_key(table: str, key: str | None) -> tuple[str, ...] | None:
    """The ports a key of a port-keyed table names; None for other tables."""
    if key is None or not (table in PORT_KEYED or _PORTISH.match(key)):
        return None
    if table == "PFC_WD" and key == "GLOBAL":
        return None
    found: list[str] = []
    for part in key.split("|"):
        names = [n.strip() for n in part.split(",") if n.strip()]
        if names and all(_PORTISH.fullmatch(n) for n in names):
            found.extend(names)
    return tuple(dict.fromkeys(found)) or None


def scope_of(item: str) -> Scope:
    """(ports, features) an item's table, key and field say."""
    table, key, field = parse_item(item)
    ports = ports_of_key(table, key)
    if table == "CABLE_LENGTH" and field is not None and _PORTISH.fullmatch(field):
        ports = (field,)
    return ports, features_of(table, field)
