"""Shape a device target into Onyx configuration lines for ``templates/onyx/``.

One output, ``<device>.onyx.cfg``: flat Onyx commands in the form ``show running-config``
prints them (``interface ethernet 1/1 qos trust L3``), entered in ``configure terminal``, with
the reasons as ``#`` comments. It parses with the Onyx driver, so ``rocetune lint`` reads it
(the round trip). Sections, in a fixed order:

- ``classification``: ``qos trust L3`` per port; ``traffic-class T bind switch-priority P``
  where the plan's priority -> TC map is not the identity. The DSCP -> switch priority map
  stays the Onyx default (DSCP >> 3): rocetune renders no DSCP map command (its syntax is not
  confirmed), so an intent whose DSCPs need another map is refused (capability);
- ``pfc``: ``dcb priority-flow-control enable force``, ``... priority N enable`` per lossless
  priority, ``mode on force`` per port; with ``buffers`` the lossless ``traffic pool roce``
  mapped to the lossless priorities (Onyx sizes the PFC headroom itself);
- ``scheduling``: ``traffic-class T dcb ets wrr W`` / ``strict``;
- ``ecn``: ``traffic-class T congestion-control ecn minimum-absolute A maximum-absolute B``
  on each lossless TC, in KB (1000 bytes, rounded to the nearest KB, at least 1);
- ``link``: ``mtu M force``.

The PFC watchdog is not rendered: its Onyx syntax is not confirmed (the target's watchdog
is listed as a note). Port names: ``Eth1/1`` -> ``interface ethernet 1/1``.
"""

from __future__ import annotations

from typing import Any

from rocetune.platforms.spec import Output, RenderSpec
from rocetune.tune.target import DeviceTarget, PortTarget

KB = 1000
_SECTIONS: dict[str, frozenset[str]] = {
    "classification": frozenset({"classification"}),
    "pfc": frozenset({"pfc", "buffers"}),
    "scheduling": frozenset({"scheduling"}),
    "ecn": frozenset({"ecn"}),
    "link": frozenset({"link"}),
}
POOL = "roce"


def cli_port(name: str) -> str:
    """``Eth1/1/2`` -> ``1/1/2`` (templates write ``interface ethernet 1/1/2``)."""
    return name[3:] if name.startswith("Eth") else name


def kilobytes(value: int) -> int:
    """Bytes -> whole KB (nearest, at least 1)."""
    return max(1, round(value / KB))


def sections(features: frozenset[str]) -> list[str]:
    """Feature templates to include, in their fixed order."""
    return [name for name, wanted in _SECTIONS.items() if wanted & features]


def _reasons(port: PortTarget, whats: tuple[str, ...]) -> list[str]:
    return [f"{port.name}: {r.line()}" for r in port.reasons if r.what in whats]


def build_context(t: DeviceTarget, features: frozenset[str], full: bool) -> dict[str, Any]:
    """The context of ``onyx/config.txt.j2``."""
    classes = t.classes
    ports = [
        {
            "cli": cli_port(p.name),
            "mtu": p.mtu,
            "ecn_min": kilobytes(p.ecn.kmin_bytes),
            "ecn_max": kilobytes(p.ecn.kmax_bytes),
            "reasons": _reasons(p, ("ECN Kmin", "ECN Kmax", "MTU")),
        }
        for _, p in sorted(t.ports.items())
    ]
    binds = sorted((tc, prio) for prio, tc in classes.priority_to_tc.items() if tc != prio)
    queues = [
        {"tc": tc, "mode": s.kind, "bw": s.weight_pct}
        for tc, s in sorted(classes.schedulers.items())
    ]
    lossless_tcs = sorted({classes.priority_to_tc[p] for p in classes.lossless})
    notes = list(t.problems)
    notes.append(
        "DSCP map: Onyx keeps its default DSCP >> 3 (no DSCP map is rendered), so DSCPs other "
        "than the RoCE and CNP ones stay in switch priorities 1-7 instead of 0"
    )
    notes.append(
        f"PFC watchdog (detection {t.watchdog.detection_ms:g} ms, restoration "
        f"{t.watchdog.restoration_ms:g} ms, action {t.watchdog.action}) is not rendered for "
        "Onyx: configure it by hand"
    )
    return {
        "device": t.name,
        "hostname": (t.hostname or t.name) if full else None,
        "sections": sections(features),
        "buffers": "buffers" in features,
        "ports": ports,
        "binds": binds,
        "lossless": list(classes.lossless),
        "lossless_tcs": lossless_tcs,
        "queues": queues,
        "pool": POOL,
        "device_reasons": [r.line() for r in t.reasons],
        "comments": notes,
    }


def capability_problems(t: DeviceTarget) -> list[str]:
    """Why Onyx (as rendered) cannot express ``t``; empty when it can."""
    problems = []
    classes = t.classes
    wrong = sorted(d for d, p in classes.dscp_to_priority.items() if p != d >> 3)
    needed = [d for d in wrong if d in classes.roce_dscp or d == classes.cnp_dscp]
    if needed:
        problems.append(
            f"DSCP {needed} need another switch priority than the Onyx default map "
            "(DSCP >> 3), and rocetune renders no Onyx DSCP map"
        )
    odd = sorted(tc for tc, q in classes.tc_to_queue.items() if tc != q)
    if odd:
        problems.append(f"traffic classes {odd} on another queue: Onyx TC N is queue N")
    for port in t.ports.values():
        if port.mtu > 9216:
            problems.append(f"{port.name}: MTU {port.mtu} above the Onyx maximum 9216")
    return problems


RENDER = RenderSpec(
    platform="onyx",
    outputs=(Output("onyx/config.txt.j2", "{device}.onyx.cfg", lintable=True),),
    max_lossless_priorities=8,
    capability=capability_problems,
    build=build_context,
)
"""Onyx enables PFC per priority (``dcb priority-flow-control priority N enable``)."""
