"""RT705's comparison updated for replaced devices (rocetune.checks.uniform_state) answers
what a comparison made afresh answers: counts, first subjects, order, ranking."""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass

from rocetune.checks.uniform_state import Compared, Part


@dataclass(eq=False)
class _S:
    device: str
    value: int

    def key(self) -> Hashable:
        return self.value


def _part(rng: random.Random, name: str) -> Part[_S, str]:
    n = rng.choice([0, 1, 1, 2, 3])
    values = [_S(name, rng.choice([1, 1, 1, 2, 3])) for _ in range(n)]
    return values, [f"{name} note"] * rng.choice([0, 1]), rng.choice([0, n, n + 1])


def _answers(comp: Compared[_S, str]) -> tuple[object, ...]:
    keys = comp.ranked()
    return (
        comp.candidates,
        comp.total,
        dict(comp.counts),
        keys,
        {k: comp.first[k] for k in keys},
        {k: [(s.device, s.value) for s in comp.head(k, 4)] for k in keys},
        {k: [id(s) for s in comp.group(k)] for k in keys},
        {n: comp.parts[n] for n in comp.names},
    )


def test_replaced_answers_like_fresh() -> None:
    rng = random.Random(7)
    for _ in range(300):
        names = [f"d{i}" for i in range(rng.randint(1, 12))]
        parts = {n: _part(rng, n) for n in names}
        base = Compared.fresh(names, parts.__getitem__)
        changed = frozenset(rng.sample(names, rng.randint(1, min(2, len(names)))))
        now = dict(parts)
        now.update({n: _part(rng, n) for n in changed})
        got = base.replaced(changed, now.__getitem__)
        assert got is not None
        assert _answers(got) == _answers(Compared.fresh(names, now.__getitem__))
        assert got.replaced(changed, now.__getitem__) is None  # only from a fresh one
