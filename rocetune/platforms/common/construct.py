"""Build a model from values a port builder has already typed, without pydantic's copies.

Validating a port copies every dict it holds (its DSCP map, its queue -> ECN profile
table ...), so ports bound to the same map get equal copies that the run's
:class:`~rocetune.model.share.Sharer` then has to find equal again, key by key. The switch
builders hand every port of a device the *same* objects for the same binding and build the
port with :func:`construct` (``model_construct``, as
:func:`rocetune.model.construct.unvalidated` makes it: no validation, no copies), so the sharer
finds those values by identity.

This is only sound for values that validation would leave as they are: the builders pass
exactly the field types (ints, floats, tuples, dicts of ints, model instances). The tests
set :data:`VERIFY`: every port is then also validated and must be strictly equal (types
included, recursively) to the constructed one (tests/platforms/test_construct.py, over
every switch file of the repository).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from rocetune.model.construct import unvalidated

_M = TypeVar("_M", bound=BaseModel)
_V = TypeVar("_V")

VERIFY = False
"""Tests: validate every constructed model too and fail when the two differ."""


class ConstructMismatch(AssertionError):
    """A constructed model differs from what validation makes of the same values."""


def construct(cls: type[_M], values: dict[str, Any]) -> _M:
    """``cls(**values)`` for values already of the field types, without copying them."""
    made = unvalidated(cls, values)
    if VERIFY:
        validated = cls(**values)
        if not same(made, validated):
            raise ConstructMismatch(f"{cls.__name__}: {made!r} != validated {validated!r}")
    return made


class Same:
    """One object per distinct value handed to the ports of one device (a builder's memo).

    Keys may hold ``id()`` of objects only when the kept value holds those objects: they
    stay alive while the memo does, so their ids stay their own."""

    __slots__ = ("_memo",)

    def __init__(self) -> None:
        self._memo: dict[Any, Any] = {}

    def value(self, key: Any, value: _V) -> _V:
        """The value first given for ``key`` (``value`` itself the first time)."""
        kept: _V = self._memo.setdefault(key, value)
        return kept

    def make(self, key: Any, factory: Callable[[], _V]) -> _V:
        """The value kept for ``key``, made by ``factory`` the first time."""
        try:
            kept: _V = self._memo[key]
        except KeyError:
            kept = self._memo[key] = factory()
        return kept

    def table(self, kind: str, table: dict[int, _V]) -> dict[int, _V]:
        """One dict per distinct table of models the device already shares (by their ids)."""
        return self.value((kind, *[(k, id(v)) for k, v in table.items()]), table)

    def model(self, model: _M | None) -> _M | None:
        """One model per distinct value of a model of scalars and tuples (types compared)."""
        if model is None:
            return None
        fields = tuple((type(v), v) for v in model.__dict__.values())
        try:
            return self.value((type(model), fields, frozenset(model.model_fields_set)), model)
        except TypeError:  # a field that cannot be a key (a dict): left as it is
            return model


def same(a: Any, b: Any) -> bool:
    """Equal with the same types throughout (``1`` is not ``1.0`` nor ``True``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, BaseModel):
        return a.model_fields_set == b.model_fields_set and same(a.__dict__, b.__dict__)
    if isinstance(a, dict):
        return list(a) == list(b) and all(
            type(k) is type(j) and same(a[k], b[j]) for k, j in zip(a, b, strict=True)
        )
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
