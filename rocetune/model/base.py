"""Common base for every vendor-neutral model object."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from rocetune.model.keyshare import key_shared_template

_FIELD_SETS: dict[frozenset[str], set[str]] = {}
"""One set of explicitly set field names per distinct set, shared by the models that have
it (a set of ten names is ~730 bytes: a port or a finding had its own)."""
_FIELD_SETS_MAX = 4096
_BLANK: list[type[BaseModel]] = []
"""The field-less model lending its instances to :func:`key_shared_template` (set below)."""


class Model(BaseModel):
    """Frozen Pydantic model that rejects unknown fields.

    Convention for the whole model package: a field that is ``None`` means *the snapshot did
    not tell us* (not collected, not parseable). An explicit empty value (``()``, ``{}``,
    ``False``) means *known to be absent or off*. Rules must report RT000 for ``None`` and
    never treat it as a pass.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    # Field docstrings are not read at run time (use_attribute_docstrings parses every
    # model's source on import: ~20 % of a cached audit); tools/inventory_schema.py gives
    # them to the JSON Schema and docs/inventory.md.

    _key_shared: ClassVar[tuple[dict[str, Any], tuple[str, ...]] | None] = None
    """A dict of this class's fields (all None) whose keys are shared with the class
    (CPython's key-sharing instance dicts) and its keys: an instance's values are copied
    into a copy of it (see :mod:`rocetune.model.keyshare`). None = not smaller here (few
    fields, another interpreter): instances keep pydantic's own dict."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        # Before the first instance exists (creating one reserves part of the class's
        # shared key table).
        blank = _BLANK[0] if _BLANK else None
        frozen = cls.model_config.get("frozen")
        names = tuple(cls.model_fields)
        template = key_shared_template(cls, blank, names) if blank and frozen else None
        cls._key_shared = None if template is None else (template, names)

    def model_post_init(self, context: Any, /) -> None:
        """Share the set of explicitly set field names with equal ones (frozen models only
        read it: assignment is refused, ``model_copy`` copies it before updating), and keep
        the field values in a key-shared dict where that is smaller."""
        if not self.model_config.get("frozen"):
            return
        names = self.__pydantic_fields_set__
        shared = shared_fields_set(names)
        if shared is not names:
            object.__setattr__(self, "__pydantic_fields_set__", shared)
        layout = self._key_shared
        if layout is not None:
            _rehome(self, *layout)

    def __setstate__(self, state: dict[Any, Any]) -> None:
        """Pydantic's ``__setstate__`` with the field values put in a key-shared dict (as
        :meth:`model_post_init` does) before they are set: one ``__dict__`` set, not two
        (a cached audit unpickles every model of every unchanged device)."""
        setattr_ = object.__setattr__
        setattr_(self, "__pydantic_fields_set__", state.get("__pydantic_fields_set__", {}))
        setattr_(self, "__pydantic_extra__", state.get("__pydantic_extra__", {}))
        setattr_(self, "__pydantic_private__", state.get("__pydantic_private__", {}))
        values = state.get("__dict__", {})
        layout = self._key_shared
        setattr_(self, "__dict__", values if layout is None else _keyed(values, *layout))


def shared_fields_set(names: set[str]) -> set[str]:
    """The set of explicitly set field names equal to ``names`` that models share (``names``
    itself when it is the first such set, or when too many sets are kept already)."""
    key = frozenset(names)
    shared = _FIELD_SETS.get(key)
    if shared is None:
        if len(_FIELD_SETS) < _FIELD_SETS_MAX:
            _FIELD_SETS[key] = names
        return names
    return shared


def _rehome(model: BaseModel, template: dict[str, Any], names: tuple[str, ...]) -> None:
    """Move ``model``'s field values into a copy of ``template`` (:func:`_keyed`)."""
    values = model.__dict__
    moved = _keyed(values, template, names)
    if moved is not values:
        object.__setattr__(model, "__dict__", moved)


def _keyed(
    values: dict[str, Any], template: dict[str, Any], names: tuple[str, ...]
) -> dict[str, Any]:
    """``values`` in a copy of ``template`` when they have exactly the template's keys
    (pydantic fills every field, in field order, as the template has them;
    ``model_construct`` without a required field keeps its own dict), else ``values``."""
    if len(values) != len(names):
        return values
    moved = template.copy()
    moved.update(values)
    return moved if len(moved) == len(names) else values  # no other key: the same mapping


class _Blank(Model):
    """A model without fields: its instances lend their memory layout (every ``Model``
    subclass has the same) to fill another class's shared key table."""


_BLANK.append(_Blank)
