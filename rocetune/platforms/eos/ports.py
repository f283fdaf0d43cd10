"""Build vendor-neutral :class:`~rocetune.model.Port` objects (step 2 of 2: the model).

Precedence of the contexts that configure one Ethernet port, highest first: the interface's
own lines, its ``service-profile`` (qos profile), then for a Port-Channel member
(``channel-group N``) the Port-Channel's lines and its profile, then the global level. A
profile's settings apply to the interface and the interface's own lines override them (S18,
AVD ``qos profile`` / ``service-profile``). That members inherit the Port-Channel's QoS
(trust, service-profile, PFC, tx-queues) follows EOS, where QoS on a Port-Channel applies to
its members **[precedence against member lines unverified]**. Port-Channels themselves are not
ports of the model (PFC, queues and LLDP are per physical port).

Mapping onto the model (DSCP -> traffic class -> tx-queue):

- ``trust``: ``qos trust dscp`` -> dscp, ``cos`` -> pcp, ``no qos trust`` -> port (untrusted).
  Unset: routed ports (``no switchport``) trust DSCP and switched ports trust CoS
  **[unverified EOS default]**.
- ``dscp_to_priority``: EOS maps DSCP straight to a traffic class, so the traffic class is the
  switch priority (as for SONiC) and ``priority_to_tc`` is the identity. Values come from
  ``qos map dscp ... to traffic-class``; DSCPs not mapped there use the default DSCP >> 3
  (DSCP 26 -> TC 3, 48 -> TC 6) **[unverified: some EOS releases map DSCP 0-7 to TC 1 and 8-15
  to TC 0; the RoCE and CNP code points are the same in both]**.
- ``tc_to_queue``: ``qos map traffic-class ... to tx-queue ...`` over the identity.
- DSCP remarking: EOS rewrites no DSCP unless ``qos rewrite dscp`` is configured
  **[unverified default]**, so ``dscp_rewrite`` is ``{}`` and no ingress port is eligible;
  with ``qos rewrite dscp`` both are unknown (the default traffic-class to DSCP map is not
  modelled, and the line is Unparsed).
- PFC: ``priority-flow-control on`` (or ``mode on``) plus ``priority-flow-control priority N
  no-drop`` -> ``pfc_rx`` = ``pfc_tx`` = the no-drop priorities; PFC off, no no-drop
  priority, or the global ``priority-flow-control all off`` -> ``()`` (PFC is off by default,
  S19). ``pfc_mode``: ``on``/``off`` where a line says so (``priority-flow-control on``,
  ``no priority-flow-control``, the global all-off), None where PFC is off only by default;
  an explicit off takes the port out of the config-inferred lossless domain.
  ``pfc_priority_to_queue`` maps each PFC priority to its tx-queue. EOS has no
  configurable priority groups or per-port buffer profiles in the running-config, so
  ``tc_to_pg``, ``pfc_priority_to_pg``, ``pg_buffers``, ``queue_buffers`` and the cable length
  stay unknown (None).
- ``link_pause``: ``flowcontrol send|receive on|desired`` -> True, also on a port with PFC
  on: EOS then disables 802.3x flow control (S19: "An interface that is configured for PFC
  will be disabled for FC"), but the configuration asks for both, which RT204 reports;
  with PFC on and no flowcontrol line it reads False.
- Watchdog (S18, S19): asserted only from configured lines, because the EOS defaults are
  not documented in a source rocetune has: ``priority-flow-control pause watchdog`` (port,
  profile or Port-Channel) -> on; ``no priority-flow-control pause watchdog`` -> off; no
  line -> unknown (None, RT000); off on a port without PFC (nothing to watch). Timers: the
  port's ``port timer`` (timeout -> detection_ms, recovery-time -> restoration_ms), else the
  global ``default timeout|recovery-time``, else unknown. Action: global ``override action
  drop``, else the port ``port action``, else the global ``action`` (no-drop -> forward),
  else unknown. A port timer's own polling interval is not modelled;
  ``Device.watchdog_poll_ms`` is the global ``default polling-interval``.
- ``cos_to_tc``: the global ``qos map cos <list> to traffic-class <tc>`` entries ({} when
  none; CoS values not listed keep the EOS default, which is not modelled).
- ``schedulers`` (by tx-queue, 0-7 plus any configured): ``priority strict`` -> strict (the
  EOS default: every queue of an unconfigured port is strict in ``show running-config all``),
  ``no priority`` -> dwrr; weight = ``bandwidth percent``, else for a dwrr queue ``bandwidth
  guaranteed percent``.
- ``ecn`` (by tx-queue): ``random-detect ecn`` -> ecn_mark; ``random-detect drop`` -> red_drop;
  thresholds in bytes (:mod:`.values`); a time threshold on a port of unknown speed is Unparsed
  and leaves the thresholds None.
- Link: ``mtu`` (else ``l2 mtu``; else for a routed port ``interface defaults`` ``mtu`` or
  1500, the EOS default IP MTU; a switched port's MTU stays unknown), ``speed`` (configured,
  else the operational speed), ``shutdown`` (EOS interfaces are enabled by default unless
  ``interface defaults`` / ``ethernet`` / ``shutdown``), FEC (``error-correction encoding
  reed-solomon|fire-code``; ``no ...`` -> none; unset -> auto).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rocetune.model import EcnProfile, Port, Scheduler, Trust, Watchdog
from rocetune.model.share import built
from rocetune.platforms.common.construct import construct
from rocetune.platforms.common.unread import unread_defaults
from rocetune.platforms.eos.blocks import Issues
from rocetune.platforms.eos.operational import OperLink
from rocetune.platforms.eos.shape import (
    At,
    EosConfig,
    GlobalConf,
    InterfaceConf,
    QosConf,
    QueueConf,
    Red,
)

DEFAULT_IP_MTU = 1500
QUEUES = range(8)
IDENTITY8 = {n: n for n in range(8)}


@dataclass(slots=True)
class Built:
    """One port plus the line of every field that a configuration line set."""

    port: Port
    lines: dict[str, int] = field(default_factory=dict)
    oper_lines: dict[str, int] = field(default_factory=dict)
    """Fields taken from ``show interfaces status`` -> the line in that output."""


@dataclass(slots=True)
class _Fields:
    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    oper_lines: dict[str, int] = field(default_factory=dict)

    def put(self, name: str, value: Any, line: int | None = None) -> None:
        self.values[name] = value
        if line:
            self.lines[name] = line


@dataclass(frozen=True, slots=True)
class _Ctx:
    config: EosConfig
    chain: tuple[QosConf, ...]
    iface: InterfaceConf
    member_of: InterfaceConf | None
    issues: Issues

    @property
    def g(self) -> GlobalConf:
        return self.config.globals

    def pick(self, attr: str) -> At[Any] | None:
        """The first context of the chain that sets ``attr``."""
        for conf in self.chain:
            found: At[Any] | None = getattr(conf, attr)
            if found is not None:
                return found
        return None

    def link(self, attr: str) -> At[Any] | None:
        """A link setting: the interface's own, else its Port-Channel's."""
        found: At[Any] | None = getattr(self.iface, attr)
        if found is None and self.member_of is not None:
            found = getattr(self.member_of, attr)
        return found


def build_port(
    name: str,
    iface: InterfaceConf,
    config: EosConfig,
    oper: OperLink | None,
    issues: Issues,
    *,
    blocked: Mapping[str, frozenset[str]] | None = None,
) -> Built:
    """Build one Ethernet port from its configuration, the global level and operational data.

    ``blocked``: interface -> features of its lines that were not understood; the fields they
    may change are unknown (None) where only a default decided them (the port's own lines and
    its Port-Channel's count).
    """
    ctx = _context(iface, config, issues)
    fields = _Fields()
    _link(ctx, fields, oper)
    _classification(ctx, fields)
    pfc_on = _pfc(ctx, fields)
    _link_pause(ctx, fields, pfc_on)
    _watchdog(ctx, fields, bool(fields.values["pfc_rx"]))
    _queues(ctx, fields)
    for unknown in ("tc_to_pg", "pfc_priority_to_pg", "pg_buffers", "queue_buffers"):
        fields.put(unknown, None)
    if blocked:
        features = set(blocked.get(name, ()))
        if ctx.member_of is not None:
            features |= blocked.get(ctx.member_of.name, frozenset())
        unread_defaults(fields.values, {**fields.lines, **fields.oper_lines}, features)
    # The values are typed as the fields are (tests/platforms/test_construct.py validates
    # every constructed port of the repository's EOS files): no validated copies of this
    # port's maps next to the builder's (~14 KB a port while it is built).
    port = built(construct(Port, {"name": name, **fields.values}))
    return Built(port=port, lines=fields.lines, oper_lines=fields.oper_lines)


def _context(iface: InterfaceConf, config: EosConfig, issues: Issues) -> _Ctx:
    chain: list[QosConf] = [iface, *_profile(iface, config, issues)]
    member_of = None
    group = iface.channel_group.value if iface.channel_group is not None else None
    if group is not None:
        member_of = config.interfaces.get(f"Port-Channel{group}")
        if member_of is not None:
            chain += [member_of, *_profile(member_of, config, issues)]
    return _Ctx(config, tuple(chain), iface, member_of, issues)


def _profile(conf: InterfaceConf, config: EosConfig, issues: Issues) -> list[QosConf]:
    if conf.profile is None:
        return []
    found = config.profiles.get(conf.profile.value)
    if found is None:
        issues.add(
            f"service-profile {conf.profile.value}",
            f"qos profile {conf.profile.value!r} is not defined",
            conf.profile.line,
        )
        return []
    return [found]


def _link(ctx: _Ctx, fields: _Fields, oper: OperLink | None) -> None:
    mtu = ctx.link("mtu") or ctx.link("l2_mtu")
    if mtu is not None:
        fields.put("mtu", mtu.value, mtu.line)
    elif _routed(ctx):
        default = ctx.g.default_mtu
        fields.put("mtu", default.value if default else DEFAULT_IP_MTU, _ln(default))
    else:
        fields.put("mtu", None)
    speed = ctx.iface.speed
    if speed is not None and speed.value is not None:
        fields.put("speed_mbps", speed.value, speed.line)
    elif oper is not None and oper.speed_mbps is not None:
        fields.put("speed_mbps", oper.speed_mbps)
        if oper.line:
            fields.oper_lines["speed_mbps"] = oper.line
    else:
        fields.put("speed_mbps", None, _ln(speed))
    shut = ctx.iface.shutdown or ctx.g.default_shutdown
    if shut is not None:
        fields.put("admin_up", not shut.value, shut.line)
    else:
        fields.put("admin_up", True if ctx.iface.line else (oper and oper.admin_up))
    fec = ctx.iface.fec
    fields.put("fec", fec.value if fec else "auto", _ln(fec))
    fields.put("cable_length_m", None)


def _ln(at: At[Any] | None) -> int | None:
    return at.line if at is not None else None


def _routed(ctx: _Ctx) -> bool:
    switchport = ctx.link("switchport")
    return switchport is not None and not switchport.value


def _classification(ctx: _Ctx, fields: _Fields) -> None:
    trust = ctx.pick("trust") or ctx.g.trust
    default: Trust = "dscp" if _routed(ctx) else "pcp"
    fields.put("trust", trust.value if trust else default, _ln(trust))
    dscp_map = ctx.g.dscp_to_tc
    dscp = {d: dscp_map[d].value if d in dscp_map else d >> 3 for d in range(64)}
    fields.put("dscp_to_priority", dscp, min((a.line for a in dscp_map.values()), default=None))
    fields.put("priority_to_tc", dict(IDENTITY8))
    cos_map = ctx.g.cos_to_tc
    cos_line = min((a.line for a in cos_map.values()), default=None)
    fields.put("cos_to_tc", {c: at.value for c, at in sorted(cos_map.items())}, cos_line)
    queue_map = ctx.g.tc_to_queue
    queues = {tc: queue_map[tc].value if tc in queue_map else tc for tc in range(8)}
    fields.put("tc_to_queue", queues, min((a.line for a in queue_map.values()), default=None))
    rewrite = ctx.g.rewrite_dscp
    on = rewrite is not None and rewrite.value
    fields.put("dscp_rewrite", None if on else {}, _ln(rewrite))
    fields.put("dscp_rewrite_on_ingress", None if on else False, _ln(rewrite))


def _pfc(ctx: _Ctx, fields: _Fields) -> bool:
    """Set the PFC fields; return whether PFC is configured on (which disables 802.3x FC)."""
    off = ctx.g.pfc_all_off
    mode = ctx.pick("pfc_on")
    prios: dict[int, At[bool]] = {}
    for conf in reversed(ctx.chain):
        prios.update(conf.pfc_priorities)
    lossless = tuple(sorted(p for p, at in prios.items() if at.value))
    on = off is None and mode is not None and mode.value
    if on:
        line = min((prios[p].line for p in lossless), default=_ln(mode))
        enabled = lossless
    else:
        line = off.line if off else _ln(mode)
        enabled = ()
    for name in ("pfc_rx", "pfc_tx"):
        fields.put(name, enabled, line)
    if off is not None or mode is not None:
        # Explicitly configured (port, profile or the global all-off): the operator's own
        # statement of whether the port is lossless (scope reads an explicit off).
        fields.put("pfc_mode", "on" if on else "off", line)
    queues = fields.values["tc_to_queue"]
    fields.put("pfc_priority_to_queue", {p: queues[p] for p in enabled}, line)
    return bool(on)


def _link_pause(ctx: _Ctx, fields: _Fields, pfc_on: bool) -> None:
    settings = [a for a in (ctx.link("flow_send"), ctx.link("flow_receive")) if a is not None]
    on = [a for a in settings if a.value]
    if pfc_on and not on:
        fields.put("link_pause", False, _ln(ctx.pick("pfc_on")))
    else:
        first = (on or settings)[:1]
        fields.put("link_pause", bool(on), first[0].line if first else None)


def _watchdog(ctx: _Ctx, fields: _Fields, pfc: bool) -> None:
    enabled = ctx.pick("watchdog")
    if not pfc or (enabled is not None and not enabled.value):
        line = enabled.line if enabled is not None and not enabled.value else None
        fields.put("watchdog", Watchdog(enabled=False), line or fields.lines.get("pfc_rx"))
        return
    if enabled is None:
        # No watchdog line in the chain: the EOS default is not documented where rocetune
        # could read it, so the state is unknown (RT205 says it could not verify).
        fields.put("watchdog", None, fields.lines.get("pfc_rx"))
        return
    g = ctx.g
    timer_at = ctx.pick("watchdog_timer")
    timer = timer_at.value if timer_at is not None else None
    detect: At[float] | None = g.watchdog_timeout_ms
    restore: At[float] | None = g.watchdog_recovery_ms
    if timer is not None and timer_at is not None:
        detect = At(timer.timeout_ms, timer_at.line)
        restore = At(timer.recovery_ms, timer_at.line)
    action = _action(ctx)
    watchdog = Watchdog(
        enabled=True,
        detection_ms=detect.value if detect else None,
        restoration_ms=restore.value if restore else None,
        action=action.value if action else None,
    )
    fields.put("watchdog", watchdog, _ln(enabled) or fields.lines.get("pfc_rx"))
    for name, at in (("detection_ms", detect), ("restoration_ms", restore), ("action", action)):
        if at is not None and at.line:
            fields.lines[f"watchdog.{name}"] = at.line


def _action(ctx: _Ctx) -> At[str] | None:
    g = ctx.g
    if g.watchdog_override_drop is not None:
        return At("drop", g.watchdog_override_drop.line)
    port = ctx.pick("watchdog_action")
    if port is not None and port.value is not None:
        return At(port.value, port.line)
    return g.watchdog_action


def _queues(ctx: _Ctx, fields: _Fields) -> None:
    numbers = sorted({*QUEUES, *(q for conf in ctx.chain for q in conf.queues)})
    speed = fields.values["speed_mbps"]
    schedulers: dict[int, Scheduler] = {}
    ecn: dict[int, EcnProfile] = {}
    for q in numbers:
        found = [(conf, conf.queues[q]) for conf in ctx.chain if q in conf.queues]
        schedulers[q] = _scheduler(found)
        if found:
            decided = _first(found, "strict") or _first(found, "bandwidth")
            line = decided[1].line if decided is not None else found[0][1].line
            fields.lines[f"schedulers.{q}"] = line
        got = _ecn(found, speed, ctx.issues)
        if got is not None:
            ecn[q], fields.lines[f"ecn.{q}"] = got
    fields.put("schedulers", schedulers, _first_line(ctx, "strict", "bandwidth"))
    fields.put("ecn", ecn, _first_line(ctx, "ecn", "drop"))


def _queue_attr(ctx: _Ctx, q: int, attr: str) -> At[Any] | None:
    for conf in ctx.chain:
        queue = conf.queues.get(q)
        found: At[Any] | None = getattr(queue, attr) if queue is not None else None
        if found is not None:
            return found
    return None


def _first_line(ctx: _Ctx, *attrs: str) -> int | None:
    lines = [
        at.line
        for q in sorted({q for conf in ctx.chain for q in conf.queues})
        for attr in attrs
        if (at := _queue_attr(ctx, q, attr)) is not None
    ]
    return min(lines, default=None)


def _first(found: list[tuple[QosConf, QueueConf]], attr: str) -> tuple[QosConf, At[Any]] | None:
    for conf, queue in found:
        value: At[Any] | None = getattr(queue, attr)
        if value is not None:
            return conf, value
    return None


def _scheduler(found: list[tuple[QosConf, QueueConf]]) -> Scheduler:
    strict_at = _first(found, "strict")
    strict = strict_at is None or bool(strict_at[1].value)
    bandwidth = _first(found, "bandwidth")
    guaranteed = _first(found, "guaranteed")
    weight = bandwidth[1].value if bandwidth is not None else None
    if weight is None and not strict and guaranteed is not None:
        weight = guaranteed[1].value
    return Scheduler(kind="strict" if strict else "dwrr", weight=weight)


def _ecn(
    found: list[tuple[QosConf, QueueConf]], speed: int | None, issues: Issues
) -> tuple[EcnProfile, int] | None:
    """The queue's ECN/WRED profile and the line of its thresholds; None without one."""
    ecn_at, drop_at = _first(found, "ecn"), _first(found, "drop")
    ecn: Red | None = ecn_at[1].value if ecn_at else None
    drop: Red | None = drop_at[1].value if drop_at else None
    source = ecn_at if ecn is not None else drop_at
    red = ecn or drop
    if red is None or source is None:
        return None
    low, high = red.low.to_bytes(speed), red.high.to_bytes(speed)
    if low is None or high is None:
        issues.add(
            red.text,
            "time-based threshold needs the port speed, which is not known",
            source[1].line,
        )
    name = None if isinstance(source[0], InterfaceConf) else source[0].name
    profile = EcnProfile(
        name=name,
        ecn_mark=ecn is not None,
        red_drop=drop is not None,
        min_threshold_bytes=low,
        max_threshold_bytes=high,
        max_probability_pct=red.probability,
    )
    return profile, source[1].line
