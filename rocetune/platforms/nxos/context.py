"""Shape a device target into NX-OS CLI configuration for ``templates/nxos/``.

One output, ``<device>.nxos.cfg``: configuration lines for ``copy FILE running-config`` /
``configure terminal``, with the reasons as ``!`` comment lines (NX-OS ignores lines that
start with ``!``; the NX-OS driver drops them too, so ``rocetune lint`` reads the file).
Sections, one template each, in a fixed order:

- ``classification``: one ``class-map type qos match-any rocetune-prio<N>`` per non-default
  priority with ``match dscp <list>``, and ``policy-map type qos rocetune-qos`` setting
  ``qos-group N`` (class-default -> qos-group 0); qos-group N is egress queue N and CoS N;
- ``queuing`` (scheduling or ECN): ``policy-map type queuing rocetune-out-<speed>`` per port
  speed with ``bandwidth remaining percent W`` (DWRR), ``priority level 1`` (the CNP queue)
  and on the lossless queues ``random-detect minimum-threshold A kbytes maximum-threshold B
  kbytes drop-probability P weight 0 ecn``; queues without a weight get 0 %;
- ``network_qos`` (PFC or link): ``policy-map type network-qos rocetune-nq`` with ``pause
  pfc-cos N`` on the lossless classes and ``mtu`` (intent.mtu.switch) on every class, bound
  in ``system qos``. NX-OS sizes the PFC headroom itself: no buffer lines;
- ``watchdog``: ``priority-flow-control watch-dog interval <poll ms>``, ``watch-dog
  shutdown-multiplier`` = detection / poll and ``fixed-restore multiplier`` = restoration /
  poll (capability error when not whole multiples, outside 1-10 / 1-100, or the action is
  not drop: NX-OS's watchdog drops);
- ``interfaces`` (always): per port, depending on the features: ``mtu``,
  ``priority-flow-control mode on``, ``priority-flow-control watch-dog-interval on``,
  ``service-policy type qos input``, ``service-policy type queuing output``.
"""

from __future__ import annotations

from typing import Any

from rocetune.platforms.spec import Output, RenderSpec
from rocetune.tune.target import DeviceTarget, PortTarget

INTERVAL_RANGE = (100, 1000)
"""``watch-dog interval`` in ms (the range the NX-OS driver reads)."""
SHUTDOWN_RANGE = (1, 10)
RESTORE_RANGE = (1, 100)
QOS_POLICY = "rocetune-qos"
NQ_POLICY = "rocetune-nq"
_SECTIONS: dict[str, frozenset[str]] = {
    "classification": frozenset({"classification"}),
    "queuing": frozenset({"scheduling", "ecn"}),
    "network_qos": frozenset({"pfc", "buffers", "link"}),
    "watchdog": frozenset({"watchdog"}),
}


def speed_word(mbps: int) -> str:
    """``400g`` (policy names)."""
    return f"{mbps // 1000}g" if mbps % 1000 == 0 else f"{mbps}m"


def threshold(value: int) -> dict[str, Any]:
    """``1600`` ``kbytes`` (whole kbytes) or ``1600500`` ``bytes``."""
    if value % 1000 == 0:
        return {"value": value // 1000, "unit": "kbytes"}
    return {"value": value, "unit": "bytes"}


def queue_class(queue: int, prefix: str) -> str:
    """``c-out-8q-q3`` / ``c-out-8q-q-default`` (prefix ``c-out-8q-q``), ``c-8q-nq3``."""
    return f"{prefix}-default" if queue == 0 else f"{prefix}{queue}"


def _classes(t: DeviceTarget) -> list[dict[str, Any]]:
    by_prio: dict[int, list[int]] = {}
    for dscp, prio in sorted(t.classes.dscp_to_priority.items()):
        if prio != 0:
            by_prio.setdefault(prio, []).append(dscp)
    return [
        {"name": f"rocetune-prio{p}", "dscps": ",".join(map(str, d)), "group": p}
        for p, d in sorted(by_prio.items())
    ]


def _queues(t: DeviceTarget, port: PortTarget) -> list[dict[str, Any]]:
    c = t.classes
    lossless_queues = {c.tc_to_queue[c.priority_to_tc[p]] for p in c.lossless}
    by_queue = {c.tc_to_queue[tc]: s for tc, s in c.schedulers.items()}
    out = []
    for q in range(7, -1, -1):
        s = by_queue.get(q)
        ecn = port.ecn if q in lossless_queues else None
        out.append(
            {
                "cls": queue_class(q, "c-out-8q-q"),
                "strict": s is not None and s.kind == "strict",
                "bw": (s.weight_pct if s is not None and s.weight_pct is not None else 0),
                "ecn": None
                if ecn is None
                else {
                    "min": threshold(ecn.kmin_bytes),
                    "max": threshold(ecn.kmax_bytes),
                    "probability": ecn.probability_pct,
                },
            }
        )
    return out


def _queuing(t: DeviceTarget) -> list[dict[str, Any]]:
    groups: dict[int, list[PortTarget]] = {}
    for port in t.ports.values():
        groups.setdefault(port.speed_mbps, []).append(port)
    return [
        {
            "name": f"rocetune-out-{speed_word(speed)}",
            "ports": [p.name for p in ports],
            "queues": _queues(t, ports[0]),
            "reasons": [
                f"{ports[0].name}: {r.line()}"
                for r in ports[0].reasons
                if r.what in ("ECN Kmin", "ECN Kmax", "ECN Pmax")
            ],
        }
        for speed, ports in sorted(groups.items())
    ]


def _network_qos(t: DeviceTarget, mtu: int) -> list[dict[str, Any]]:
    lossless = {t.classes.priority_to_tc[p]: p for p in t.classes.lossless}
    return [
        {"cls": queue_class(q, "c-8q-nq"), "cos": lossless.get(q), "mtu": mtu}
        for q in range(7, -1, -1)
    ]


def _watchdog(t: DeviceTarget) -> dict[str, Any]:
    wd = t.watchdog
    poll = wd.poll_ms
    return {
        "interval": round(poll),
        "shutdown": round(wd.detection_ms / poll),
        "restore": round(wd.restoration_ms / poll),
    }


def sections(features: frozenset[str]) -> list[str]:
    """Feature templates to include, in their fixed order."""
    return [name for name, wanted in _SECTIONS.items() if wanted & features]


def build_context(t: DeviceTarget, features: frozenset[str], full: bool) -> dict[str, Any]:
    """The context of ``nxos/config.txt.j2``."""
    queuing = _queuing(t)
    policy_of = {port: q["name"] for q in queuing for port in q["ports"]}
    mtu = min((p.mtu for p in t.ports.values()), default=9216)
    return {
        "device": t.name,
        "hostname": (t.hostname or t.name) if full else None,
        "sections": sections(features),
        "features": sorted(features),
        "classes": _classes(t),
        "qos_policy": QOS_POLICY,
        "nq_policy": NQ_POLICY,
        "queuing": queuing,
        "nq_classes": _network_qos(t, mtu),
        "watchdog": _watchdog(t),
        "interfaces": [
            {"name": p.name, "mtu": p.mtu, "queuing": policy_of[p.name]} for p in t.ports.values()
        ],
        "device_reasons": [r.line() for r in t.reasons],
        "comments": list(t.problems),
    }


def _whole(value: float, poll: float, bounds: tuple[int, int]) -> bool:
    ratio = value / poll
    return abs(ratio - round(ratio)) < 1e-9 and bounds[0] <= round(ratio) <= bounds[1]


def capability_problems(t: DeviceTarget) -> list[str]:
    """Why NX-OS (as rendered) cannot express ``t``; empty when it can."""
    wd = t.watchdog
    problems = []
    poll = wd.poll_ms
    if not (INTERVAL_RANGE[0] <= poll <= INTERVAL_RANGE[1]) or poll != int(poll):
        problems.append(
            f"PFC watchdog poll {poll:g} ms: NX-OS's watch-dog interval is a whole "
            f"{INTERVAL_RANGE[0]}-{INTERVAL_RANGE[1]} ms"
        )
    elif not _whole(wd.detection_ms, poll, SHUTDOWN_RANGE):
        problems.append(
            f"PFC watchdog detection {wd.detection_ms:g} ms must be {SHUTDOWN_RANGE[0]}-"
            f"{SHUTDOWN_RANGE[1]} x the interval {poll:g} ms (shutdown-multiplier)"
        )
    elif not _whole(wd.restoration_ms, poll, RESTORE_RANGE):
        problems.append(
            f"PFC watchdog restoration {wd.restoration_ms:g} ms must be {RESTORE_RANGE[0]}-"
            f"{RESTORE_RANGE[1]} x the interval {poll:g} ms (fixed-restore multiplier)"
        )
    if wd.action != "drop":
        problems.append(f"PFC watchdog action {wd.action!r}: NX-OS's watchdog drops")
    return problems


RENDER = RenderSpec(
    platform="nxos",
    outputs=(Output("nxos/config.txt.j2", "{device}.nxos.cfg", lintable=True),),
    max_lossless_priorities=8,
    capability=capability_problems,
    build=build_context,
)
"""NX-OS takes several ``pause pfc-cos`` classes in its network-qos policy."""
