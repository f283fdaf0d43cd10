"""Step 2 (classification and egress): QoS maps, PORT_QOS_MAP, QUEUE, SCHEDULER, WRED_PROFILE.

Decisions:

* Map tables hold ``"<key>": "<value>"`` pairs of small integers; a pair that is not
  (DSCP 0..63, dot1p/PFC priority 0..7, TC 0..15) is reported and left out of the map.
* ``PORT_QOS_MAP`` keys are a port or a comma-separated port list (orchagent splits them
  the same way). ``global`` only takes ``dscp_to_tc_map`` (the switch-level map); orchagent
  ignores other fields there, so they are reported. When several entries name the same
  port, their fields are merged in file order and the overlap is reported, because which
  one orchagent applies last depends on redis order.
* PORT_QOS_MAP fields that bind things rocetune does not model (``tc_to_dot1p_map``,
  ``mpls_tc_to_tc_map``, ``dscp_to_fc_map``, ``exp_to_fc_map``, the port ``scheduler``) are
  reported, grouped per field. ``tc_to_dscp_map`` (egress DSCP remarking by TC, SAI
  ``SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DSCP_MAP``) is modelled.
* ``TUNNEL|<name>``: ``dscp_mode`` (pipe/uniform) and ``encap_tc_to_dscp_map`` decide the
  outer DSCP of encapsulated packets and are modelled; ``encap_tc_to_queue_map`` and
  ``decap_tc_to_pg_map`` (the dual-ToR tunnel QoS remap, sonic-net/SONiC
  ``doc/qos/tunnel_dscp_remapping.md``) give the tunnel's extra lossless priorities
  (:func:`~rocetune.platforms.sonic.build.build_tunnel_priorities`); ``tunnel_type``,
  ``src_ip``, ``dst_ip`` and ``ttl_mode`` are not QoS and are accepted; every other field
  (``decap_dscp_to_tc_map``, the ECN modes) is reported, grouped per field.
* ``QUEUE`` keys are ``<ports>|<index or range>``; overlapping keys are reported.
* ``WRED_PROFILE`` keeps the green colour (RoCE traffic is not coloured by a policer);
  the yellow/red fields are known and accepted without being modelled.
"""

from __future__ import annotations

from rocetune.platforms.sonic.shape import (
    PortQosCfg,
    QosMapDef,
    QueueCfg,
    SchedulerCfg,
    SonicConfig,
    TunnelCfg,
    WredCfg,
)
from rocetune.platforms.sonic.tables import Entry, RawDb
from rocetune.platforms.sonic.values import (
    Problems,
    as_text,
    port_index_key,
    read_choice,
    read_float,
    read_index_list,
    read_int,
    read_ref,
    split_names,
)

MAP_TABLES: dict[str, str] = {
    "dscp_to_tc_map": "DSCP_TO_TC_MAP",
    "dot1p_to_tc_map": "DOT1P_TO_TC_MAP",
    "tc_to_queue_map": "TC_TO_QUEUE_MAP",
    "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
    "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
    "tc_to_dscp_map": "TC_TO_DSCP_MAP",
}
"""PORT_QOS_MAP field -> the table its value names."""

_KEY_MAX: dict[str, int] = {
    "DSCP_TO_TC_MAP": 63,
    "DOT1P_TO_TC_MAP": 7,
    "TC_TO_PRIORITY_GROUP_MAP": 15,
    "TC_TO_QUEUE_MAP": 15,
    "MAP_PFC_PRIORITY_TO_QUEUE": 7,
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": 7,
    "TC_TO_DSCP_MAP": 15,
}
_VALUE_MAX = 63
_SCHED_KINDS = {"strict": "strict", "dwrr": "dwrr", "wrr": "wrr"}
_ECN_MODES = {
    m: m
    for m in (
        "ecn_none",
        "ecn_green",
        "ecn_yellow",
        "ecn_red",
        "ecn_green_yellow",
        "ecn_green_red",
        "ecn_yellow_red",
        "ecn_all",
    )
}
_TRUE_FALSE = {"true": True, "false": False}
_WRED_OTHER = frozenset(
    f"{c}_{f}"
    for c in ("yellow", "red")
    for f in ("min_threshold", "max_threshold", "drop_probability")
) | {"wred_yellow_enable", "wred_red_enable"}
_PFC_FIELDS = ("pfc_enable", "pfcwd_sw_enable")
_QUEUE_FIELDS = frozenset({"scheduler", "wred_profile"})
_DSCP_MODES = {"pipe": "pipe", "uniform": "uniform"}
_TUNNEL_NOT_QOS = frozenset({"tunnel_type", "src_ip", "dst_ip", "ttl_mode"})
_TUNNEL_READ = frozenset(
    {"dscp_mode", "encap_tc_to_dscp_map", "encap_tc_to_queue_map", "decap_tc_to_pg_map"}
)


def normalise_qos(db: RawDb, cfg: SonicConfig, pr: Problems) -> None:
    """Fill maps, port bindings, queues, schedulers and WRED profiles of ``cfg``."""
    for table in _KEY_MAX:
        cfg.maps[table] = {k: _qos_map(e, pr) for k, e in db.table(table).items()}
    for key, entry in db.table("PORT_QOS_MAP").items():
        if key == "global":
            _global(entry, cfg, pr)
        else:
            _port_qos(entry, cfg, pr)
    for entry in db.table("QUEUE").values():
        _queue(entry, cfg, pr)
    for key, entry in db.table("SCHEDULER").items():
        cfg.schedulers[key] = _scheduler(entry, pr)
    for key, entry in db.table("WRED_PROFILE").items():
        cfg.wred[key] = _wred(entry, pr)
    for key, entry in db.table("TUNNEL").items():
        cfg.tunnels[key] = _tunnel(entry, pr)


def _qos_map(entry: Entry, pr: Problems) -> QosMapDef:
    out = QosMapDef(name=entry.key, line=entry.line)
    key_max = _KEY_MAX[entry.table]
    for raw_key, raw_value in entry.fields.items():
        value = as_text(raw_value)
        line = entry.line_of(raw_key)
        k, v = _small_int(raw_key), _small_int(value)
        if k is None or v is None or k > key_max or v > _VALUE_MAX:
            pr.add(
                f"{entry.item} {raw_key}={value if value is not None else raw_value!r}",
                f"expected <0..{key_max}>: <0..{_VALUE_MAX}>",
                line,
            )
            continue
        out.values[k] = v
        out.lines[k] = line
    return out


def _small_int(text: str | None) -> int | None:
    if text is None or not text.strip().isdigit():
        return None
    return int(text)


def _global(entry: Entry, cfg: SonicConfig, pr: Problems) -> None:
    cfg.global_dscp = read_ref(entry, "dscp_to_tc_map", "DSCP_TO_TC_MAP", pr)
    for name in entry.fields:
        if name != "dscp_to_tc_map":
            pr.add(
                f"{entry.item} {name}",
                "only dscp_to_tc_map is applied from PORT_QOS_MAP|global",
                entry.line_of(name),
            )


def _port_qos(entry: Entry, cfg: SonicConfig, pr: Problems) -> None:
    parsed = PortQosCfg(line=entry.line)
    for name in entry.fields:
        table = MAP_TABLES.get(name)
        if table is not None:
            ref = read_ref(entry, name, table, pr)
            if ref is not None:
                parsed.maps[name] = ref
        elif name not in _PFC_FIELDS:
            pr.unknown_field(entry, name)
    parsed.pfc_enable = read_index_list(entry, "pfc_enable", pr)
    parsed.pfcwd_sw_enable = read_index_list(entry, "pfcwd_sw_enable", pr)
    ports = split_names(entry.key)
    for port in ports:
        cfg.note_port(port, "PORT_QOS_MAP", entry.line)
        old = cfg.port_qos.get(port)
        if old is None:
            cfg.port_qos[port] = (
                parsed  # one port (nearly every key): its own, no copy
                if len(ports) == 1
                else PortQosCfg(
                    parsed.line, dict(parsed.maps), parsed.pfc_enable, parsed.pfcwd_sw_enable
                )
            )
            continue
        pr.add(f"{entry.item}", f"{port} is also configured by another entry", entry.line)
        old.maps.update(parsed.maps)
        old.pfc_enable = parsed.pfc_enable or old.pfc_enable
        old.pfcwd_sw_enable = parsed.pfcwd_sw_enable or old.pfcwd_sw_enable


def _queue(entry: Entry, cfg: SonicConfig, pr: Problems) -> None:
    where = port_index_key(entry.key)
    if where is None:
        pr.add(entry.item, "expected a key <ports>|<queue or range>", entry.line)
        return
    scheduler = read_ref(entry, "scheduler", "SCHEDULER", pr)
    wred = read_ref(entry, "wred_profile", "WRED_PROFILE", pr)
    if len(entry.fields) > (scheduler is not None) + (wred is not None):  # another field
        for name in entry.fields:
            if name not in _QUEUE_FIELDS:
                pr.unknown_field(entry, name)
    ports, indexes = where
    line = entry.line
    for port in ports:
        cfg.note_port(port, "QUEUE", line)
        per_port = cfg.queues.setdefault(port, {})
        for q in indexes:
            if q in per_port:
                pr.add(entry.item, f"queue {q} of {port} is also set by another key", line)
            per_port[q] = QueueCfg(line, scheduler, wred)


def _scheduler(entry: Entry, pr: Problems) -> SchedulerCfg:
    out = SchedulerCfg(name=entry.key, line=entry.line)
    out.kind = read_choice(entry, "type", pr, _SCHED_KINDS)
    out.weight = read_float(entry, "weight", pr)
    for name in entry.fields:
        if name not in {"type", "weight"}:
            pr.unknown_field(entry, name)
    return out


def _wred(entry: Entry, pr: Problems) -> WredCfg:
    out = WredCfg(name=entry.key, line=entry.line)
    out.ecn = read_choice(entry, "ecn", pr, _ECN_MODES)
    out.green_enable = read_choice(entry, "wred_green_enable", pr, _TRUE_FALSE)
    out.green_min = read_int(entry, "green_min_threshold", pr, lo=0)
    out.green_max = read_int(entry, "green_max_threshold", pr, lo=0)
    out.green_probability = read_float(entry, "green_drop_probability", pr)
    known = {
        "ecn",
        "wred_green_enable",
        "green_min_threshold",
        "green_max_threshold",
        "green_drop_probability",
    }
    for name in entry.fields:
        if name not in known and name not in _WRED_OTHER:
            pr.unknown_field(entry, name)
    return out


def _tunnel(entry: Entry, pr: Problems) -> TunnelCfg:
    out = TunnelCfg(name=entry.key, line=entry.line)
    out.dscp_mode = read_choice(entry, "dscp_mode", pr, _DSCP_MODES)
    out.encap_tc_to_dscp_map = read_ref(entry, "encap_tc_to_dscp_map", "TC_TO_DSCP_MAP", pr)
    out.encap_tc_to_queue_map = read_ref(entry, "encap_tc_to_queue_map", "TC_TO_QUEUE_MAP", pr)
    out.decap_tc_to_pg_map = read_ref(entry, "decap_tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP", pr)
    for name in entry.fields:
        if name not in _TUNNEL_READ | _TUNNEL_NOT_QOS:
            pr.unknown_field(entry, name)
    return out
