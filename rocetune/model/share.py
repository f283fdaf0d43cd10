"""Share equal values between ports and devices: one DSCP map object for 64,000 ports.

Pydantic copies every dict it validates, so each port of a parsed device holds its own copy
of the maps it binds (DSCP -> priority, TC -> queue, ...), its own tuples and its own
profile objects, although a fabric has a handful of distinct ones. :class:`Sharer` walks a
parsed device once and replaces each such value with the first equal one it has seen (in
this device or an earlier one of the same run), so the copies are freed.

This is sound because the models are frozen (``Model`` sets ``frozen=True``; a model that
is not frozen is left alone) and nothing mutates a model's dicts after parsing: a shared
value is read by every port that holds it. Equality is strict: the key of a value has the
type of every entry (``{0: True}`` and ``{0: 1}`` stay apart), and a model's key has its
class and which fields were set explicitly, so dumps (``exclude_unset``) do not change.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import islice
from sys import getrefcount
from typing import Any, TypeVar

from pydantic import BaseModel

_M = TypeVar("_M", bound=BaseModel)

_SCALARS = (str, int, float, bool, type(None))
_ONLY_HERE = 2
"""``getrefcount`` of a value held only by the sharer's table (and the call's argument)."""
_SCALARS_SET = frozenset(_SCALARS)
_PLAIN = frozenset((str, float, bool, type(None)))
"""Field types :meth:`Sharer._fields` leaves alone (ints are pooled when large)."""

# Key tuples are built from a list (``(*map(...),)``, ``tuple([...])``), not straight from
# ``map`` or a generator: those have no length, so CPython makes the tuple for 10 items and
# shrinks it, a tuple its free list never hands out; freed, every one stayed in that free
# list (2,000 per size, ~8 per port: a third of a 256-port EOS switch's peak).


class Sharer:
    """Pools of shared values for one run (devices are changed in place)."""

    def __init__(self) -> None:
        self._pool: dict[Any, Any] = {}
        self._pooled: dict[int, Any] = {}
        """id(value) -> the value, of the dicts and models that are themselves the pooled
        value (held by the pool, so the id stays theirs): found again at once."""
        self._seen: dict[int, tuple[Any, Any, bool]] = {}
        """id(value) -> (the value, kept alive so the id stays its own; pooled; poolable) of
        the other dicts and models, while one device (or one port being built) is shared:
        platforms hand the same profile object to many ports, its key is made once."""
        self._mark = 0
        """Where the values first seen in the port shared last start in :attr:`_seen`."""
        self.shared = 0
        """How many values were replaced by an equal one already held."""

    def device(self, device: BaseModel) -> None:
        """Share the values of every port and NIC of a parsed device (in place)."""
        try:
            for field in ("ports", "nics"):
                members = getattr(device, field, None)
                if isinstance(members, dict):
                    for member in members.values():
                        if isinstance(member, BaseModel):
                            self._fields(member)
        finally:
            # The values seen by id are kept alive only while one device is shared: the
            # copies replaced by a pooled value are freed now (the pool keeps its values).
            self._seen.clear()
            self._mark = 0

    def member(self, model: BaseModel) -> None:
        """Share the values of one port or NIC as it is built (in place), so the copies
        pydantic made of its maps are freed before the next port is built."""
        seen = self._seen
        # Forget the values first seen in the port before that nothing holds any more (its
        # replaced copies; its builder has returned): kept, they would all be alive until
        # the device is shared. The platform's own profile objects, which many ports are
        # given, are still held by the platform and stay known (found again by id).
        for ident in reversed(list(islice(seen, self._mark, None))):  # containers first
            if getrefcount(seen[ident][0]) <= _ONLY_HERE:
                del seen[ident]
        self._mark = len(seen)
        self._fields(model)

    def _fields(self, model: BaseModel) -> None:
        if not model.model_config.get("frozen"):
            return
        values = model.__dict__
        pooled, seen = self._pooled, self._seen
        for name, value in values.items():
            kind = type(value)
            if kind in _PLAIN:  # most fields of a port: nothing to share
                continue
            ident = id(value)
            if ident in pooled:  # the pooled value itself (a bound map, a profile)
                continue
            known = seen.get(ident)
            if known is not None:  # this device's map or profile, met on an earlier port
                shared = known[1]
                if shared is not value:
                    self.shared += 1
            elif kind is dict or isinstance(value, BaseModel):
                shared = self._first_seen(value, ident)[0]
            elif kind is tuple:  # PFC priorities: equal on every port (48 bytes each)
                if not value:
                    continue
                shared = self._share_new(value)[0]
                if shared is value:  # pooled now: found by id on the next port
                    pooled[id(value)] = value
            elif kind is int and not -5 <= value <= 256:  # small ints are shared anyway
                # an MTU, a speed: each port's own number object (32 bytes) otherwise
                shared = self._pool.setdefault((int, value), value)
                if shared is not value:
                    self.shared += 1
                else:
                    pooled[id(value)] = value
            else:
                continue
            if shared is not value:
                values[name] = shared

    def value(self, value: Any) -> Any:
        """The pooled value equal to ``value`` (``value`` itself the first time)."""
        return self._share(value)[0]

    def _share(self, value: Any) -> tuple[Any, bool]:
        """(the pooled value, whether the value can be pooled at all)."""
        if isinstance(value, dict | BaseModel):
            ident = id(value)
            if ident in self._pooled:
                return value, True
            known = self._seen.get(ident)
            if known is None:
                return self._first_seen(value, ident)
            if known[1] is not value:
                self.shared += 1
            return known[1], known[2]
        return self._share_new(value)

    def _first_seen(self, value: Any, ident: int) -> tuple[Any, bool]:
        """:meth:`_share` of a dict or model met for the first time (not pooled, not seen)."""
        shared, ok = self._share_new(value)
        if ok and shared is value:
            self._pooled[ident] = value
            return value, True
        self._seen[ident] = (value, shared, ok)
        return shared, ok

    def _share_new(self, value: Any) -> tuple[Any, bool]:
        key = self._key(value)
        if key is None:
            return value, False
        pooled = self._pool.setdefault(key, value)
        if pooled is not value:
            self.shared += 1
        return pooled, True

    def _token(self, item: Any) -> Any:
        if type(item) in _SCALARS:
            return (type(item), item)
        shared, ok = self._share(item)
        return id(shared) if ok else None

    def _key(self, value: Any) -> Any:
        if type(value) is dict:
            kinds = (*map(type, value.values()),)
            if _SCALARS_SET.issuperset(kinds):  # the common case, at C speed
                keys = tuple(value)
                key_kinds = (*map(type, keys),)
                if _SCALARS_SET.issuperset(key_kinds):
                    return (dict, keys, key_kinds, tuple(value.values()), kinds)
                return None
            parts: list[tuple[Any, ...]] = []
            for k, v in value.items():
                if type(k) not in _SCALARS:
                    return None
                if type(v) in _SCALARS:
                    parts.append((type(k), k, (type(v), v)))
                    continue
                shared, ok = self._share(v)
                if not ok:
                    return None
                if shared is not v:
                    value[k] = shared  # not pooled yet: still this device's own dict
                parts.append((type(k), k, id(shared)))
            return (dict, tuple(parts))
        if type(value) is tuple:
            kinds = (*map(type, value),)
            if _SCALARS_SET.issuperset(kinds):
                return (tuple, value, kinds)
            tokens = tuple([self._token(v) for v in value])
            return None if None in tokens else (tuple, tokens)
        if isinstance(value, BaseModel):
            if not value.model_config.get("frozen"):
                return None
            self._fields(value)
            fields = tuple([self._token(v) for v in value.__dict__.values()])
            if None in fields:
                return None
            return (type(value), fields, frozenset(value.model_fields_set))
        return None


_CURRENT: ContextVar[Sharer | None] = ContextVar("rocetune_sharer", default=None)


@contextmanager
def sharing(sharer: Sharer) -> Iterator[Sharer]:
    """Ports built while this is active (platforms call :func:`built`) share their values
    with ``sharer``'s pools as each one is built (the caller still calls
    :meth:`Sharer.device` on the parsed device: it finds those values at once)."""
    token = _CURRENT.set(sharer)
    try:
        yield sharer
    finally:
        _CURRENT.reset(token)


def built(model: _M) -> _M:
    """``model`` (a port just built) with its values shared, when a run is :func:`sharing`:
    without it pydantic's copies of every port's maps are all alive until the device is
    complete, the peak of parsing a switch."""
    sharer = _CURRENT.get()
    if sharer is not None:
        sharer.member(model)
    return model
