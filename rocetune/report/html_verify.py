"""The HTML report's "Verification" section: a bandwidth chart per pair and a results table.

The chart has one horizontal bar per bandwidth test, its length the percentage of the
line rate (an axis shared by every pair, whatever its speed), with a solid line at 100 %
(line rate) and a dashed one at the intent's threshold (``min_bandwidth_fraction``).
Coordinates are SVG user units, formatted here; nothing depends on anything but the input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rocetune.report.html_common import Level

if TYPE_CHECKING:
    from rocetune.model import PairResult

LABEL_W = 250
CHART_W = 460
VALUE_W = 190
ROW_H = 28
BAR_H = 18
TOP = 28
BOTTOM = 12
AXIS_STEP = 25
"""The axis ends at the first multiple of this (percent) at or above 100 and every bar."""

_VERDICT_LEVEL: dict[str, Level] = {
    "pass": "ok",
    "low": "error",
    "impossible": "error",  # RT903 perftest-sanity: an error, red like any other
    "high": "error",
    "failed": "error",
    "no result": "unknown",
}


@dataclass(frozen=True)
class Bar:
    """One pair's bandwidth bar (``width`` 0 when there is no percentage to draw)."""

    label: str
    level: Level
    y: str
    text_y: str
    width: str
    value: str
    tooltip: str


@dataclass(frozen=True)
class Tick:
    """An axis mark: x position and its text."""

    x: str
    text: str


@dataclass(frozen=True)
class Chart:
    """The SVG bandwidth chart."""

    width: str
    height: str
    x0: str
    bar_h: str
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]
    line_rate_x: str
    threshold_x: str
    threshold_text: str
    axis_bottom: str


@dataclass(frozen=True)
class VerifyRow:
    """One test of the results table, formatted."""

    client: str
    server: str
    test: str
    bandwidth: str
    line_rate: str
    percent: str
    t_typical: str
    t_avg: str
    verdict: str
    level: Level
    error: str


@dataclass(frozen=True)
class VerifyView:
    """The Verification section."""

    chart: Chart | None
    rows: tuple[VerifyRow, ...]
    threshold: str
    max_latency: str


def _num(value: float) -> str:
    return f"{value:.1f}"


def _opt(value: float | None, unit: str) -> str:
    return "-" if value is None else f"{value:.2f}{unit}"


def axis_max(percents: Sequence[float]) -> float:
    """The axis end in percent: a multiple of AXIS_STEP covering 100 and every bar."""
    top = max([100.0, *percents])
    return float(math.ceil(top / AXIS_STEP) * AXIS_STEP)


def _bar(index: int, r: PairResult, scale: float) -> Bar:
    pct = r.percent_of_line_rate
    y = TOP + index * ROW_H + (ROW_H - BAR_H) / 2
    width = 0.0 if pct is None else pct * scale
    value = (
        _opt(r.bandwidth_gbps, " Gb/s")
        if pct is None
        else (f"{r.bandwidth_gbps:.2f} Gb/s ({pct:.1f}%)")
    )
    if r.verdict == "failed":
        value = "failed"
    rate = "unknown" if r.line_rate_gbps is None else f"{r.line_rate_gbps:g} Gb/s"
    return Bar(
        label=f"{r.client} \u2192 {r.server}",
        level=_VERDICT_LEVEL[r.verdict],
        y=_num(y),
        text_y=_num(y + BAR_H - 4),
        width=_num(width),
        value=value,
        tooltip=f"{r.client} -> {r.server}: {value}, line rate {rate}, {r.verdict}",
    )


def build_chart(results: Sequence[PairResult], min_fraction: float) -> Chart | None:
    """The chart of the bandwidth tests (None when no bandwidth test ran)."""
    bw = [r for r in results if r.test == "bw"]
    if not bw:
        return None
    top = axis_max([p for r in bw if (p := r.percent_of_line_rate) is not None])
    scale = CHART_W / top
    ticks = tuple(
        Tick(_num(LABEL_W + p * scale), f"{p}%") for p in range(0, int(top) + 1, AXIS_STEP)
    )
    bottom = TOP + len(bw) * ROW_H
    return Chart(
        width=_num(LABEL_W + CHART_W + VALUE_W),
        height=_num(bottom + BOTTOM),
        x0=_num(LABEL_W),
        bar_h=_num(BAR_H),
        bars=tuple(_bar(i, r, scale) for i, r in enumerate(bw)),
        ticks=ticks,
        line_rate_x=_num(LABEL_W + 100 * scale),
        threshold_x=_num(LABEL_W + 100 * min_fraction * scale),
        threshold_text=f"{100 * min_fraction:g}%",
        axis_bottom=_num(bottom),
    )


def _row(r: PairResult) -> VerifyRow:
    pct = r.percent_of_line_rate
    return VerifyRow(
        client=r.client,
        server=r.server,
        test=r.test,
        bandwidth=_opt(r.bandwidth_gbps, " Gb/s"),
        line_rate="-" if r.line_rate_gbps is None else f"{r.line_rate_gbps:g} Gb/s",
        percent="-" if pct is None else f"{pct:.1f}%",
        t_typical=_opt(r.t_typical_us, " us"),
        t_avg=_opt(r.t_avg_us, " us"),
        verdict=r.verdict,
        level=_VERDICT_LEVEL[r.verdict],
        error=r.error or "",
    )


def build_verify(
    results: Sequence[PairResult] | None, min_fraction: float, max_latency_us: float
) -> VerifyView | None:
    """The section's data; None when no verification ran (the section is left out)."""
    if results is None:
        return None
    return VerifyView(
        chart=build_chart(results, min_fraction),
        rows=tuple(_row(r) for r in results),
        threshold=f"{100 * min_fraction:g}%",
        max_latency=f"{max_latency_us:g} us",
    )
