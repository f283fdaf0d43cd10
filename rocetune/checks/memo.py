"""Per-device results shared between rule runs over fabrics that share device objects.

``rocetune plan`` re-checks one fabric many times with one device replaced each time (the
replay of that device's change). Fabric-wide rules (RT705, RT306) compare every device, so
each re-check recomputed what every unchanged device contributes: planning N changed devices
cost N fabric-wide passes. Inside :func:`shared_per_device`, that per-device part (a
device's RoCE ports, its compared values and missing-data notes) is computed once per device
object and reused by later runs. It is a pure function of the objects in its key (the
device, the intent, the device's links), matched by identity (``is``), and the entry keeps
them alive, so an equal-looking but different object is a miss, never a stale hit: the
findings are those of the runs without it. Outside the block nothing is kept.

An audit's own run computes the same whole-fabric results over the audited fabric just
before its ``fix:`` lines are planned: run inside :func:`keeping`, its results keyed by the
audited devices (a fabric-wide rule's comparisons, tiers, reach) are kept for the fabric
(:func:`kept`) and given to the plan's block (``shared_per_device(kept(fabric))``), so the
plan's first re-check does not compute them again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar, cast
from weakref import ref

from rocetune.model import Fabric

T = TypeVar("T")
D = TypeVar("D")

_Entry = tuple[tuple[object, ...], object]
_MEMO: ContextVar[dict[tuple[object, ...], _Entry] | None] = ContextVar(
    "rocetune_per_device", default=None
)
_KEEP = 4
_Base = tuple[Mapping[str, object], frozenset[str]]
_DERIVED: ContextVar[dict[int, tuple[object, _Base]] | None] = ContextVar(
    "rocetune_derived", default=None
)


class Kept:
    """The results over one fabric's ``devices`` that a run inside :func:`keeping` computed
    (the :func:`per_device` entries whose inputs include ``devices`` itself)."""

    def __init__(self, devices: Mapping[str, object]) -> None:
        self.devices = devices
        self.entries: dict[tuple[object, ...], _Entry] = {}


_KEEPING: ContextVar[Kept | None] = ContextVar("rocetune_keeping", default=None)
_BASE: ContextVar[Mapping[str, object] | None] = ContextVar("rocetune_base", default=None)
_KEPT: list[tuple[ref[Fabric], Kept]] = []
"""The fabric of the last run inside :func:`keeping` and what it kept, while the fabric
lives (one fabric: a plan follows its audit)."""


def _forget(gone: ref[Fabric]) -> None:
    if _KEPT and _KEPT[0][0] is gone:
        _KEPT.clear()


@contextmanager
def shared_per_device(kept: Kept | None = None) -> Iterator[None]:
    """Share per-device rule results between the runs inside this block; ``kept``: start
    from what a run over its fabric kept (:func:`keeping`), that fabric being a base
    (:func:`is_base`). A block inside another one shares the outer block's results."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set(dict(kept.entries) if kept is not None else {})
    derived = _DERIVED.set({})
    base = _BASE.set(kept.devices if kept is not None else None)
    try:
        yield
    finally:
        _BASE.reset(base)
        _DERIVED.reset(derived)
        _MEMO.reset(token)


@contextmanager
def keeping(fabric: Fabric) -> Iterator[None]:
    """Run the rules inside with ``fabric``'s devices as a base (:func:`is_base`) and keep
    the results over them for ``fabric`` (:func:`kept`), outside a
    :func:`shared_per_device` block (inside one, nothing is kept). The results are those of
    the same run outside: an entry is a pure function of its inputs, kept by identity."""
    if _MEMO.get() is not None:
        yield
        return
    got = Kept(fabric.devices)
    token = _KEEPING.set(got)
    try:
        yield
    finally:
        _KEEPING.reset(token)
    _KEPT[:] = [(ref(fabric, _forget), got)]


def kept(fabric: Fabric) -> Kept | None:
    """What the last run inside :func:`keeping` kept for ``fabric`` (None: nothing), given
    once: it is let go (a plan holds it while it plans; nothing else needs it)."""
    last = _KEPT[0] if _KEPT else None  # one read: another thread may replace it
    if last is None or last[0]() is not fabric:
        return None
    _KEPT.clear()
    return last[1]


def derive(
    devices: Mapping[str, object], base: Mapping[str, object], changed: Iterable[str]
) -> None:
    """Declare ``devices`` (a fabric's devices) to be ``base`` with the devices ``changed``
    replaced, everything else the same objects in the same order (the plan's replayed
    fabrics, :func:`rocetune.render.simulate.with_devices`), inside
    :func:`shared_per_device`; a fabric-wide rule may then update its result over ``base``
    instead of recomputing it (:func:`base_of`)."""
    known = _DERIVED.get()
    if known is not None:
        while len(known) >= _KEEP:  # the re-checks of one replay use the last one or two
            del known[next(iter(known))]
        known[id(devices)] = (devices, (base, frozenset(changed)))


def is_base(devices: Mapping[str, object]) -> bool:
    """Whether ``devices`` is the base of a fabric declared by :func:`derive` (so it is
    checked again and again: a rule may keep its whole result for it, see :func:`per_device`)."""
    keeping = _KEEPING.get()
    if keeping is not None:
        return keeping.devices is devices
    if _BASE.get() is devices:
        return True
    known = _DERIVED.get()
    return known is not None and any(b[1][0] is devices for b in known.values())


def base_of(devices: Mapping[str, object]) -> _Base | None:
    """(base devices, changed names) declared by :func:`derive` for ``devices``, or None."""
    known = _DERIVED.get()
    got = known.get(id(devices)) if known is not None else None
    return got[1] if got is not None and got[0] is devices else None


def per_device(
    what: tuple[object, ...],
    inputs: tuple[object, ...],
    compute: Callable[[], T],
    *,
    keep: bool = False,
) -> T:
    """``compute()``, reused for the same ``what`` (plain values: which rule part) and the
    same ``inputs`` objects (identity) inside :func:`shared_per_device`. Inside
    :func:`keeping`, kept when ``inputs`` include the fabric's devices, or with ``keep``: a
    part of one device or link of that fabric (its objects), which a plan's re-checks of
    fabrics that replace other devices meet again."""
    memo = _MEMO.get()
    if memo is None:
        keeping = _KEEPING.get()
        if keeping is None or not (keep or any(x is keeping.devices for x in inputs)):
            return compute()
        memo = keeping.entries
    key = (*what, *map(id, inputs))
    got = memo.get(key)
    if got is not None and all(a is b for a, b in zip(got[0], inputs, strict=True)):
        return got[1]  # type: ignore[return-value]
    value = compute()
    memo[key] = (inputs, value)
    return value


def stable(devices: Mapping[str, D], look: Callable[[D], object]) -> Mapping[str, D] | None:
    """What a result over ``devices`` that reads only ``look(device)`` of each device can be
    kept under inside :func:`shared_per_device`: the base of a derived fabric whose replaced
    devices look the same in both (:func:`derive`), ``devices`` itself when it is a base;
    None: nothing to share, compute it."""
    got = base_of(devices)
    if got is not None:
        base = cast(Mapping[str, D], got[0])
        for name in got[1]:
            if name not in base or name not in devices or look(base[name]) != look(devices[name]):
                return None
        return base
    return devices if is_base(devices) else None
