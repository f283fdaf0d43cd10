"""Small helpers shared by the HTML report's context builders (levels, sort keys, ids)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Literal

from rocetune.model import Finding, Severity

Level = Literal["ok", "info", "warning", "error", "unknown"]
"""Colour class of a device, link or cell: its worst finding, ``ok`` without findings,
``unknown`` when it was not checked (not in the model)."""

LEVEL_RANK: dict[Level, int] = {"unknown": -1, "ok": 0, "info": 1, "warning": 2, "error": 3}
SEVERITIES = (Severity.ERROR, Severity.WARNING, Severity.INFO)
SEVERITY_LEVEL: dict[Severity, Level] = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "info",
}


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that puts ``swp2`` before ``swp10`` (digits compare as numbers)."""
    parts = re.split(r"(\d+)", text)
    return tuple((1, int(p)) if i % 2 else (0, p.lower()) for i, p in enumerate(parts))


def worst_level(findings: Iterable[Finding]) -> Level:
    """The level of the most severe finding, ``ok`` when there is none."""
    return max_level(SEVERITY_LEVEL[f.severity] for f in findings)


def max_level(levels: Iterable[Level]) -> Level:
    """The most severe of several levels (``ok`` for none)."""
    best: Level = "ok"
    for level in levels:
        if LEVEL_RANK[level] > LEVEL_RANK[best]:
            best = level
    return best


def dom_id(prefix: str, name: str) -> str:
    """A stable HTML id for ``name``: a readable slug plus a short hash (names may clash
    once slugged, or contain anything at all)."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:40] or "x"
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{prefix}-{slug}-{digest}"


def fmt_bytes(value: int | None) -> str:
    """``190,464 B`` (``-`` when unknown)."""
    return "-" if value is None else f"{value:,} B"


def fmt_speed(mbps: int | None) -> str:
    """``400G``, ``2.5G``, ``100M`` (``?`` when unknown)."""
    if mbps is None:
        return "?"
    if mbps >= 1000:
        return f"{mbps / 1000:g}G"
    return f"{mbps}M"


def fmt_set(values: Iterable[int] | None) -> str:
    """``{3,4}``, ``{}`` when empty, ``?`` when unknown."""
    if values is None:
        return "?"
    return "{" + ",".join(str(v) for v in sorted(set(values))) + "}"
