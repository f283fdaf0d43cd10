"""Shape a device target into NVUE data for ``templates/cumulus/``.

Two outputs with the same content: ``<device>.nvue.yaml`` (a list of ``set``/``unset``
revision items for ``nv config patch``, the shape ``nv config show -o yaml`` prints) and
``apply/<device>.nv-set.txt`` (``nv set`` commands, one per line). Both carry the reasons as
``#`` comments.

The render uses explicit profiles instead of the ``qos roce`` macro (a full render unsets it):
``qos roce`` maps DSCP by ``dscp >> 3`` and sizes headroom for one cable length, and its
``roce-lossless`` pool would sit next to the explicit lossless pool. Profiles:

- ``qos mapping default-global``: trust l3 and all 64 DSCPs (grouped by switch priority);
- ``qos pfc roce-pfc-<speed>-<cable>m`` per speed and cable length: the lossless switch
  priorities, rx/tx, ``cable-length``, ``port-buffer`` = size, ``xoff-threshold``,
  ``xon-threshold`` (NVUE keeps one lossless PG per port, shared by every lossless priority);
- ``qos traffic-pool default-lossless``/``default-lossy``: 50/50 (full render only);
- ``qos congestion-control roce-ecn-<speed>`` on the lossless traffic classes;
- ``qos egress-scheduler roce-ets``: the ETS plan (a custom profile holds only its TCs);
- ``qos pfc-watchdog``: polling-interval = restoration time, robustness = detection /
  restoration (NVUE detects after ``robustness`` polls: S2), enabled per port.

Interfaces are grouped by identical settings and written as NVUE ranges (``swp1-16,swp31-32``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from rocetune.platforms.spec import Output, RenderSpec
from rocetune.tune.target import DeviceTarget, PortTarget

POOL_PERCENT = 50
"""Share of the buffer for the lossless traffic pool (rocetune default; NVUE documents none)."""
_NUMBERED = re.compile(r"^(.*?)(\d+)$")
_SECTION_FEATURES: dict[str, frozenset[str]] = {
    "base": frozenset(),
    "link": frozenset({"link"}),
    "classification": frozenset({"classification"}),
    "pfc": frozenset({"pfc", "buffers"}),
    "pools": frozenset(),
    "ecn": frozenset({"ecn"}),
    "scheduling": frozenset({"scheduling"}),
    "watchdog": frozenset({"watchdog"}),
}
"""Template section -> the neutral features that select it; empty = full render only."""


def compact(ids: Iterable[int]) -> str:
    """``0-25,27-47,49-63`` for a set of numbers."""
    values = sorted(set(ids))
    runs: list[str] = []
    start = prev = values[0]
    for v in [*values[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ",".join(runs)


def port_list(names: Iterable[str]) -> str:
    """``swp1-16,swp31-32`` (runs of numbered names with the same prefix)."""
    groups: dict[str, list[int]] = {}
    plain: list[str] = []
    for name in names:
        m = _NUMBERED.match(name)
        if m is None:
            plain.append(name)
        else:
            groups.setdefault(m.group(1), []).append(int(m.group(2)))
    parts = [
        ",".join(f"{prefix}{run}" for run in compact(nums).split(","))
        for prefix, nums in sorted(groups.items())
    ]
    return ",".join([*parts, *sorted(plain)])


def speed_text(mbps: int) -> str:
    """``400G`` (NVUE link speed)."""
    return f"{mbps // 1000}G" if mbps % 1000 == 0 else f"{mbps}M"


def _grouped(
    ports: Iterable[PortTarget], key: Callable[[PortTarget], Any]
) -> list[tuple[Any, list[PortTarget]]]:
    out: dict[Any, list[PortTarget]] = {}
    for p in ports:
        out.setdefault(key(p), []).append(p)
    return sorted(out.items(), key=lambda kv: str(kv[0]))


def _reason_lines(port: PortTarget, whats: tuple[str, ...]) -> list[str]:
    return [f"{port.name}: {r.line()}" for r in port.reasons if r.what in whats]


def _pfc(t: DeviceTarget) -> list[dict[str, Any]]:
    out = []
    for (speed, cable), group in _grouped(t.ports.values(), lambda p: (p.speed_mbps, p.cable_m)):
        hr = group[0].headroom
        out.append(
            {
                "name": f"roce-pfc-{speed_text(speed).lower()}-{cable:g}m",
                "priorities": compact(t.classes.lossless),
                "cable": f"{cable:g}",
                "port_buffer": hr.size,
                "xoff": hr.xoff,
                "xon": hr.xon,
                "ports": port_list(p.name for p in group),
                "reasons": _reason_lines(
                    group[0],
                    ("lossless PG xoff", "lossless PG xon", "lossless PG size", "cable length"),
                ),
            }
        )
    return out


def _ecn(t: DeviceTarget) -> list[dict[str, Any]]:
    out = []
    for speed, group in _grouped(t.ports.values(), lambda p: p.speed_mbps):
        e = group[0].ecn
        out.append(
            {
                "name": f"roce-ecn-{speed_text(speed).lower()}",
                "tcs": compact(t.classes.lossless),
                "min": e.kmin_bytes,
                "max": e.kmax_bytes,
                "probability": e.probability_pct,
                "ports": port_list(p.name for p in group),
                "reasons": _reason_lines(group[0], ("ECN Kmin", "ECN Kmax", "ECN Pmax")),
            }
        )
    return out


def _classification(t: DeviceTarget) -> list[dict[str, Any]]:
    by_sp: dict[int, list[int]] = {}
    for dscp, sp in t.classes.dscp_to_priority.items():
        by_sp.setdefault(sp, []).append(dscp)
    return [{"dscps": compact(d), "sp": sp} for sp, d in sorted(by_sp.items())]


def _scheduler(t: DeviceTarget) -> list[dict[str, Any]]:
    return [
        {"tc": tc, "mode": s.kind, "bw": s.weight_pct}
        for tc, s in sorted(t.classes.schedulers.items())
    ]


def _pools(t: DeviceTarget) -> list[dict[str, Any]]:
    lossless = set(t.classes.lossless)
    return [
        {"name": "default-lossless", "percent": POOL_PERCENT, "sps": compact(lossless)},
        {
            "name": "default-lossy",
            "percent": 100 - POOL_PERCENT,
            "sps": compact(set(range(8)) - lossless),
        },
    ]


def sections(features: frozenset[str], full: bool) -> list[str]:
    """Template sections to include, in their fixed order."""
    return [
        name
        for name, wanted in _SECTION_FEATURES.items()
        if (full and (wanted & features or not wanted)) or (not full and wanted & features)
    ]


def build_context(t: DeviceTarget, features: frozenset[str], full: bool) -> dict[str, Any]:
    """The context of ``nvue.yaml.j2`` and ``nv_set.txt.j2``."""
    wd = t.watchdog
    links = _grouped(t.ports.values(), lambda p: (p.mtu, p.speed_mbps))
    every = port_list(t.ports)
    return {
        "device": t.name,
        "hostname": t.hostname or t.name,
        "sections": sections(features, full),
        "links": [
            {"ports": port_list(p.name for p in g), "mtu": mtu, "speed": speed_text(speed)}
            for (mtu, speed), g in links
        ],
        "dscp_groups": _classification(t),
        "pfc_profiles": _pfc(t),
        "pools": _pools(t),
        "ecn_profiles": _ecn(t),
        "scheduler": {"name": "roce-ets", "classes": _scheduler(t), "ports": every},
        "watchdog": {
            "poll": f"{wd.restoration_ms:g}",
            "robustness": round(wd.detection_ms / wd.restoration_ms),
            "ports": every,
        },
        "device_reasons": [r.line() for r in t.reasons],
    }


def capability_problems(t: DeviceTarget) -> list[str]:
    """Why NVUE cannot express ``t``; empty when it can."""
    wd = t.watchdog
    problems = []
    ratio = wd.detection_ms / wd.restoration_ms
    if ratio < 1 or abs(ratio - round(ratio)) > 1e-9 or wd.restoration_ms != int(wd.restoration_ms):
        problems.append(
            f"PFC watchdog detection {wd.detection_ms:g} ms must be a whole multiple of the "
            f"restoration time {wd.restoration_ms:g} ms (NVUE: detection = polling-interval x "
            "robustness, restoration = one polling interval)"
        )
    if wd.action != "drop":
        problems.append(f"PFC watchdog action {wd.action!r}: NVUE's watchdog always drops")
    return problems


RENDER = RenderSpec(
    platform="cumulus",
    outputs=(
        Output("cumulus/nvue.yaml.j2", "{device}.nvue.yaml", lintable=True),
        Output("cumulus/nv_set.txt.j2", "apply/{device}.nv-set.txt"),
    ),
    max_lossless_priorities=8,
    capability=capability_problems,
    build=build_context,
)
"""NVUE takes several lossless switch priorities in one PFC profile (one lossless PG/pool)."""
