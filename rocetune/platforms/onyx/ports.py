"""Build vendor-neutral :class:`~rocetune.model.Port` objects from the Onyx shape.

Precedence for one Ethernet port, highest first: its own ``interface ethernet`` lines, then
for a member port (``channel-group N`` / ``mlag-channel-group N``) the lines of its
(mlag-)port-channel **[inheritance by members: unverified]**, then the ``roce`` command's
documented defaults (:mod:`.roce`), then the Onyx defaults below. A port broken out with
``module-type qsfp-split-N`` is replaced by its subports ``Eth1/1/1``..``/N``.

Defaults and their sources (docs/platforms/onyx.md):

- trust ``L2`` (PCP): Onyx User Manual, QoS commands, ``qos trust`` default **L2**;
- DSCP -> switch priority: DSCP >> 3 (DSCP 26 -> 3, 48 -> 6: the Onyx RoCE configuration
  notes, "traffic over DSCP 26 is mapped to switch-priority 3 by default"); switch priority ->
  traffic class: the identity unless ``traffic-class T bind switch-priority P``; traffic
  class N is egress queue N;
- PFC: off unless ``dcb priority-flow-control enable [force]`` (Onyx User Manual, PFC: flow
  control is disabled for all priorities on all ports by default); the priorities of
  ``dcb priority-flow-control priority N enable``; per port ``dcb priority-flow-control mode
  on force`` forces it, otherwise the port is left to DCBX negotiation (``auto``)
  **[unverified default]**;
- congestion control: none unless ``traffic-class N congestion-control ecn|red|both
  minimum-absolute A maximum-absolute B`` (KB = 1000 bytes, the project convention);
  relative thresholds (percent of the queue's buffer) are read as marking with unknown
  byte thresholds;
- ETS: ``traffic-class N dcb ets strict|wrr W``; TCs without a line are WRR (the Onyx
  ``show dcb ets interface`` sample of the Ansible collection lists every unconfigured TC as
  WRR) with an unknown share (their weight is not in the configuration: rules that need it
  say "could not verify");
- MTU 1500 unless ``mtu N [force]`` (read as the IP MTU, like the other platforms
  **[unit unverified]**); ports are enabled unless ``shutdown``;
- DSCP rewrite: none unless ``qos rewrite dscp`` (then unknown: the egress map is not
  modelled);
- no PFC watchdog is read: its state stays unknown (RT000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rocetune.model import EcnProfile, Port, Scheduler
from rocetune.model.share import built
from rocetune.platforms.common.unread import unread_defaults
from rocetune.platforms.onyx.roce import (
    CNP_TC,
    ECN_MAX_KB,
    ECN_MIN_KB,
    MARK,
    MODES,
    ROCE_WRR,
    RoceDefaults,
)
from rocetune.platforms.onyx.shape import At, Congestion, Ets, InterfaceConf, OnyxConfig

DEFAULT_MTU = 1500
KB = 1000
IDENTITY8 = {n: n for n in range(8)}
DEFAULT_DSCP = {d: d >> 3 for d in range(64)}
ROCE_PROFILE = f"roce ({MARK})"


@dataclass
class Built:
    """One port plus the line of every field that a configuration line set."""

    port: Port
    lines: dict[str, int] = field(default_factory=dict)


def port_names(config: OnyxConfig) -> list[str]:
    """The Ethernet ports of the configuration: split parents replaced by their subports."""
    names: set[str] = set()
    for name, conf in config.interfaces.items():
        if conf.kind != "ethernet":
            continue
        if conf.split is not None and name.count("/") == 1:
            names.update(f"{name}/{n}" for n in range(1, conf.split.value + 1))
        else:
            names.add(name)
    parents = {n for n, c in config.interfaces.items() if c.split is not None}
    return sorted(names - parents, key=_natural)


def build_port(name: str, config: OnyxConfig, blocked: dict[str, frozenset[str]]) -> Built:
    """The neutral port ``name`` (see the module doc for every decision)."""
    own = config.interfaces.get(name) or InterfaceConf(name, "ethernet", 0)
    parent = None
    if own.member_of is not None:
        parent = config.interfaces.get(own.member_of.value)
    chain = [c for c in (own, parent) if c is not None]
    roce = MODES.get(config.roce.value) if config.roce is not None else None
    roce_line = config.roce.line if config.roce is not None else 0
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}

    def put(key: str, value: Any, line: int = 0) -> None:
        values[key] = value
        if line:
            lines[key] = line

    trust = _pick(chain, "trust")
    if trust is not None:
        put("trust", trust.value, trust.line)
    elif roce is not None:
        put("trust", "dscp", roce_line)
    else:
        put("trust", "pcp")
    put("dscp_to_priority", dict(DEFAULT_DSCP))
    prio_tc = dict(IDENTITY8)
    for conf in reversed(chain):
        for prio, tc in conf.bind.items():
            prio_tc[prio] = tc.value
            lines["priority_to_tc"] = tc.line
    values["priority_to_tc"] = prio_tc
    put("tc_to_queue", dict(IDENTITY8))
    _pfc(chain, config, roce, roce_line, put)
    pause = _pick(chain, "link_pause")
    put("link_pause", pause.value if pause else False, pause.line if pause else 0)
    _ecn(chain, roce, roce_line, put)
    _schedulers(chain, roce, roce_line, put)
    mtu = _pick(chain, "mtu")
    put("mtu", mtu.value if mtu else DEFAULT_MTU, mtu.line if mtu else 0)
    if own.speed is not None:
        put("speed_mbps", own.speed.value, own.speed.line)
    shut = own.shutdown
    put("admin_up", not shut.value if shut else True, shut.line if shut else 0)
    rewrite = _pick(chain, "rewrite_dscp")
    if rewrite is not None and rewrite.value:
        put("dscp_rewrite", None, rewrite.line)
        put("dscp_rewrite_on_ingress", None, rewrite.line)
    else:
        put("dscp_rewrite", {})
        put("dscp_rewrite_on_ingress", False)
    features = blocked.get(name, frozenset()) | (
        blocked.get(parent.name, frozenset()) if parent is not None else frozenset()
    )
    unread_defaults(values, lines, features)
    return Built(built(Port(name=name, **values)), lines)


def _pick(chain: list[InterfaceConf], attr: str) -> At[Any] | None:
    for conf in chain:
        found: At[Any] | None = getattr(conf, attr)
        if found is not None:
            return found
    return None


def _pfc(
    chain: list[InterfaceConf],
    config: OnyxConfig,
    roce: RoceDefaults | None,
    roce_line: int,
    put: Any,
) -> None:
    if roce is not None:
        put("pfc_rx", roce.pfc_rx, roce_line)
        put("pfc_tx", roce.pfc_tx, roce_line)
        put("pfc_mode", "on" if roce.pfc_rx else "off", roce_line)
        prios = roce.pfc_rx
    else:
        enabled = config.pfc_enabled
        prios = tuple(sorted(config.pfc_priorities)) if enabled and enabled.value else ()
        mode = _pick(chain, "pfc_mode")
        line = mode.line if mode else (enabled.line if enabled else 0)
        put("pfc_mode", mode.value if mode else "auto", line)
        put("pfc_rx", prios, line)
        put("pfc_tx", prios, line)
    put("pfc_priority_to_queue", {p: p for p in prios})


def _ecn(chain: list[InterfaceConf], roce: RoceDefaults | None, roce_line: int, put: Any) -> None:
    found: dict[int, At[Congestion | None]] = {}
    for conf in reversed(chain):
        found.update(conf.congestion)
    out: dict[int, EcnProfile] = {}
    line = 0
    if roce is not None and 3 not in found:
        out[3] = EcnProfile(
            name=ROCE_PROFILE,
            ecn_mark=True,
            red_drop=False,
            min_threshold_bytes=ECN_MIN_KB * KB,
            max_threshold_bytes=ECN_MAX_KB * KB,
        )
        line = roce_line
    for tc, at in sorted(found.items()):
        line = max(line, at.line)
        cc = at.value
        if cc is None:
            continue
        out[tc] = EcnProfile(
            name=f"traffic-class {tc} congestion-control",
            ecn_mark=cc.mode in ("ecn", "both"),
            red_drop=cc.mode in ("red", "both"),
            min_threshold_bytes=None if cc.relative else cc.minimum * KB,
            max_threshold_bytes=None if cc.relative else cc.maximum * KB,
        )
    put("ecn", out, line)


def _schedulers(
    chain: list[InterfaceConf], roce: RoceDefaults | None, roce_line: int, put: Any
) -> None:
    ets: dict[int, tuple[Ets, int, str | None]] = {}
    if roce is not None:
        ets[3] = (Ets("wrr", ROCE_WRR), roce_line, ROCE_PROFILE)
        ets[CNP_TC] = (Ets("strict"), roce_line, ROCE_PROFILE)
    for conf in reversed(chain):
        for tc, found in conf.ets.items():
            ets[tc] = (found.value, found.line, None)
    out: dict[int, Scheduler] = {}
    line = 0
    for tc in range(8):
        if tc in ets:
            e, at, name = ets[tc]
            line = max(line, at)
            weight = float(e.weight) if e.kind == "wrr" and e.weight is not None else None
            out[tc] = Scheduler(name=name, kind=e.kind, weight=weight)
        else:
            out[tc] = Scheduler(kind="wrr")
    put("schedulers", out, line)


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))
