"""Key-sharing instance dicts for models with many fields (CPython).

Pydantic gives every validated instance a fresh dict of its field values: a 30-field port's
dict is 832 bytes, the names' hash table repeated in every port. CPython stores the
attributes of instances that are set one by one in a *split* dict whose key table belongs to
the class (PEP 412): such a dict holds only the values (a 30-field port's: ~300 bytes).
This module makes one such dict per class, filled with the class's field names; the models
copy their values into a copy of it (``dict.copy`` of a split dict is split, sharing the key
table; ``update`` of keys it has keeps it so).

The class's key table takes at most 30 names, and each instance created by ``object.__new__``
while the table is not full reserves one slot (CPython 3.11 ``init_inline_values``), so it is
filled once when the class is made, before any instance exists, on an object that has no
values yet: an instance of a field-less model of the same layout whose ``__dict__`` is
deleted, moved to the class by ``__class__`` assignment, then given the fields one by one.

Everything here is checked, not assumed: where the result is not a smaller dict (an
interpreter without split dicts or with other rules, more than 30 fields, too few fields
to gain), :func:`key_shared_template` returns None and instances keep pydantic's dict.
Nothing else changes: the values, their order, equality, dumps, copies and pickles are
those of an ordinary dict.
"""

from __future__ import annotations

import sys
from typing import Any

_MIN_GAIN = 64
"""Bytes a key-shared dict must save over a plain one for a class to use it."""


def key_shared_template(cls: type, blank: type, fields: tuple[str, ...]) -> dict[str, Any] | None:
    """A key-shared dict of ``fields`` (all None) for instances of ``cls``, or None where
    that is not smaller than a plain dict or cannot be made. ``blank`` is a class of the
    same instance layout as ``cls`` (to borrow an object without values from)."""
    if not fields or blank is cls:
        return None
    try:
        carrier: Any = object.__new__(blank)
        object.__delattr__(carrier, "__dict__")
        object.__setattr__(carrier, "__class__", cls)
        for name in fields:
            object.__setattr__(carrier, name, None)
        template: dict[str, Any] = carrier.__dict__
        object.__setattr__(carrier, "__class__", blank)
    except Exception:
        return None
    if tuple(template) != fields:
        return None
    probe = template.copy()
    probe.update(dict.fromkeys(fields, 0))
    if sys.getsizeof(probe) + _MIN_GAIN > sys.getsizeof(dict(probe)):
        return None
    return template
