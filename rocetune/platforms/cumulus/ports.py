"""Build vendor-neutral :class:`~rocetune.model.Port` objects (step 2 of 2: the model).

Mapping of NVUE onto the model:

- Classification: ``trust`` (l2 -> pcp, l3 -> dscp, both, port) and ``dscp_to_priority``
  from the port's mapping profile (default-global unless bound); ``priority_to_tc`` from
  ``qos egress-queue-mapping default-global`` (the only profile NVUE supports).
- Queues: a Cumulus traffic class *is* the egress queue (S2 "traffic-class 2 defines the
  bandwidth allocation for egress queue 2"), so ``tc_to_queue`` is the identity on TC 0-7
  and ``ecn``/``schedulers`` are keyed by traffic class.
- Priority groups: Cumulus assigns ingress PGs by switch priority and keeps a single lossless
  PG per port (S2-50). The model numbers PGs by switch priority: every PFC switch priority
  of the port's PFC profile shares one lossless PG numbered after the lowest of them; any
  other switch priority n is PG n. ``tc_to_pg[tc]`` is the PG of the switch priorities that
  map to ``tc`` (the lossless PG when one of them is lossless, else the lowest one's);
  ``pfc_priority_to_pg`` maps every PFC switch priority to the lossless PG, and
  ``pg_buffers`` holds that PG: ``port-buffer`` -> size, ``xoff-threshold`` -> xoff,
  ``xon-threshold`` -> xon (NVUE: "bytes below the xoff threshold"), the lossless traffic
  pool and the ``ingress-lossless-buffer`` alpha (default 1). Without configured thresholds
  the switch derives them (``computed_at_runtime``).
- PFC: ``pfc_rx``/``pfc_tx`` = the profile's switch priorities when ``rx``/``tx`` is
  enabled, else (); no PFC profile anywhere = () (NVUE default: no PFC).
- Watchdog: ``detection_ms`` = polling-interval x robustness, ``restoration_ms`` = one
  polling interval (S2: "If there are no pause frames received in any polling interval
  period, it restores"), action drop, on the PFC-enabled traffic classes.
- Remarking: ``dscp_rewrite`` / ``dscp_rewrite_on_ingress`` from the port's remark profile
  (default-global unless bound; :mod:`.remark`).
- Link: configured value first, then ``nv show interface -o json``, then the documented
  default (MTU 9216); speed and admin state stay None when neither source tells.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rocetune.model import BufferProfile, Port, Watchdog
from rocetune.platforms.common.construct import construct
from rocetune.platforms.cumulus import defaults
from rocetune.platforms.cumulus.interfaces import PortConfig, Setting
from rocetune.platforms.cumulus.operational import OperLink
from rocetune.platforms.cumulus.qos import QosPlan
from rocetune.platforms.cumulus.qos_common import Line, Part
from rocetune.platforms.cumulus.qos_queues import DEFAULT_GLOBAL, PfcProfile
from rocetune.platforms.cumulus.tree import Issues, dotted

Where = tuple[str, Line]
"""A file and a line."""

_IDENTITY_QUEUES = {tc: tc for tc in range(8)}


@dataclass
class Built:
    """One port plus where every field came from."""

    port: Port
    line: Where
    lines: dict[str, Where] = field(default_factory=dict)


@dataclass
class _Fields:
    file: str
    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, Where] = field(default_factory=dict)

    def put(self, name: str, value: Any, line: Line, file: str | None = None) -> None:
        self.values[name] = value
        if line is not None:
            self.lines[name] = (file or self.file, line)

    def part(self, part: Part | None, names: tuple[str, ...]) -> None:
        for name in names:
            if part is None:
                self.put(name, None, None)
            else:
                self.put(name, part.values.get(name), part.lines.get(name))


def build_port(
    name: str,
    config: PortConfig | None,
    plan: QosPlan,
    oper: tuple[OperLink | None, str],
    issues: Issues,
) -> Built:
    """Build one port from its configuration, the global QoS plan and operational data."""
    fields = _Fields(file=issues.file)
    settings = config.settings if config is not None else {}
    _link(fields, settings, oper)
    fields.part(_bound(plan.mappings, settings, "mapping", issues), ("trust", "dscp_to_priority"))
    fields.part(plan.sp_to_tc, ("priority_to_tc",))
    fields.put("tc_to_queue", plan.same.make("tc_to_queue", _IDENTITY_QUEUES.copy), None)
    pfc = _pfc_profile(plan, settings, issues)
    _pfc(fields, pfc, plan)
    pause = _bound(plan.link_pause, settings, "link-pause", issues)
    if pause is None and "link-pause" not in settings:
        fields.put("link_pause", False, None)
    else:
        fields.part(pause, ("link_pause",))
    fields.part(_bound(plan.ecn, settings, "congestion-control", issues), ("ecn",))
    fields.part(_bound(plan.schedulers, settings, "egress-scheduler", issues), ("schedulers",))
    remark = _bound(plan.remarks, settings, "remark", issues)
    fields.part(remark, ("dscp_rewrite", "dscp_rewrite_on_ingress"))
    _watchdog(fields, settings.get("watchdog"), plan)
    # Not validated: every value is of its field's type and the plan's objects are handed to
    # every port as they are (no per-port copies; the run's sharer finds them by identity).
    port = construct(Port, {"name": name, **fields.values})
    if config is not None:
        where: Where = (issues.file, config.line)
    else:
        where = (oper[1], oper[0].line if oper[0] is not None else None)
    return Built(port=port, line=where, lines=fields.lines)


def _link(fields: _Fields, settings: dict[str, Setting], oper: tuple[OperLink | None, str]) -> None:
    link, oper_file = oper
    for name in ("mtu", "speed_mbps", "admin_up"):
        setting = settings.get(name)
        if setting is not None:
            fields.put(name, setting.value, setting.line)
        elif link is not None and getattr(link, name) is not None:
            fields.put(name, getattr(link, name), link.line, oper_file)
        elif name == "mtu":
            fields.put(name, defaults.DEFAULT_MTU, None)
        else:
            fields.put(name, None, None)


def _bound(
    profiles: dict[str, Any], settings: dict[str, Setting], feature: str, issues: Issues
) -> Any:
    """Return the profile the port binds for ``feature`` (default-global when unbound)."""
    binding = settings.get(feature)
    if binding is None:
        return profiles.get(DEFAULT_GLOBAL)
    if binding.value is None:
        return None
    found = profiles.get(binding.value)
    if found is None:
        issues.add(
            dotted(binding.path),
            f"{feature} profile {binding.value!r} is not defined",
            binding.line,
        )
    return found


def _pfc_profile(
    plan: QosPlan, settings: dict[str, Setting], issues: Issues
) -> PfcProfile | bool | None:
    """The port's PFC profile; False when none applies (no PFC), None when unknown."""
    binding = settings.get("pfc")
    if binding is None:
        return plan.pfc.get(DEFAULT_GLOBAL, False)
    found: PfcProfile | None = _bound(plan.pfc, settings, "pfc", issues)
    return found


def _pfc(fields: _Fields, profile: PfcProfile | bool | None, plan: QosPlan) -> None:
    sp_to_tc: dict[int, int] | None = plan.sp_to_tc.values.get("priority_to_tc")
    if profile is False:
        same = plan.same
        for name in ("pfc_rx", "pfc_tx"):
            fields.put(name, (), None)
        fields.put("pfc_priority_to_pg", same.value("pfc_priority_to_pg", {}), None)
        fields.put("pfc_priority_to_queue", same.value("pfc_priority_to_queue", {}), None)
        fields.put("pg_buffers", same.value("pg_buffers", {}), None)
        fields.put("cable_length_m", None, None)
        tc_to_pg = same.make("tc_to_pg", lambda: _tc_to_pg(sp_to_tc, ()))  # the plan's sp_to_tc
        fields.put("tc_to_pg", tc_to_pg, plan.sp_to_tc.lines.get("priority_to_tc"))
        return
    if not isinstance(profile, PfcProfile) or profile.priorities is None:
        for name in ("pfc_rx", "pfc_tx", "pfc_priority_to_pg", "pfc_priority_to_queue"):
            fields.put(name, None, None)
        for name in ("pg_buffers", "cable_length_m", "tc_to_pg"):
            fields.put(name, None, None)
        return
    _pfc_known(fields, profile, profile.priorities, sp_to_tc, plan)


def _pfc_known(
    fields: _Fields,
    profile: PfcProfile,
    sps: tuple[int, ...],
    sp_to_tc: dict[int, int] | None,
    plan: QosPlan,
) -> None:
    prio_line = profile.lines.get("priorities", profile.line)
    for name, flag in (("pfc_rx", profile.rx), ("pfc_tx", profile.tx)):
        value = None if flag is None else (sps if flag else ())
        fields.put(name, value, profile.lines.get(name[-2:], prio_line))
    # One set of values per PFC profile of the plan (the plan holds the profile: its id stays).
    made = plan.same.make(("pfc", id(profile)), lambda: _pfc_values(profile, sps, sp_to_tc, plan))
    fields.put("pfc_priority_to_pg", made["pfc_priority_to_pg"], prio_line)
    fields.put("pfc_priority_to_queue", made["pfc_priority_to_queue"], prio_line)
    fields.put("tc_to_pg", made["tc_to_pg"], prio_line)
    fields.put("cable_length_m", profile.cable_m, profile.lines.get("cable", profile.line))
    fields.put("pg_buffers", made["pg_buffers"], profile.lines.get("buffer", prio_line))


def _pfc_values(
    profile: PfcProfile, sps: tuple[int, ...], sp_to_tc: dict[int, int] | None, plan: QosPlan
) -> dict[str, Any]:
    pg = min(sps) if sps else None
    queues = None if sp_to_tc is None else {sp: sp_to_tc[sp] for sp in sps if sp in sp_to_tc}
    return {
        "pfc_priority_to_pg": dict.fromkeys(sps, pg),
        "pfc_priority_to_queue": queues,
        "tc_to_pg": _tc_to_pg(sp_to_tc, sps),
        "pg_buffers": {} if pg is None else {pg: _lossless_buffer(profile, sps, plan)},
    }


def _tc_to_pg(sp_to_tc: dict[int, int] | None, lossless: tuple[int, ...]) -> dict[int, int] | None:
    if sp_to_tc is None:
        return None
    lossless_pg = min(lossless) if lossless else None
    out: dict[int, int] = {}
    for sp, tc in sorted(sp_to_tc.items()):
        if sp in lossless and lossless_pg is not None:
            out[tc] = lossless_pg
        elif tc not in out:
            out[tc] = sp
    return dict(sorted(out.items()))


def _lossless_buffer(profile: PfcProfile, sps: tuple[int, ...], plan: QosPlan) -> BufferProfile:
    pools = [n for n, p in plan.pools.items() if p.lossless]
    members = [n for n in pools if set(plan.pools[n].priorities or ()) & set(sps)]
    pool = next(iter(members or pools), None)
    sized = (profile.port_buffer, profile.xoff, profile.xon)
    return BufferProfile(
        name=profile.name,
        pool=pool,
        size_bytes=profile.port_buffer,
        xoff_bytes=profile.xoff,
        xon_bytes=profile.xon,
        alpha=plan.lossless_alpha,
        computed_at_runtime=all(v is None for v in sized),
    )


def _watchdog(fields: _Fields, setting: Setting | None, plan: QosPlan) -> None:
    if setting is None:
        fields.put("watchdog", _watchdog_model(plan, enabled=False), None)
        return
    if setting.value is None:
        fields.put("watchdog", None, setting.line)
        return
    fields.put("watchdog", _watchdog_model(plan, enabled=bool(setting.value)), setting.line)


def _watchdog_model(plan: QosPlan, *, enabled: bool) -> Watchdog | None:
    """The watchdog of every port that turns it on (or off): it depends on the plan alone,
    so it is made once per plan, not once per port."""
    return plan.same.make(("watchdog", enabled), lambda: _new_watchdog(plan, enabled=enabled))


def _new_watchdog(plan: QosPlan, *, enabled: bool) -> Watchdog | None:
    if not enabled:
        return plan.same.model(Watchdog(enabled=False))
    poll, robustness = plan.poll_ms, plan.robustness
    detection = poll * robustness if poll is not None and robustness is not None else None
    watchdog = Watchdog(enabled=True, detection_ms=detection, restoration_ms=poll, action="drop")
    return plan.same.model(watchdog)
