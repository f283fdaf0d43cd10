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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar, cast

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


@contextmanager
def shared_per_device() -> Iterator[None]:
    """Share per-device rule results between the runs inside this block."""
    token = _MEMO.set({})
    derived = _DERIVED.set({})
    try:
        yield
    finally:
        _DERIVED.reset(derived)
        _MEMO.reset(token)


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
    known = _DERIVED.get()
    return known is not None and any(b[1][0] is devices for b in known.values())


def base_of(devices: Mapping[str, object]) -> _Base | None:
    """(base devices, changed names) declared by :func:`derive` for ``devices``, or None."""
    known = _DERIVED.get()
    got = known.get(id(devices)) if known is not None else None
    return got[1] if got is not None and got[0] is devices else None


def per_device(what: tuple[object, ...], inputs: tuple[object, ...], compute: Callable[[], T]) -> T:
    """``compute()``, reused for the same ``what`` (plain values: which rule part) and the
    same ``inputs`` objects (identity) inside :func:`shared_per_device`."""
    memo = _MEMO.get()
    if memo is None:
        return compute()
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
