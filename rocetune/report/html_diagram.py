"""Lay out the fabric diagram of the HTML report: devices in tiers, links between them.

Tiers by role, top to bottom: core (superspine), spine, leaf (tor, border), other, host. A
device that could not be read keeps the tier of its inventory role; a device without a
known role that is cabled to a host is a leaf; only what none of this places (a switch with
an unknown role, a link peer outside the inventory) is drawn under ``other``. Inside a tier
devices are ordered by the mean position of their neighbours in the tiers above (fewer
crossings), peers of the same tier side by side, then by natural name order, so the layout
is deterministic. A link between two devices of one tier (an MLAG/vPC peer link, a
spine-spine link) is a peer link: drawn straight between the two boxes when they are
neighbours, as an arch over the tier otherwise. Coordinates are SVG user units.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rocetune.report.html_common import Level, dom_id, natural_key

NODE_W = 168
NODE_H = 62
GAP_X = 32
TIER_GAP = 140
MARGIN = 24
LABEL_W = 64
MAX_LABEL = 18
SCALE = 1.25
"""Displayed size / user units: the diagram is drawn a little larger than its coordinates."""

TIERS = ("core", "spine", "leaf", "other", "host")
_ROLE_TIER = {
    "superspine": "core",
    "super-spine": "core",
    "core": "core",
    "spine": "spine",
    "leaf": "leaf",
    "tor": "leaf",
    "border": "leaf",
    "border-leaf": "leaf",
    "host": "host",
    "server": "host",
    "gpu": "host",
}


@dataclass(frozen=True)
class NodeSpec:
    """What the layout needs to know about a device."""

    name: str
    role: str | None
    kind: str | None
    level: Level
    subtitle: str
    counts: str
    tooltip: str


@dataclass(frozen=True)
class EdgeSpec:
    """A link between two devices."""

    a: str
    b: str
    label: str
    level: Level
    tooltip: str


@dataclass(frozen=True)
class Node:
    """A placed device box."""

    name: str
    label: str
    dom_id: str
    tier: str
    x: int
    y: int
    level: Level
    subtitle: str
    counts: str
    tooltip: str

    @property
    def cx(self) -> int:
        """Horizontal centre."""
        return self.x + NODE_W // 2


@dataclass(frozen=True)
class Edge:
    """A placed link: an SVG path; ``kind`` ``peer`` between two devices of one tier."""

    label: str
    dom_id: str
    path: str
    level: Level
    tooltip: str
    kind: Literal["uplink", "peer"] = "uplink"


@dataclass(frozen=True)
class TierLabel:
    """The name of a tier at the left edge."""

    name: str
    y: int


@dataclass(frozen=True)
class Diagram:
    """Everything the SVG template draws."""

    width: int
    height: int
    node_w: int
    node_h: int
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    tiers: tuple[TierLabel, ...]

    @property
    def node_cx(self) -> int:
        """Horizontal centre inside a node box."""
        return self.node_w // 2

    @property
    def display_width(self) -> int:
        """Width of the drawing on the page (CSS shrinks it to fit narrower windows)."""
        return round(self.width * SCALE)

    @property
    def display_height(self) -> int:
        """Height of the drawing on the page."""
        return round(self.height * SCALE)


def tier_of(role: str | None, kind: str | None) -> str:
    """The tier of a device from its role (then its kind); ``other`` when neither says."""
    tier = _ROLE_TIER.get((role or "").strip().lower())
    if tier is not None:
        return tier
    return "host" if kind == "host" else "other"


def _tiers(specs: Sequence[NodeSpec], adj: dict[str, set[str]]) -> dict[str, str]:
    """Every device's tier: by role or kind; a device neither places but that is cabled to
    a host is a leaf (a switch whose role is not declared, an unread link peer)."""
    tiers = {s.name: tier_of(s.role, s.kind) for s in specs}
    for name, tier in tiers.items():
        if tier == "other" and any(tiers.get(n) == "host" for n in adj.get(name, ())):
            tiers[name] = "leaf"
    return tiers


def _short(name: str) -> str:
    return name if len(name) <= MAX_LABEL else name[: MAX_LABEL - 1] + "…"


def _order(specs: Sequence[NodeSpec], edges: Sequence[EdgeSpec]) -> list[tuple[str, list[str]]]:
    adj: dict[str, set[str]] = {}
    for e in edges:
        adj.setdefault(e.a, set()).add(e.b)
        adj.setdefault(e.b, set()).add(e.a)
    tiers = _tiers(specs, adj)
    by_tier: dict[str, list[str]] = {}
    for s in specs:
        by_tier.setdefault(tiers[s.name], []).append(s.name)
    placed: dict[str, float] = {}
    rows = []
    for tier in TIERS:
        names = by_tier.get(tier)
        if not names:
            continue

        def key(n: str) -> tuple[float, tuple[tuple[int, int | str], ...]]:
            pos = [placed[m] for m in adj.get(n, ()) if m in placed]
            return (sum(pos) / len(pos) if pos else math.inf, natural_key(n))

        row = _peers_together(sorted(names, key=key), adj)
        placed.update({n: (i + 0.5) / len(row) for i, n in enumerate(row)})
        rows.append((tier, row))
    return rows


def _peers_together(row: list[str], adj: dict[str, set[str]]) -> list[str]:
    """``row`` with each device's same-tier peer moved next to it (first peer wins)."""
    out: list[str] = []
    for name in row:
        if name in out:
            continue
        out.append(name)
        out.extend(p for p in row if p in adj.get(name, ()) and p not in out)
    return out


def _lanes(row: Sequence[Node]) -> list[int]:
    """x of the free lanes of a tier: left of, between and right of its boxes."""
    return [row[0].x - GAP_X // 2] + [n.x + NODE_W + GAP_X // 2 for n in row]


def _waypoints(
    top: Node, bottom: Node, rows: dict[int, list[Node]], offset: int
) -> list[tuple[int, int]]:
    """From the bottom of ``top`` to the top of ``bottom``, through a free lane of every
    tier in between (so a link never runs behind a box it does not connect)."""
    x1, x2 = top.cx + offset, bottom.cx + offset
    points = [(x1, top.y + NODE_H)]
    between = sorted(y for y in rows if top.y < y < bottom.y)
    for k, y in enumerate(between, 1):
        ideal = x1 + (x2 - x1) * k / (len(between) + 1)
        lane = min(_lanes(rows[y]), key=lambda g: (abs(g - ideal), g)) + offset
        points += [(lane, y - 8), (lane, y + NODE_H + 8)]
    points.append((x2, bottom.y))
    return points


def _smooth(points: Sequence[tuple[int, int]]) -> str:
    """An SVG path through ``points``: vertical runs straight, the rest as S-curves."""
    x, y = points[0]
    parts = [f"M {x} {y}"]
    for nx, ny in points[1:]:
        if nx == x:
            parts.append(f"L {nx} {ny}")
        else:
            mid = (y + ny) // 2
            parts.append(f"C {x} {mid}, {nx} {mid}, {nx} {ny}")
        x, y = nx, ny
    return " ".join(parts)


def _peer_path(a: Node, b: Node, offset: int, adjacent: bool) -> str:
    """A peer link: straight between the facing sides of neighbours, else an arch over
    the tier (it never runs through the boxes between them)."""
    lo, hi = (a, b) if a.x < b.x else (b, a)
    if adjacent:
        y = lo.y + NODE_H // 2 + offset
        return f"M {lo.x + NODE_W} {y} L {hi.x} {y}"
    y = lo.y
    return (
        f"M {lo.cx + offset} {y} C {lo.cx + offset} {y - 40}, "
        f"{hi.cx + offset} {y - 40}, {hi.cx + offset} {y}"
    )


def _edge_path(a: Node, b: Node, offset: int, rows: dict[int, list[Node]]) -> str:
    top, bottom = (a, b) if a.y < b.y else (b, a)
    return _smooth(_waypoints(top, bottom, rows, offset))


def _edges(edges: Iterable[EdgeSpec], nodes: dict[str, Node]) -> tuple[Edge, ...]:
    rows: dict[int, list[Node]] = {}
    for n in sorted(nodes.values(), key=lambda n: n.x):
        rows.setdefault(n.y, []).append(n)
    pairs: dict[frozenset[str], list[EdgeSpec]] = {}
    for e in edges:
        pairs.setdefault(frozenset((e.a, e.b)), []).append(e)
    out = []
    for group in pairs.values():
        for i, e in enumerate(group):
            a, b = nodes.get(e.a), nodes.get(e.b)
            if a is None or b is None:
                continue
            kind: Literal["uplink", "peer"]
            if a.y == b.y:
                row = rows[a.y]
                adjacent = abs(row.index(a) - row.index(b)) == 1
                offset = (2 * i - (len(group) - 1)) * 6
                path, kind = _peer_path(a, b, offset, adjacent), "peer"
            else:
                offset = (2 * i - (len(group) - 1)) * 5
                path, kind = _edge_path(a, b, offset, rows), "uplink"
            out.append(Edge(e.label, dom_id("edge", e.label), path, e.level, e.tooltip, kind))
    return tuple(out)


def build_diagram(specs: Sequence[NodeSpec], edges: Sequence[EdgeSpec]) -> Diagram:
    """Place ``specs`` in tiers and route ``edges`` between them."""
    rows = _order(specs, edges)
    by_name = {s.name: s for s in specs}
    widest = max((len(r) for _, r in rows), default=1)
    content = widest * (NODE_W + GAP_X) - GAP_X
    width = LABEL_W + 2 * MARGIN + content
    nodes: dict[str, Node] = {}
    labels = []
    for t, (tier, row) in enumerate(rows):
        y = MARGIN + t * TIER_GAP
        x0 = LABEL_W + MARGIN + (content - (len(row) * (NODE_W + GAP_X) - GAP_X)) // 2
        labels.append(TierLabel(tier, y + NODE_H // 2))
        for i, name in enumerate(row):
            s = by_name[name]
            nodes[name] = Node(
                name=name,
                label=_short(name),
                dom_id=dom_id("node", name),
                tier=tier,
                x=x0 + i * (NODE_W + GAP_X),
                y=y,
                level=s.level,
                subtitle=s.subtitle,
                counts=s.counts,
                tooltip=s.tooltip,
            )
    height = 2 * MARGIN + max(len(rows) - 1, 0) * TIER_GAP + NODE_H + 28
    order = [n for _, row in rows for n in row]
    return Diagram(
        width=width,
        height=height,
        node_w=NODE_W,
        node_h=NODE_H,
        nodes=tuple(nodes[n] for n in order),
        edges=_edges(edges, nodes),
        tiers=tuple(labels),
    )
