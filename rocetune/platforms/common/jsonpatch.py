"""A small RFC 6902 JSON Patch editor and applier (``add``/``remove``/``replace`` on objects).

:class:`PatchEditor` records minimal edits against a document (a working copy sees earlier
edits), merges edits of the same path, and gives each one its inverse op: ``add`` of the old
value, or ``remove`` of a path that did not exist. :func:`apply_ops` applies ops to a
document (used to check a plan and its rollback on the parsed model). Only objects are
supported: CONFIG_DB has no arrays rocetune edits.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any


def pointer(*parts: str) -> str:
    """An RFC 6901 JSON pointer (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def split_pointer(path: str) -> list[str]:
    """The reference tokens of a JSON pointer."""
    if not path.startswith("/"):
        raise ValueError(f"not a JSON pointer: {path!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def op_text(op: str, path: str, value: Any = None) -> str:
    """One op as sorted-key JSON text."""
    body: dict[str, Any] = {"op": op, "path": path}
    if op != "remove":
        body["value"] = value
    return json.dumps(body, sort_keys=True)


def apply_ops(doc: dict[str, Any], ops: list[str]) -> dict[str, Any]:
    """A copy of ``doc`` with the ops applied in order (ValueError when one cannot apply)."""
    out = copy.deepcopy(doc)
    for text in ops:
        op = json.loads(text)
        tokens = split_pointer(op["path"])
        parent: Any = out
        for tok in tokens[:-1]:
            if not isinstance(parent, dict) or tok not in parent:
                raise ValueError(f"{op['path']}: parent does not exist")
            parent = parent[tok]
        last = tokens[-1]
        if op["op"] in ("remove", "replace") and last not in parent:
            raise ValueError(f"{op['path']}: {op['op']} of a missing member")
        if op["op"] == "remove":
            del parent[last]
        elif op["op"] in ("add", "replace"):
            parent[last] = copy.deepcopy(op["value"])
        else:
            raise ValueError(f"unsupported op {op['op']!r}")
    return out


@dataclass
class Edit:
    """One recorded edit: the op, its inverse, and what it is for."""

    path: str
    old: Any
    new: Any
    existed: bool
    kind: str
    port: str | None
    fixes: set[str] = field(default_factory=set)
    codes: set[str] = field(default_factory=set)
    because: str | None = None

    @property
    def text(self) -> str:
        """The forward op."""
        return op_text("add", self.path, self.new)

    @property
    def rollback(self) -> str:
        """The inverse op."""
        return op_text("add", self.path, self.old) if self.existed else op_text("remove", self.path)


class PatchEditor:
    """Record minimal edits of a JSON document (see the module docstring)."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = copy.deepcopy(doc)
        self.edits: dict[str, Edit] = {}

    def get(self, *parts: str) -> Any:
        """The current value at ``parts`` (None when absent)."""
        node: Any = self.doc
        for p in parts:
            if not isinstance(node, dict) or p not in node:
                return None
            node = node[p]
        return node

    def set(
        self,
        parts: tuple[str, ...],
        value: Any,
        kind: str,
        port: str | None,
        *,
        fixes: tuple[str, ...] = (),
        codes: tuple[str, ...] = (),
        because: str | None = None,
    ) -> None:
        """Set ``parts`` to ``value``; creates the smallest missing parent object."""
        depth = len(parts)
        for i in range(1, len(parts)):
            if not isinstance(self.get(*parts[:i]), dict):
                depth = i
                break
        target = parts[:depth]
        new: Any = value
        for p in reversed(parts[depth:]):
            new = {p: new}
        path = pointer(*target)
        created = next(
            (e for e in self.edits.values() if not e.existed and path.startswith(e.path + "/")),
            None,
        )
        if created is not None:
            # inside an object this plan creates: fold the value into that one op
            self._write(target, new)
            created.new = copy.deepcopy(self.get(*split_pointer(created.path)))
            created.fixes.update(fixes)
            created.codes.update(codes)
            return
        edit = self.edits.get(path)
        old = self.get(*target)
        if edit is None and old == new:
            # already in place (an earlier edit of a parent, or the running value)
            for e in self.edits.values():
                if path.startswith(e.path):
                    e.fixes.update(fixes)
                    e.codes.update(codes)
            return
        if edit is None:
            existed = old is not None
            edit = Edit(path, copy.deepcopy(old), new, existed, kind, port, because=because)
            self.edits[path] = edit
        edit.new = new
        edit.fixes.update(fixes)
        edit.codes.update(codes)
        self._write(target, new)

    def _write(self, target: tuple[str, ...] | list[str], value: Any) -> None:
        parent: Any = self.doc
        for p in target[:-1]:
            parent = parent[p]
        parent[target[-1]] = copy.deepcopy(value)
