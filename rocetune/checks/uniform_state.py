"""RT705's comparison of one aspect within one group of devices, kept per fabric.

A :class:`Compared` holds what :mod:`rocetune.checks.fabric_uniform` compares: every
device's subjects (a switch, or one NIC port, with its value key), missing-data notes and
candidate count, in device order, and per value key how many subjects use it and which
(in order). ``rocetune plan`` re-checks fabrics that differ from the audited one in one
replaced device (:func:`rocetune.checks.memo.derive`): :meth:`Compared.replaced` gives the
comparison of such a fabric from the audited one's in time proportional to the replaced
devices' subjects, not the group's, so N re-checks are not N passes over the fabric. The
answers (majority, its size and first subjects, each device's subjects) are those of a
comparison made afresh; where they would not be plainly so (no majority: the fabric-level
finding lists every value in first-seen order) it returns None and the caller starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar


class SubjectLike(Protocol):
    """What is compared: a device's name and its value key."""

    device: str

    def key(self) -> Hashable:
        """The compared value."""


S = TypeVar("S", bound=SubjectLike)
N = TypeVar("N")
Part = tuple[list[S], list[N], int]
"""One device's subjects, missing-data notes and candidates."""


@dataclass
class Compared(Generic[S, N]):
    """One comparison's subjects (see the module docstring)."""

    names: Sequence[str]
    pos: dict[str, int]
    parts: dict[str, Part[S, N]]
    counts: dict[Hashable, int]
    """Value key -> subjects using it."""
    first: dict[Hashable, tuple[int, int]]
    """Value key -> (device position, subject index) of its first subject."""
    candidates: int
    total: int
    base: Compared[S, N] | None = None
    changed: frozenset[str] = frozenset()
    by_key: dict[Hashable, list[S]] | None = None
    """Value key -> its subjects in order (a fresh comparison; a replaced one asks ``base``)."""
    kept: dict[str, object] = field(default_factory=dict)
    """What the caller derived from this comparison (a kept one is asked again and again)."""

    @classmethod
    def fresh(cls, names: Sequence[str], part: Callable[[str], Part[S, N]]) -> Compared[S, N]:
        """The comparison of the devices ``names`` (in order)."""
        parts: dict[str, Part[S, N]] = {}
        counts: dict[Hashable, int] = {}
        first: dict[Hashable, tuple[int, int]] = {}
        by_key: dict[Hashable, list[S]] = {}
        candidates = total = 0
        for i, name in enumerate(names):
            got = parts[name] = part(name)
            candidates += got[2]
            total += len(got[0])
            for j, s in enumerate(got[0]):
                k = s.key()
                counts[k] = counts.get(k, 0) + 1
                first.setdefault(k, (i, j))
                by_key.setdefault(k, []).append(s)
        pos = {name: i for i, name in enumerate(names)}
        return cls(names, pos, parts, counts, first, candidates, total, by_key=by_key)

    def replaced(
        self, changed: frozenset[str], part: Callable[[str], Part[S, N]]
    ) -> Compared[S, N] | None:
        """This comparison with the devices ``changed`` (of this group) given by ``part``."""
        if self.base is not None:
            return None
        parts = dict(self.parts)
        counts = dict(self.counts)
        candidates, total = self.candidates, self.total
        touched: set[Hashable] = set()
        for name in changed:
            old = self.parts[name]
            new = parts[name] = part(name)
            candidates += new[2] - old[2]
            total += len(new[0]) - len(old[0])
            for s in old[0]:
                k = s.key()
                counts[k] -= 1
                touched.add(k)
            for s in new[0]:
                k = s.key()
                counts[k] = counts.get(k, 0) + 1
                touched.add(k)
        first = dict(self.first)
        for k in touched:
            if counts[k] == 0:
                del counts[k]
                del first[k]
        out = Compared(self.names, self.pos, parts, counts, first, candidates, total, self, changed)
        for k in touched:
            if k in counts:
                s = next(out._ordered(k))
                first[k] = (self.pos[s.device], parts[s.device][0].index(s))
        return out

    def _ordered(self, k: Hashable) -> Iterator[S]:
        """The subjects with value key ``k``, in order (lazily)."""
        if self.base is None:
            assert self.by_key is not None
            yield from self.by_key.get(k, ())
            return
        changed = self.changed
        added = sorted(
            (self.pos[n], j, s)
            for n in changed
            for j, s in enumerate(self.parts[n][0])
            if s.key() == k
        )
        base = self.base.by_key or {}
        i = 0
        for s in base.get(k, ()):
            if s.device in changed:
                continue
            here = self.pos[s.device]
            while i < len(added) and added[i][0] < here:
                yield added[i][2]
                i += 1
            yield s
        for _, _, s in added[i:]:
            yield s

    def head(self, k: Hashable, n: int) -> list[S]:
        """The first ``n`` subjects with value key ``k``."""
        out: list[S] = []
        for s in self._ordered(k):
            if len(out) == n:
                break
            out.append(s)
        return out

    def ranked(self) -> list[Hashable]:
        """Value keys, most used first (ties: first seen first)."""
        return sorted(self.counts, key=lambda k: (-self.counts[k], self.first[k]))

    def group(self, k: Hashable) -> list[S]:
        """Every subject with value key ``k`` (a full pass: for fresh comparisons)."""
        return list(self._ordered(k))
