"""Common base for every vendor-neutral model object."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


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
