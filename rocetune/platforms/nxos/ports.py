"""The neutral model: one :class:`~rocetune.model.Port` per Ethernet port.

Per-port decisions (each documented with its basis):

- Classification: the interface's ``service-policy type qos input`` or the system one.
  Matching DSCPs (``match dscp``/``precedence``) -> trust ``dscp``; CoS only -> ``pcp``;
  both -> ``both``; no policy, a built-in ``default-*`` one, or one with neither ->
  ``port``: NX-OS then leaves every packet in qos-group 0 (class-default) (roce-knowledge
  W1: a Nexus classifies RoCE only through ``class-map type qos match dscp``).
  ``dscp_to_priority`` is what an IP packet's DSCP alone selects: the first class whose
  DSCP set contains it, else ``class-default``; classes that match only CoS do not take
  part (an untagged routed packet has no CoS).
- PFC: ``priority-flow-control mode on`` -> PFC rx/tx on every no-drop CoS of the system
  network-qos policy; ``off`` -> none; ``auto`` (the default when the line is absent) -> the
  same no-drop CoS with ``pfc_mode`` ``auto``: PFC then runs only while the DCBX
  negotiation with the peer succeeds (Cisco Nexus QoS guides: "By default, the switch
  negotiates to enable the PFC capability. If the negotiation succeeds, PFC is enabled"),
  which RT201 reports. With no no-drop class PFC is off whatever the mode. A port seen only
  in operational data has no mode (None).
- PFC watchdog: the interface's ``priority-flow-control watch-dog-interval on|off``, else the
  global one, else off (the running-config shows the line when it is on). S20: the watchdog
  polls every 100 ms and shuts a stuck no-drop queue (drops its packets) after the watchdog
  interval times the shutdown multiplier; detection = interval (default 100 ms) x
  shutdown-multiplier (default 1), restoration = interval x the fixed- (else auto-) restore
  multiplier when configured **[defaults from the NX-OS QoS guides, partly unverified]**;
  action ``drop``.
- MTU: the interface ``mtu`` (NX-OS default 1500); an explicit ``mtu`` wins over operational
  data, which wins over the default. ``class_mtu`` is the smallest MTU configured on a
  no-drop network-qos class (the lossless class cannot carry bigger frames; RT601 checks
  it); None when no no-drop class sets one. Both count like the interface MTU (IP MTU, the
  L2 header not included; docs/mtu.md).
- Link pause: ``flowcontrol receive|send on`` -> True; absent -> operational data, else
  False (802.3x pause is off by default on NX-OS).
- ECN and schedulers: the egress queuing policy (interface or system) by queue; without one
  the built-in default policy applies: no ECN (``{}``), scheduler weights unknown. Whether a
  marking (``ecn``) profile also drops non-ECT packets early is not documented in a source
  rocetune has (``red_drop=None``, RT303 says it could not verify) unless the system
  network-qos class of that queue, or the global config, has ``congestion-control
  random-detect forward-nonecn`` (then ``red_drop=False``: the command forwards them).
- Ingress buffers: ``pause buffer-size B pause-threshold P resume-threshold R`` in the bound
  input queuing policy, else in the no-drop class of the system network-qos policy (the
  Nexus 9000 form, with ``pfc-cos``) -> ``pg_buffers[qos-group]`` with size B,
  ``pause_threshold_bytes`` P, ``xon_bytes`` R and ``xoff_bytes`` B - P (the headroom
  above the pause point) **[semantics from the command's keywords and Cisco's no-drop
  buffer descriptions; the exact hardware accounting is not verified]**; otherwise None
  (the switch sizes it).
- Fields a port's defaults would decide (trust ``port``, MTU 1500, no ECN, no watchdog, no
  link pause) are left unknown (None) when a line of the port's interface body that may
  change them was not understood (:func:`unread_defaults`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.model import BufferProfile, EcnProfile, Port, Scheduler, Trust, Watchdog
from rocetune.model.share import built
from rocetune.platforms.common.unread import unread_defaults
from rocetune.platforms.nxos.config import GlobalWatchdog, NxosConfig
from rocetune.platforms.nxos.interfaces import IfaceConfig
from rocetune.platforms.nxos.lines import Issues
from rocetune.platforms.nxos.operational import OperPort
from rocetune.platforms.nxos.plan import Plan, known

DEFAULT_MTU = 1500
POLL_MS = 100.0
"""S20: the watchdog checks stuck queues every 100 ms."""


@dataclass(slots=True)
class Built:
    """A port plus the line of each field that a config line set."""

    port: Port
    lines: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PortInput:
    """Everything known about one port before it is built."""

    name: str
    iface: IfaceConfig | None
    oper: OperPort | None
    breakout_speed: tuple[int, int] | None
    """Speed (Mb/s) and line of the breakout that created the port."""


def build_port(
    src: PortInput,
    cfg: NxosConfig,
    plan: Plan,
    issues: Issues,
    blocked: frozenset[str] = frozenset(),
) -> Built:
    """Build one port from its interface block, the system policies and operational data.

    ``blocked``: features of this port's interface lines that were not understood.
    """
    lines: dict[str, int] = {}
    iface = src.iface
    values: dict[str, object] = {
        "speed_mbps": _speed(src, lines),
        "mtu": _mtu(src, plan, lines),
        "class_mtu": _class_mtu(plan, lines),
        "admin_up": _admin(src, lines),
        "link_pause": _link_pause(src, lines),
    }
    values.update(_classification(iface, cfg, plan, issues, lines))
    values.update(_pfc(iface, plan, lines))
    values.update(_egress(iface, cfg, plan, issues, lines))
    values.update(_ingress(iface, cfg, plan, lines))
    identity = {n: n for n in range(plan.queues)}
    values.update(
        name=src.name,
        priority_to_tc=identity,
        tc_to_queue=dict(identity),
        tc_to_pg=dict(identity),
        watchdog=_watchdog(iface, cfg.watchdog, lines),
    )
    unread_defaults(values, lines, blocked)
    return Built(port=built(Port.model_validate(values)), lines=lines)


def _speed(src: PortInput, lines: dict[str, int]) -> int | None:
    if src.iface is not None and src.iface.speed is not None and src.iface.speed[0]:
        lines["speed_mbps"] = src.iface.speed[1]
        return src.iface.speed[0]
    if src.breakout_speed is not None:
        lines["speed_mbps"] = src.breakout_speed[1]
        return src.breakout_speed[0]
    return src.oper.speed_mbps if src.oper is not None else None


def _mtu(src: PortInput, plan: Plan, lines: dict[str, int]) -> int | None:
    if src.iface is not None and src.iface.mtu is not None:
        mtu: int | None = src.iface.mtu[0]
        lines["mtu"] = src.iface.mtu[1]
    elif src.oper is not None and src.oper.mtu is not None:
        mtu = src.oper.mtu
    else:
        mtu = DEFAULT_MTU if src.iface is not None else None
    return mtu


def _class_mtu(plan: Plan, lines: dict[str, int]) -> int | None:
    cap = plan.no_drop.mtu if plan.no_drop is not None else None
    if cap is None:
        return None
    lines["class_mtu"] = cap[1]
    return cap[0]


def _admin(src: PortInput, lines: dict[str, int]) -> bool | None:
    if src.iface is not None and src.iface.admin_up is not None:
        lines["admin_up"] = src.iface.admin_up[1]
        return src.iface.admin_up[0]
    return src.oper.admin_up if src.oper is not None else None


def _link_pause(src: PortInput, lines: dict[str, int]) -> bool | None:
    config = src.iface.flowcontrol if src.iface is not None else {}
    if config:
        on = [line for value, line in config.values() if value]
        lines["link_pause"] = min(on) if on else min(line for _, line in config.values())
        return bool(on)
    if src.oper is not None and src.oper.link_pause is not None:
        return src.oper.link_pause
    return False if src.iface is not None else None


def _binding(iface: IfaceConfig | None, cfg: NxosConfig, key: str) -> tuple[str, int] | None:
    if iface is not None and key in iface.policies:
        return iface.policies[key]
    return cfg.system.get(key)


def _classification(
    iface: IfaceConfig | None, cfg: NxosConfig, plan: Plan, issues: Issues, lines: dict[str, int]
) -> dict[str, object]:
    bound = _binding(iface, cfg, "qos")
    if bound is None or (bound[0].startswith("default-") and bound[0] not in plan.qos):
        return {"trust": "port", "dscp_to_priority": dict.fromkeys(range(64), 0)}
    if not known(plan, "qos", bound[0], bound[1], issues):
        return {}
    policy = plan.qos[bound[0]]
    lines["trust"] = bound[1]
    lines["dscp_to_priority"] = policy.line
    dscp_map: dict[int, int] = {}
    has_dscp = has_cos = False
    for qclass in policy.classes:
        has_cos = has_cos or qclass.cos is not None
        if qclass.dscp is None:
            continue
        has_dscp = has_dscp or qclass.name != "class-default"
        for dscp in qclass.dscp:
            dscp_map.setdefault(dscp, qclass.qos_group or 0)
    trust: Trust = "both" if has_dscp and has_cos else "dscp" if has_dscp else "pcp"
    return {
        "trust": trust if has_dscp or has_cos else "port",
        "dscp_to_priority": {d: dscp_map.get(d, 0) for d in range(64)},
    }


def _pfc(iface: IfaceConfig | None, plan: Plan, lines: dict[str, int]) -> dict[str, object]:
    no_drop = plan.no_drop
    if no_drop is None:
        return {}
    out: dict[str, object] = {
        "pfc_priority_to_queue": dict(no_drop.cos_to_group),
        "pfc_priority_to_pg": dict(no_drop.cos_to_group),
    }
    if no_drop.line is not None:
        lines["pfc_priority_to_queue"] = lines["pfc_priority_to_pg"] = no_drop.line
    mode = iface.pfc_mode if iface is not None else None
    cos = tuple(sorted(no_drop.cos_to_group))
    if mode is not None:
        lines["pfc_rx"] = lines["pfc_tx"] = lines["pfc_mode"] = mode[1]
    elif no_drop.line is not None:
        lines["pfc_rx"] = lines["pfc_tx"] = no_drop.line
    if iface is None:
        return out
    if iface is not None and mode is None:
        lines["pfc_mode"] = iface.line
    out["pfc_mode"] = mode[0] if mode is not None else "auto"
    if not cos or out["pfc_mode"] == "off":
        out["pfc_rx"] = out["pfc_tx"] = ()
    else:
        out["pfc_rx"] = out["pfc_tx"] = cos
    return out


def _watchdog(iface: IfaceConfig | None, wd: GlobalWatchdog, lines: dict[str, int]) -> Watchdog:
    setting = iface.watchdog if iface is not None and iface.watchdog is not None else wd.enabled
    if setting is not None:
        lines["watchdog"] = setting[1]
    if setting is None or not setting[0]:
        return Watchdog(enabled=False)
    numbers = wd.numbers
    interval = numbers["interval_ms"][0] if "interval_ms" in numbers else 100
    multiplier = numbers["shutdown_multiplier"][0] if "shutdown_multiplier" in numbers else 1
    for key in ("interval_ms", "shutdown_multiplier"):
        if key in numbers:
            lines["watchdog.detection_ms"] = numbers[key][1]
    fixed = numbers.get("fixed_restore")
    restore = fixed if fixed is not None and fixed[0] > 0 else numbers.get("auto_restore")
    restoration = None
    if restore is not None and restore[0] > 0:
        restoration = float(interval * restore[0])
        lines["watchdog.restoration_ms"] = restore[1]
    return Watchdog(
        enabled=True,
        detection_ms=float(interval * multiplier),
        restoration_ms=restoration,
        action="drop",
    )


def _egress(
    iface: IfaceConfig | None, cfg: NxosConfig, plan: Plan, issues: Issues, lines: dict[str, int]
) -> dict[str, object]:
    bound = _binding(iface, cfg, "queuing-out")
    if bound is None or (bound[0].startswith("default-") and bound[0] not in plan.queuing):
        return {"ecn": {}}
    if not known(plan, "queuing-out", bound[0], bound[1], issues):
        return {}
    policy = plan.queuing[bound[0]]
    ecn: dict[int, EcnProfile] = {}
    schedulers: dict[int, Scheduler] = {}
    lines["ecn"] = lines["schedulers"] = policy.line
    fwd_all = plan.forward_nonecn.get(-1)
    for queue, entry in sorted(policy.queues.items()):
        if entry.ecn is not None and entry.ecn_line is not None:
            ecn[queue] = _nonecn(entry.ecn, plan.forward_nonecn.get(queue, fwd_all))
            lines[f"ecn.{queue}"] = entry.ecn_line
        if entry.scheduler is not None and entry.scheduler_line is not None:
            schedulers[queue] = entry.scheduler
            lines[f"schedulers.{queue}"] = entry.scheduler_line
    return {"ecn": ecn, "schedulers": schedulers}


def _ingress(
    iface: IfaceConfig | None, cfg: NxosConfig, plan: Plan, lines: dict[str, int]
) -> dict[str, object]:
    """Explicit no-drop ingress buffers per qos-group (= PG, see :mod:`.plan`): the ``pause
    buffer-size`` lines of the system network-qos policy's no-drop classes (every port), then
    those of the bound input queuing policy, which win for their class. Without either, the
    switch sizes the buffer itself: unknown (None)."""
    pgs: dict[int, BufferProfile] = {}
    network = cfg.system.get("network-qos")
    nq_policy = plan.network.get(network[0]) if network is not None else None
    if nq_policy is not None:
        for group, nq in sorted(nq_policy.classes.items()):
            if nq.pause_buffer is not None and nq.pause_line is not None:
                name = f"{nq_policy.name} qos-group {group}"
                pgs[group] = _pause_profile(name, nq.pause_buffer)
                lines[f"pg_buffers.{group}"] = nq.pause_line
    bound = _binding(iface, cfg, "queuing-in")
    policy = plan.queuing.get(bound[0]) if bound is not None else None
    if policy is not None:
        for group, entry in sorted(policy.queues.items()):
            if entry.pause is not None and entry.pause_line is not None:
                pgs[group] = _pause_profile(f"{policy.name} qos-group {group}", entry.pause)
                lines[f"pg_buffers.{group}"] = entry.pause_line
    return {"pg_buffers": pgs} if pgs else {}


def _pause_profile(name: str, values: tuple[int, int, int]) -> BufferProfile:
    size, pause, resume = values
    return BufferProfile(
        name=name,
        size_bytes=size,
        xoff_bytes=max(size - pause, 0),
        xon_bytes=resume,
        pause_threshold_bytes=pause,
    )


def _nonecn(profile: EcnProfile, forward_line: int | None) -> EcnProfile:
    """``forward-nonecn``: a marking queue forwards non-ECT packets (no early drop)."""
    if forward_line is None or not profile.ecn_mark:
        return profile
    return profile.model_copy(update={"red_drop": False})
