"""RT708 pfc-deadlock-risk: lossless links that break up-down routing (roce-knowledge.md §4.2).

Method (linear in devices V plus links E):

1. **Tiers.** A switch's tier is the index of its ``role`` in the rule option ``tier_order``
   (default host < leaf/tor < spine < super-spine); hosts are tier of ``host``. With
   ``infer_tiers`` (default on) a switch without a known role gets 1 + the lowest tier among
   its neighbours, by a breadth-first pass that visits tiers in increasing order (a bucket
   queue: O(V + E)). Switches whose tier stays unknown are reported as missing data and their
   links are skipped.
2. **Lossless links.** A switch-switch link is lossless when PFC is on (rx and tx) for an
   intent lossless priority at both ends. Hosts never forward, so links to hosts cannot be
   part of a cyclic buffer dependency and are skipped. O(E).
3. **Why same-tier links only.** A lossless link between different tiers is an up/down
   link. Orient every such link upwards: tiers strictly increase along it, so the up-links
   form a DAG and an up*-down* route can never close a wait-for cycle. Any cyclic buffer
   dependency therefore needs a same-tier (sideways) lossless link, and every such link is
   reported (O(E)).
4. **The loop.** A spanning forest of the lossless link graph is built by a 0-1 BFS that
   prefers up/down links (weight 0) over same-tier links (weight 1), O(V + E). A same-tier
   link outside the forest closes the loop formed by the forest path between its ends plus
   itself; the path is walked up from both ends, at most ``max_cycle_hops`` steps each, so
   naming a loop costs O(1) per link. Same-tier links in the forest are classified by a
   bridge search (iterative Tarjan low-link, O(V + E)): on a loop or not.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from pydantic import Field

from rocetune.checks._chain import options_of
from rocetune.checks.base import CheckContext, Issue, Missing, Result, Rule, RuleMeta, RuleOptions
from rocetune.checks.helpers import (
    PortLike,
    lossless_priorities,
    missing_pfc,
    pfc_path,
    resolve_link,
)
from rocetune.checks.memo import per_device, stable
from rocetune.model import Device, Fabric, Link, Severity

DEFAULT_TIERS: tuple[tuple[str, ...], ...] = (
    ("host", "server"),
    ("leaf", "tor", "border-leaf"),
    ("spine",),
    ("super-spine", "superspine"),
)


class PfcDeadlockRiskOptions(RuleOptions):
    """Options of RT708."""

    tier_order: tuple[str | tuple[str, ...], ...] = DEFAULT_TIERS
    """Roles from the lowest tier to the highest; an entry may list several role names."""
    infer_tiers: bool = True
    """Give a switch without a known role the tier above its lowest neighbour."""
    max_cycle_hops: int = Field(default=8, ge=2, le=64)
    """How many hops of a loop to name from each end of the closing link."""


@dataclass
class _Graph:
    """The lossless switch-switch link graph."""

    adj: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)
    """device -> (neighbour, weight 0 up/down or 1 same-tier, edge index)."""
    edges: list[tuple[Link, frozenset[int], PortLike]] = field(default_factory=list)
    """(link, lossless priorities on it, the port at end a)."""
    risky: list[int] = field(default_factory=list)

    def add(self, link: Link, prios: frozenset[int], port: PortLike, weight: int) -> None:
        i = len(self.edges)
        self.edges.append((link, prios, port))
        self.adj.setdefault(link.a.device, []).append((link.b.device, weight, i))
        self.adj.setdefault(link.b.device, []).append((link.a.device, weight, i))
        if weight:
            self.risky.append(i)


class PfcDeadlockRisk(Rule):
    """RT708: lossless class on links that break up-down routing."""

    meta = RuleMeta(
        code="RT708",
        name="pfc-deadlock-risk",
        severity=Severity.WARNING,
        scope="fabric",
        summary="lossless class on links that break up-down routing (same-tier links, loops"
        " between tiers): a cyclic buffer dependency is possible",
        tags=("pfc", "deadlock", "fabric"),
        features=("pfc",),
    )
    options_model = PfcDeadlockRiskOptions

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Classify lossless switch-switch links by tier; report same-tier ones and loops."""
        opts = options_of(ctx, PfcDeadlockRiskOptions)
        keep = stable(ctx.fabric.devices, _switch_or_kind)
        if keep is None:
            yield from _risks(ctx, opts)
            return
        # a plan's re-check of a replayed host (or of the audited fabric again): the result
        # reads every switch, the kind and role of every device, the links and the intent
        what = ("RT708", tuple(opts.tier_order), opts.infer_tiers, opts.max_cycle_hops)
        inputs = (keep, ctx.fabric.links, ctx.intent)
        yield from per_device(what, inputs, lambda: list(_risks(ctx, opts)))


def _switch_or_kind(dev: Device) -> object:
    """What :func:`_risks` reads of a device: a switch whole, the kind and role of others."""
    return (dev.kind, dev.role, dev if dev.kind == "switch" else None)


def _risks(ctx: CheckContext, opts: PfcDeadlockRiskOptions) -> Iterator[Result]:
    """:meth:`PfcDeadlockRisk.run` over ``ctx``'s fabric."""
    tiers, names = _tiers(ctx, opts)
    graph = _Graph()
    for link in ctx.fabric.links:
        yield from _classify(link, ctx, tiers, graph)
    if not graph.risky:
        return
    parent = _forest(graph)
    on_loop = _non_bridges(graph)
    for i in graph.risky:
        link, prios, port = graph.edges[i]
        u, v = link.a.device, link.b.device
        tree = parent.get(v, (None, -1))[1] == i or parent.get(u, (None, -1))[1] == i
        if not tree:
            loop = "it closes the loop " + _loop(parent, u, v, opts.max_cycle_hops)
        elif i in on_loop:
            loop = "it lies on a loop of lossless links"
        else:
            loop = "it closes no loop of lossless links yet, but any further lossless path"
            loop += " between its two ends would"
        yield _issue(link, prios, port, names.get(tiers[u], f"tier {tiers[u]}"), loop)


def _tiers(ctx: CheckContext, opts: PfcDeadlockRiskOptions) -> _TierMap:
    """:func:`tier_map`, kept for a plan's audited fabric and shared with its replays whose
    replaced device keeps its kind and role (rocetune.checks.memo.stable)."""
    fabric = ctx.fabric
    keep = stable(fabric.devices, _kind_role)
    if keep is None:
        return tier_map(fabric, opts)
    what = ("RT708 tiers", tuple(opts.tier_order), opts.infer_tiers)
    return per_device(what, (keep, fabric.links), lambda: tier_map(fabric, opts))


_TierMap = tuple[dict[str, int], dict[int, str]]


def _kind_role(dev: Device) -> object:
    return (dev.kind, dev.role)


def tier_map(fabric: Fabric, opts: PfcDeadlockRiskOptions) -> tuple[dict[str, int], dict[int, str]]:
    """Tier of every device whose tier is known or can be inferred; tier index -> name."""
    order = [(e,) if isinstance(e, str) else e for e in opts.tier_order]
    by_role = {r.lower(): t for t, roles in enumerate(order) for r in roles}
    names = {t: roles[0] for t, roles in enumerate(order) if roles}
    host_tier = by_role.get("host", -1)
    tiers: dict[str, int] = {}
    for dev in fabric.devices.values():
        if dev.kind == "host":
            tiers[dev.name] = host_tier
        elif dev.role is not None and dev.role.lower() in by_role:
            tiers[dev.name] = by_role[dev.role.lower()]
    if opts.infer_tiers:
        _infer(fabric, tiers)
    return tiers, names


def _infer(fabric: Fabric, tiers: dict[str, int]) -> None:
    """Bucket-queue BFS: an unknown switch gets 1 + the lowest tier next to it."""
    adj: dict[str, list[str]] = {}
    for link in fabric.links:
        a, b = link.a.device, link.b.device
        if a in fabric.devices and b in fabric.devices and a != b:
            adj.setdefault(a, []).append(b)
            adj.setdefault(b, []).append(a)
    buckets: dict[int, list[str]] = {}
    for name, tier in tiers.items():
        buckets.setdefault(tier, []).append(name)
    level = min(buckets, default=0)
    top = max(buckets, default=0)
    while level <= top:
        for u in buckets.get(level, ()):
            for v in adj.get(u, ()):
                if v not in tiers and fabric.devices[v].kind == "switch":
                    tiers[v] = level + 1
                    buckets.setdefault(level + 1, []).append(v)
                    top = max(top, level + 1)
        level += 1


def _classify(
    link: Link, ctx: CheckContext, tiers: dict[str, int], graph: _Graph
) -> Iterator[Result]:
    devices = ctx.fabric.devices
    da, db = devices.get(link.a.device), devices.get(link.b.device)
    if da is None or db is None or da.kind != "switch" or db.kind != "switch":
        return
    inputs = (link, da, db, tiers, ctx.intent)
    notes, edge = per_device(
        ("RT708 link",), inputs, lambda: _link_part(link, ctx, da, db, tiers), keep=True
    )
    yield from notes
    if edge is not None:
        graph.add(link, *edge)


_Edge = tuple[frozenset[int], PortLike, int]


def _link_part(
    link: Link, ctx: CheckContext, da: Device, db: Device, tiers: dict[str, int]
) -> tuple[list[Result], _Edge | None]:
    """One switch-switch link's missing-data notes and its lossless edge (priorities, port at
    end a, weight), if any: a function of the link, its two devices, the tiers and the
    intent, kept for a plan's re-checks (rocetune.checks.memo): a re-check classifies only
    the links of the replaced device, not every link of the fabric."""
    notes: list[Result] = []
    sides, missing_ends = resolve_link(link, ctx)
    notes.extend(missing_ends)
    if sides is None:
        return notes, None
    for dev in (da, db):
        if dev.name not in tiers:
            item = "role not set or not in the tier_order option: tier unknown"
            notes.append(Missing(device=dev.name, item=item))
    sets = [lossless_priorities(p) for p in sides]
    for end, port, have in zip((link.a, link.b), sides, sets, strict=True):
        if have is None:
            notes.extend(missing_pfc(end.device, port))
    if sets[0] is None or sets[1] is None or da.name not in tiers or db.name not in tiers:
        return notes, None
    prios = sets[0] & sets[1] & frozenset(ctx.intent.lossless_priorities)
    if not prios:
        return notes, None
    return notes, (prios, sides[0], 1 if tiers[da.name] == tiers[db.name] else 0)


def _forest(graph: _Graph) -> dict[str, tuple[str | None, int]]:
    """0-1 BFS spanning forest: node -> (parent, edge index); roots map to (None, -1)."""
    parent: dict[str, tuple[str | None, int]] = {}
    dist: dict[str, int] = {}
    for root in graph.adj:
        if root in dist:
            continue
        dist[root] = 0
        parent[root] = (None, -1)
        queue: deque[str] = deque([root])
        while queue:
            u = queue.popleft()
            for v, w, i in graph.adj[u]:
                if v not in dist or dist[u] + w < dist[v]:
                    dist[v] = dist[u] + w
                    parent[v] = (u, i)
                    if w:
                        queue.append(v)
                    else:
                        queue.appendleft(v)
    return parent


def _loop(parent: dict[str, tuple[str | None, int]], u: str, v: str, limit: int) -> str:
    """``u → … → lca → … → v → u`` along the forest, at most ``limit`` hops from each end."""
    up_u = _ancestors(parent, u, limit)
    index = {n: k for k, n in enumerate(up_u)}
    up_v: list[str] = []
    node: str | None = v
    while node is not None and len(up_v) <= limit:
        up_v.append(node)
        if node in index:
            path = up_u[: index[node] + 1] + list(reversed(up_v[:-1]))
            return " → ".join([*path, u])
        node = parent[node][0]
    return f"{u} → … → {v} → {u} (a loop longer than {2 * limit} hops)"


def _ancestors(parent: dict[str, tuple[str | None, int]], start: str, limit: int) -> list[str]:
    out: list[str] = []
    node: str | None = start
    while node is not None and len(out) <= limit:
        out.append(node)
        node = parent[node][0]
    return out


def _non_bridges(graph: _Graph) -> set[int]:
    """Edge indices that lie on a cycle (iterative Tarjan low-link, parallel links handled)."""
    disc: dict[str, int] = {}
    low: dict[str, int] = {}
    bridges: set[int] = set()
    for root in graph.adj:
        if root in disc:
            continue
        disc[root] = low[root] = len(disc)
        stack: list[tuple[str, int, Iterator[tuple[str, int, int]]]] = [
            (root, -1, iter(graph.adj[root]))
        ]
        while stack:
            u, via, it = stack[-1]
            step = next(it, None)
            if step is None:
                stack.pop()
                if stack:
                    p = stack[-1][0]
                    low[p] = min(low[p], low[u])
                    if low[u] > disc[p]:
                        bridges.add(via)
                continue
            v, _, i = step
            if i == via:
                continue
            if v in disc:
                low[u] = min(low[u], disc[v])
            else:
                disc[v] = low[v] = len(disc)
                stack.append((v, i, iter(graph.adj[v])))
    return set(range(len(graph.edges))) - bridges


def _issue(link: Link, prios: frozenset[int], port: PortLike, tier: str, loop: str) -> Issue:
    shown = "{" + ",".join(map(str, sorted(prios))) + "}"
    return Issue(
        message=(
            f"link {link.label} is lossless (PFC on {shown} at both ends) between two {tier}"
            f" switches: traffic that crosses it goes sideways instead of up then down, which"
            f" breaks up-down routing; {loop}, so PFC pauses can wait on each other in a cycle"
            " (a cyclic buffer dependency: PFC deadlock) once those queues fill"
        ),
        device=link.a.device,
        port=link.a.port,
        link=link.label,
        observed=f"lossless {shown} on a {tier}-{tier} link",
        expected="no lossless priority on same-tier links (up-down routing only)",
        path=pfc_path(port),
    )
