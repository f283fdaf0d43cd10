"""Build a model from values already of its field types, without pydantic's per-field work.

``model_construct`` loops over every field in Python; validation copies every dict and
tuple it is given. Code that builds many models from values it has typed itself (the
switch builders' ports, the engine's RT000 findings) uses :func:`unvalidated`: the same
instance ``model_construct`` makes (``__dict__`` in field order, ``model_fields_set``,
``model_post_init``) in two dict operations.

For a frozen :class:`~rocetune.model.base.Model` (whose ``model_post_init`` shares the set of
field names and moves the values into a key-shared dict) that work is done here instead:
the values go straight into a copy of a key-shared dict of the defaults (one copy, not
two), and the set of names is the shared one. An RT000 finding of a big fleet (tens of
thousands per run) is made in 1.9 us instead of 4.4.

Only sound for values that validation would leave as they are (exact field types, enums
as their members). rocetune.platforms.common.construct checks the ports against validated
ones in the tests; tests/unit/test_missing_fold.py checks the findings.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from rocetune.model.base import Model, shared_fields_set

_M = TypeVar("_M", bound=BaseModel)

_IMMUTABLE_DEFAULTS = (type(None), bool, int, float, str)
"""Default values pydantic's ``get_default`` hands out as they are (not copied)."""


class _Plan:
    """What ``model_construct`` does for one model class, precomputed: its fields in order
    with their defaults (a copy of ``template`` updated with the values is the instance's
    ``__dict__``), the names it takes and the names it requires."""

    __slots__ = ("inline", "names", "required", "template")

    def __init__(self, template: dict[str, Any], required: frozenset[str], inline: bool) -> None:
        self.template = template
        self.names = frozenset(template)
        self.required = required
        self.inline = inline
        """``model_post_init`` is :class:`Model`'s on a frozen model: done by
        :func:`unvalidated` itself (``template`` is then key-shared where the class is)."""


_PLANS: dict[type[BaseModel], _Plan | None] = {}


def _plan(cls: type[BaseModel]) -> _Plan | None:
    """The plan of ``cls``; None when ``model_construct`` must do it (aliases, default
    factories or mutable defaults, extra fields kept, private attributes, root models)."""
    if cls.__pydantic_root_model__ or cls.__private_attributes__:
        return None
    if cls.model_config.get("extra") == "allow":
        return None
    template: dict[str, Any] = {}
    required: set[str] = set()
    for name, info in cls.__pydantic_fields__.items():
        if info.alias is not None or info.validation_alias is not None:
            return None
        if info.is_required():
            required.add(name)
            template[name] = None  # always overwritten: only used when given
        elif info.default_factory is None and type(info.default) in _IMMUTABLE_DEFAULTS:
            template[name] = info.default
        else:
            return None
    inline = (
        issubclass(cls, Model)
        and cls.model_post_init is Model.model_post_init
        and bool(cls.model_config.get("frozen"))
    )
    layout = cls._key_shared if issubclass(cls, Model) else None
    if inline and layout is not None and layout[1] == tuple(template):
        shared = layout[0].copy()  # key-shared; updating keys it has keeps it so
        shared.update(template)
        template = shared
    return _Plan(template, frozenset(required), inline)


def unvalidated(cls: type[_M], values: dict[str, Any]) -> _M:
    """``cls.model_construct(**values)``: the same instance, without its per-field loop."""
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls)
    keys = values.keys()
    if plan is None or not keys <= plan.names or not plan.required <= keys:
        return cls.model_construct(**values)
    fields = plan.template.copy()
    fields.update(values)
    made = cls.__new__(cls)
    setattr_ = object.__setattr__
    setattr_(made, "__dict__", fields)
    setattr_(
        made, "__pydantic_fields_set__", shared_fields_set(set(keys)) if plan.inline else set(keys)
    )
    setattr_(made, "__pydantic_extra__", None)
    setattr_(made, "__pydantic_private__", None)
    if cls.__pydantic_post_init__ and not plan.inline:
        made.model_post_init(None)
    return made
