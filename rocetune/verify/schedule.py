"""Round scheduling: colour the edges of the pair graph so no NIC is in two tests at once.

Each test is an edge between two NICs; a round is a matching (a colour class). The number of
rounds is the edge-chromatic number when it can be reached cheaply, and never more than one
round above the optimum:

- lower bound: ``max(Δ, ceil(m / floor(n / 2)))`` (Δ = most tests on one NIC, m tests, n NICs;
  a round holds at most floor(n/2) tests);
- complete graph K_n (``--pairs all`` with one NIC per host): the circle method, n-1 rounds
  for even n and n for odd n, which is optimal (the chromatic index of K_n);
- bipartite graph (``cross-leaf`` with two leaves, rings of even length): Kőnig's theorem,
  exactly Δ rounds (alternating-path recolouring), optimal;
- any other graph: Misra & Gries' algorithm, at most Δ+1 rounds (Vizing), i.e. optimal or
  one round above it.

Deterministic: the same pairs in the same order always give the same rounds.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def lower_bound(edges: Sequence[tuple[N, N]]) -> int:
    """``max(Δ, ceil(m / floor(n/2)))``: no schedule has fewer rounds."""
    if not edges:
        return 0
    degree: dict[N, int] = {}
    for u, v in edges:
        degree[u] = degree.get(u, 0) + 1
        degree[v] = degree.get(v, 0) + 1
    per_round = max(1, len(degree) // 2)
    return max(*degree.values(), -(-len(edges) // per_round))


def schedule(edges: Sequence[tuple[N, N]]) -> list[list[int]]:
    """Rounds as lists of edge indices; edges must be distinct and have two distinct ends."""
    if not edges:
        return []
    nodes = list(dict.fromkeys(n for e in edges for n in e))
    if len(edges) == len(nodes) * (len(nodes) - 1) // 2:
        colours = _circle(nodes, edges)
    elif _bipartite(nodes, edges):
        colours = _kempe(edges, _max_degree(edges), bipartite=True)
    else:
        colours = _kempe(edges, _max_degree(edges) + 1, bipartite=False)
    rounds: dict[int, list[int]] = {}
    for index, colour in enumerate(colours):
        rounds.setdefault(colour, []).append(index)
    return [rounds[c] for c in sorted(rounds)]


def _max_degree(edges: Sequence[tuple[N, N]]) -> int:
    degree: dict[N, int] = {}
    for u, v in edges:
        degree[u] = degree.get(u, 0) + 1
        degree[v] = degree.get(v, 0) + 1
    return max(degree.values())


def _circle(nodes: list[N], edges: Sequence[tuple[N, N]]) -> list[int]:
    """Round-robin tournament: fix one node, rotate the others."""
    order: list[N | None] = list(nodes)
    if len(order) % 2:
        order.append(None)
    size = len(order)
    colour_of: dict[frozenset[N], int] = {}
    for rnd in range(size - 1):
        for i in range(size // 2):
            a, b = order[i], order[size - 1 - i]
            if a is not None and b is not None:
                colour_of[frozenset((a, b))] = rnd
        order = [order[0], order[-1], *order[1:-1]]
    return [colour_of[frozenset(e)] for e in edges]


def _bipartite(nodes: list[N], edges: Sequence[tuple[N, N]]) -> bool:
    adj: dict[N, list[N]] = {n: [] for n in nodes}
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    side: dict[N, int] = {}
    for start in nodes:
        if start in side:
            continue
        side[start], stack = 0, [start]
        while stack:
            u = stack.pop()
            for v in adj[u]:
                if v not in side:
                    side[v] = 1 - side[u]
                    stack.append(v)
                elif side[v] == side[u]:
                    return False
    return True


class _Colouring:
    """Partial edge colouring: ``at[node][colour]`` = the neighbour via that colour."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.at: dict[object, dict[int, object]] = {}

    def free(self, node: object) -> list[int]:
        used = self.at.get(node, {})
        return [c for c in range(self.k) if c not in used]

    def is_free(self, node: object, colour: int) -> bool:
        return colour not in self.at.get(node, {})

    def set(self, u: object, v: object, colour: int) -> None:
        self.at.setdefault(u, {})[colour] = v
        self.at.setdefault(v, {})[colour] = u

    def unset(self, u: object, v: object, colour: int) -> None:
        del self.at[u][colour]
        del self.at[v][colour]

    def colour(self, u: object, v: object) -> int | None:
        return next((c for c, w in self.at.get(u, {}).items() if w == v), None)

    def flip(self, start: object, a: int, b: int) -> None:
        """Swap colours a and b along the alternating path that starts at ``start``."""
        path, node, want = [], start, a
        while want in self.at.get(node, {}):
            nxt = self.at[node][want]
            path.append((node, nxt, want))
            node, want = nxt, (b if want == a else a)
        for u, v, c in path:
            self.unset(u, v, c)
        for u, v, c in path:
            self.set(u, v, b if c == a else a)


def _kempe(edges: Sequence[tuple[N, N]], k: int, *, bipartite: bool) -> list[int]:
    col = _Colouring(k)
    for u, v in edges:
        if bipartite:
            _add_bipartite(col, u, v)
        else:
            _add_misra_gries(col, u, v)
    out = []
    for u, v in edges:
        c = col.colour(u, v)
        if c is None:  # pragma: no cover - the algorithms colour every edge
            raise AssertionError("edge left uncoloured")
        out.append(c)
    return out


def _add_bipartite(col: _Colouring, u: object, v: object) -> None:
    a, b = col.free(u)[0], col.free(v)[0]
    if not col.is_free(v, a):
        col.flip(v, a, b)  # in a bipartite graph this path never reaches u
    col.set(u, v, a)


def _add_misra_gries(col: _Colouring, u: object, v: object) -> None:
    fan = [v]
    while True:  # maximal fan of u starting at v
        last = fan[-1]
        nxt = next(
            (
                w
                for c in col.free(last)
                if (w := col.at.get(u, {}).get(c)) is not None and w not in fan
            ),
            None,
        )
        if nxt is None:
            break
        fan.append(nxt)
    c, d = col.free(u)[0], col.free(fan[-1])[0]
    if c != d:
        col.flip(u, d, c)
    w_index = next(
        i for i, w in enumerate(fan) if col.is_free(w, d) and _is_fan(col, u, fan[: i + 1])
    )
    for i in range(w_index):  # rotate the fan up to w
        colour = col.colour(u, fan[i + 1])
        assert colour is not None
        col.unset(u, fan[i + 1], colour)
        col.set(u, fan[i], colour)
    col.set(u, fan[w_index], d)


def _is_fan(col: _Colouring, u: object, fan: list[object]) -> bool:
    """Each fan edge (u, fan[i+1]) has a colour free on fan[i]."""
    for i in range(len(fan) - 1):
        colour = col.colour(u, fan[i + 1])
        if colour is None or not col.is_free(fan[i], colour):
            return False
    return True
