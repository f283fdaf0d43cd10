"""Shape a device target into EOS CLI configuration for ``templates/eos/``.

One output, ``<device>.eos.cfg``: configuration lines for ``configure session`` (or ``copy
FILE running-config``) with the reasons as ``!`` comments. It parses with the EOS driver, so
``rocetune lint`` reads it (the round trip). Sections, one template each, in a fixed order:

- ``classification``: ``qos map dscp <list> to traffic-class <tc>`` for all 64 DSCPs (at most
  :data:`DSCPS_PER_LINE` values per line) and the identity ``qos map traffic-class N to
  tx-queue N``; ``qos trust dscp`` in every profile;
- ``pfc``: ``priority-flow-control on`` and ``priority-flow-control priority N no-drop`` for
  each lossless priority (EOS sizes the PFC headroom itself: no buffer lines are rendered);
- ``scheduling``: ``tx-queue N`` with ``no priority`` + ``bandwidth percent W`` (DWRR) or
  ``priority strict`` (the CNP queue);
- ``ecn``: ``random-detect ecn minimum-threshold A kbytes maximum-threshold B kbytes
  max-mark-probability P`` on each lossless tx-queue (``bytes`` when a threshold is not a whole
  number of kbytes; the EOS driver reads kbytes as 1000 B);
- ``watchdog``: ``priority-flow-control pause watchdog`` in the profile and the global
  ``priority-flow-control pause watchdog default timeout|recovery-time|polling-interval``
  (seconds) and ``action drop|no-drop``;
- ``interfaces`` (always): ``service-profile`` per port and, with ``link``, ``mtu``.

QoS settings live in one ``qos profile rocetune-roce-<speed>`` per port speed (the ECN
thresholds scale with the speed); each feature re-enters the profile, which EOS merges.
"""

from __future__ import annotations

from typing import Any

from rocetune.platforms.spec import Output, RenderSpec
from rocetune.tune.target import DeviceTarget, PortTarget

DSCPS_PER_LINE = 8
"""DSCP values per ``qos map dscp`` line (the lab's configs use up to 8)."""
_ACTIONS = {"drop": "drop", "forward": "no-drop"}
"""Watchdog action (model) -> the global EOS ``action`` keyword."""
_SECTIONS: dict[str, frozenset[str]] = {
    "classification": frozenset({"classification"}),
    "pfc": frozenset({"pfc", "buffers"}),
    "scheduling": frozenset({"scheduling"}),
    "ecn": frozenset({"ecn"}),
    "watchdog": frozenset({"watchdog"}),
}


def speed_word(mbps: int) -> str:
    """``400g`` (profile names)."""
    return f"{mbps // 1000}g" if mbps % 1000 == 0 else f"{mbps}m"


def threshold(value: int) -> dict[str, Any]:
    """``1600`` ``kbytes`` (whole kbytes) or ``1600500`` ``bytes``."""
    if value % 1000 == 0:
        return {"value": value // 1000, "unit": "kbytes"}
    return {"value": value, "unit": "bytes"}


def seconds(ms: float) -> str:
    """Milliseconds as decimal seconds: ``200`` -> ``0.2``."""
    return f"{ms / 1000:g}"


def _chunks(values: list[int]) -> list[list[int]]:
    return [values[i : i + DSCPS_PER_LINE] for i in range(0, len(values), DSCPS_PER_LINE)]


def _dscp_lines(t: DeviceTarget) -> list[dict[str, Any]]:
    by_tc: dict[int, list[int]] = {}
    for dscp, prio in sorted(t.classes.dscp_to_priority.items()):
        by_tc.setdefault(t.classes.priority_to_tc[prio], []).append(dscp)
    return [{"dscps": chunk, "tc": tc} for tc, d in sorted(by_tc.items()) for chunk in _chunks(d)]


def _reasons(port: PortTarget, whats: tuple[str, ...]) -> list[str]:
    return [f"{port.name}: {r.line()}" for r in port.reasons if r.what in whats]


def _profiles(t: DeviceTarget) -> list[dict[str, Any]]:
    groups: dict[int, list[PortTarget]] = {}
    for port in t.ports.values():
        groups.setdefault(port.speed_mbps, []).append(port)
    out = []
    for speed, ports in sorted(groups.items()):
        ecn = ports[0].ecn
        out.append(
            {
                "name": f"rocetune-roce-{speed_word(speed)}",
                "ports": [p.name for p in ports],
                "ecn": {
                    "min": threshold(ecn.kmin_bytes),
                    "max": threshold(ecn.kmax_bytes),
                    "probability": ecn.probability_pct,
                },
                "reasons": _reasons(ports[0], ("ECN Kmin", "ECN Kmax", "ECN Pmax")),
            }
        )
    return out


def sections(features: frozenset[str]) -> list[str]:
    """Feature templates to include, in their fixed order."""
    return [name for name, wanted in _SECTIONS.items() if wanted & features]


def build_context(t: DeviceTarget, features: frozenset[str], full: bool) -> dict[str, Any]:
    """The context of ``eos/config.txt.j2``."""
    wd = t.watchdog
    classes = t.classes
    queues = [
        {"queue": classes.tc_to_queue[tc], "mode": s.kind, "bw": s.weight_pct}
        for tc, s in sorted(classes.schedulers.items())
    ]
    return {
        "device": t.name,
        "hostname": (t.hostname or t.name) if full else None,
        "sections": sections(features),
        "link": "link" in features,
        "dscp_lines": _dscp_lines(t),
        "tc_queues": sorted(classes.tc_to_queue.items()),
        "lossless": list(classes.lossless),
        "lossless_queues": [
            classes.tc_to_queue[classes.priority_to_tc[p]] for p in classes.lossless
        ],
        "queues": queues,
        "profiles": _profiles(t),
        "mtu_of": {p.name: p.mtu for p in t.ports.values()},
        "watchdog": {
            "timeout": seconds(wd.detection_ms),
            "recovery": seconds(wd.restoration_ms),
            "poll": seconds(wd.poll_ms),
            "action": _ACTIONS.get(wd.action, "drop"),
        },
        "device_reasons": [r.line() for r in t.reasons],
        "comments": list(t.problems),
    }


def capability_problems(t: DeviceTarget) -> list[str]:
    """Why EOS (as rendered) cannot express ``t``; empty when it can."""
    problems = []
    if t.watchdog.action not in _ACTIONS:
        problems.append(
            f"PFC watchdog action {t.watchdog.action!r}: rendered EOS watchdogs drop or "
            "forward (no-drop)"
        )
    return problems


RENDER = RenderSpec(
    platform="eos",
    outputs=(Output("eos/config.txt.j2", "{device}.eos.cfg", lintable=True),),
    max_lossless_priorities=8,
    capability=capability_problems,
    build=build_context,
)
"""EOS takes any set of no-drop priorities in a qos profile."""
