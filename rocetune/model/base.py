"""Common base for every vendor-neutral model object."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

_FIELD_SETS: dict[frozenset[str], set[str]] = {}
"""One set of explicitly set field names per distinct set, shared by the models that have
it (a set of ten names is ~730 bytes: a port or a finding had its own)."""
_FIELD_SETS_MAX = 4096


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

    def model_post_init(self, context: Any, /) -> None:
        """Share the set of explicitly set field names with equal ones (frozen models only
        read it: assignment is refused, ``model_copy`` copies it before updating)."""
        if not self.model_config.get("frozen"):
            return
        names = self.__pydantic_fields_set__
        key = frozenset(names)
        shared = _FIELD_SETS.get(key)
        if shared is None:
            if len(_FIELD_SETS) < _FIELD_SETS_MAX:
                _FIELD_SETS[key] = names
        elif shared is not names:
            object.__setattr__(self, "__pydantic_fields_set__", shared)
