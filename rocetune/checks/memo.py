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

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

_Entry = tuple[tuple[object, ...], object]
_MEMO: ContextVar[dict[tuple[object, ...], _Entry] | None] = ContextVar(
    "rocetune_per_device", default=None
)


@contextmanager
def shared_per_device() -> Iterator[None]:
    """Share per-device rule results between the runs inside this block."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


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
