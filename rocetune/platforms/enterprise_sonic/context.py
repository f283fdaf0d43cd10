"""Shape a device target into sonic-cli configuration for ``templates/enterprise_sonic/``.

One output, ``<device>.esonic.cfg``: sonic-cli configuration lines in the form ``show
running-configuration`` prints them (``!`` between blocks, one-space bodies), to paste into
``configure terminal``. It parses with the enterprise_sonic driver (the round trip).
Objects are named ``ROCETUNE`` (``ROCETUNE-<speed>`` for the WRED policy, whose thresholds
scale with the port speed):

- ``classification``: ``qos map dscp-tc`` (every DSCP, grouped by traffic class into
  ranges), ``qos map tc-queue``, ``qos map tc-pg``, ``qos map pfc-priority-queue`` and
  ``qos map pfc-priority-pg`` (the priority -> TC -> queue/PG chain), bound per port with
  ``qos-map <kind> ROCETUNE``;
- ``pfc``: ``priority-flow-control priority N`` per lossless priority. Buffers are not
  rendered: Enterprise SONiC creates the lossless PG profiles from the platform's defaults
  at ``buffer init lossless`` / ``roce enable`` (a reboot), so the file says so in a comment;
- ``scheduling``: ``qos scheduler-policy ROCETUNE`` with ``queue N`` / ``type dwrr|strict``
  / ``weight W``, bound with ``scheduler-policy ROCETUNE``;
- ``ecn``: ``qos wred-policy ROCETUNE-<speed>`` with ``green minimum-threshold A
  maximum-threshold B drop-probability P`` (KBytes of 1000 B, rounded to the nearest KByte)
  and ``ecn green``, bound with ``queue Q wred-policy ...`` on the lossless queues;
- ``watchdog``: ``priority-flow-control watchdog polling-interval MS`` and per port
  ``priority-flow-control watchdog action A``, ``... on detect-time MS``, ``... restore-time
  MS``;
- interfaces (always), with ``link``: ``mtu N``.

Capability: the Broadcom RoCE HLD supports two lossless priorities, on PG/queue 3 and 4.
"""

from __future__ import annotations

from typing import Any

from rocetune.platforms.spec import Output, RenderSpec
from rocetune.tune.target import DeviceTarget, PortTarget

NAME = "ROCETUNE"
LOSSLESS_QUEUES = frozenset({3, 4})
"""PGs and queues Enterprise SONiC can make lossless (SONiC RoCEv2 HLD, 2.2.2.7/2.2.2.8)."""
_ACTIONS = {"drop": "drop", "forward": "forward", "alert": "alert"}
_FEATURES: dict[str, frozenset[str]] = {
    "classification": frozenset({"classification"}),
    "pfc": frozenset({"pfc", "buffers"}),
    "scheduling": frozenset({"scheduling"}),
    "ecn": frozenset({"ecn"}),
    "watchdog": frozenset({"watchdog"}),
}


def ranges(values: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``0-2,5``."""
    out: list[str] = []
    start = prev = None
    for value in sorted(values):
        if prev is not None and value == prev + 1:
            prev = value
            continue
        if start is not None:
            out.append(f"{start}-{prev}" if start != prev else str(start))
        start = prev = value
    if start is not None:
        out.append(f"{start}-{prev}" if start != prev else str(start))
    return ",".join(out)


def kbytes(value: int) -> int:
    """Bytes -> the nearest whole KByte (1000 B) sonic-cli takes."""
    return max(1, round(value / 1000))


def speed_word(mbps: int) -> str:
    """``400G`` (policy names)."""
    return f"{mbps // 1000}G" if mbps % 1000 == 0 else f"{mbps}M"


def _by_value(mapping: dict[int, int]) -> list[dict[str, Any]]:
    groups: dict[int, list[int]] = {}
    for key, value in sorted(mapping.items()):
        groups.setdefault(value, []).append(key)
    return [{"ids": ranges(keys), "value": value} for value, keys in sorted(groups.items())]


def _reasons(port: PortTarget, whats: tuple[str, ...]) -> list[str]:
    return [f"{port.name}: {r.line()}" for r in port.reasons if r.what in whats]


def _wred(t: DeviceTarget) -> tuple[list[dict[str, Any]], dict[str, str]]:
    policies: dict[int, dict[str, Any]] = {}
    of_port: dict[str, str] = {}
    for port in t.ports.values():
        name = f"{NAME}-{speed_word(port.speed_mbps)}"
        of_port[port.name] = name
        if port.speed_mbps not in policies:
            ecn = port.ecn
            policies[port.speed_mbps] = {
                "name": name,
                "min": kbytes(ecn.kmin_bytes),
                "max": kbytes(ecn.kmax_bytes),
                "probability": ecn.probability_pct,
                "reasons": _reasons(port, ("ECN Kmin", "ECN Kmax", "ECN Pmax")),
            }
    return [policies[s] for s in sorted(policies)], of_port


def build_context(t: DeviceTarget, features: frozenset[str], full: bool) -> dict[str, Any]:
    """The context of ``enterprise_sonic/config.txt.j2``."""
    classes = t.classes
    to_tc = classes.priority_to_tc
    wd = t.watchdog
    wred, wred_of = _wred(t)
    on = {name for name, wanted in _FEATURES.items() if wanted & features}
    return {
        "device": t.name,
        "hostname": (t.hostname or t.name) if full else None,
        "on": sorted(on),
        "link": "link" in features,
        "name": NAME,
        "dscp_tc": _by_value({d: to_tc[p] for d, p in classes.dscp_to_priority.items()}),
        "tc_queue": _by_value(classes.tc_to_queue),
        "tc_pg": _by_value(classes.tc_to_pg),
        "prio_queue": _by_value({p: classes.tc_to_queue[tc] for p, tc in to_tc.items()}),
        "prio_pg": _by_value({p: classes.tc_to_pg[tc] for p, tc in to_tc.items()}),
        "lossless": list(classes.lossless),
        "lossless_queues": sorted({classes.tc_to_queue[to_tc[p]] for p in classes.lossless}),
        "queues": [
            {"queue": classes.tc_to_queue[tc], "kind": s.kind, "weight": s.weight_pct}
            for tc, s in sorted(classes.schedulers.items(), key=lambda kv: kv[0])
        ],
        "wred": wred,
        "wred_of": wred_of,
        "ports": [{"name": p.name, "mtu": p.mtu} for p in t.ports.values()],
        "watchdog": {
            "detect": round(wd.detection_ms),
            "restore": round(wd.restoration_ms),
            "poll": round(wd.poll_ms),
            "action": _ACTIONS.get(wd.action, "drop"),
        },
        "device_reasons": [r.line() for r in t.reasons],
        "comments": list(t.problems),
    }


def capability_problems(t: DeviceTarget) -> list[str]:
    """Why Enterprise SONiC (as rendered) cannot express ``t``; empty when it can."""
    classes = t.classes
    problems = []
    pgs = {classes.tc_to_pg[classes.priority_to_tc[p]] for p in classes.lossless}
    queues = {classes.tc_to_queue[classes.priority_to_tc[p]] for p in classes.lossless}
    if not (pgs | queues) <= LOSSLESS_QUEUES:
        problems.append(
            "lossless PGs/queues "
            f"{sorted(pgs | queues)}: Enterprise SONiC makes only PG/queue 3 and 4 lossless"
        )
    if t.watchdog.action not in _ACTIONS:
        problems.append(f"PFC watchdog action {t.watchdog.action!r} has no sonic-cli keyword")
    return problems


RENDER = RenderSpec(
    platform="enterprise_sonic",
    outputs=(Output("enterprise_sonic/config.txt.j2", "{device}.esonic.cfg", lintable=True),),
    max_lossless_priorities=2,
    capability=capability_problems,
    build=build_context,
)
"""Two lossless priorities (SONiC RoCEv2 HLD 1.1.1: "Support 2 lossless priorities")."""
