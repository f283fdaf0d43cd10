"""The vendor shape shared by both NVUE readers: a key tree with a line for every key.

``nv config show -o yaml`` (:mod:`.nvue_yaml`) and ``nv set`` command text
(:mod:`.commands_text`) both produce a :class:`ConfigTree`: the applied ``set`` content as
plain dicts with string keys (``{"qos": {"pfc": {"default-global": {...}}}}``) and the line
where each key path was written. Values stay as NVUE wrote them (``"on"``, ``9216``,
``"100G"``); :mod:`.values` reads them. A key whose value is ``{}`` is a presence key
(``pfc-watchdog: {}``) or a collection member (``switch-priority: {3: {}}``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rocetune.model.device import Feature
from rocetune.platforms.common.unparsed import UnparsedCollector
from rocetune.platforms.cumulus.scope import path_of, scope

KeyPath = tuple[str, ...]


@dataclass
class ConfigTree:
    """The applied configuration: nested dicts plus the line of every key path."""

    root: dict[str, Any] = field(default_factory=dict)
    lines: dict[KeyPath, int] = field(default_factory=dict)
    header: dict[str, str] = field(default_factory=dict)
    """The ``- header:`` item of a revision list (model, version, rev-id), as strings."""
    skipped_lines: list[int] = field(default_factory=list)
    """Lines of a command text that are neither configuration nor reported: prose, command
    output, read-only commands (:mod:`.commands_text`)."""

    def line(self, path: KeyPath) -> int | None:
        """Return the line of ``path`` or of its nearest recorded parent."""
        while path:
            found = self.lines.get(path)
            if found is not None:
                return found
            path = path[:-1]
        return None

    def get(self, path: KeyPath) -> Any:
        """Return the value at ``path`` or None when any step is missing or not a dict."""
        node: Any = self.root
        for key in path:
            if not isinstance(node, dict):
                return None
            node = node.get(key)
        return node


@dataclass
class Issues(UnparsedCollector):
    """The Unparsed items (RT001) of one NVUE file (:class:`UnparsedCollector`): each item
    gets the ports and features its key path says (:mod:`.scope`)."""

    def add(
        self,
        item: str,
        reason: str,
        line: int | None,
        *,
        features: tuple[Feature, ...] | None = None,
        ports: tuple[str, ...] | None = None,
        path: KeyPath | None = None,
    ) -> None:
        """Record one item the parser did not understand (``path``: its key path, else the
        path the item text names)."""
        key_path = path if path is not None else path_of(item)
        self.record(
            item, reason, line, features=features, ports=ports, guess=lambda: scope(key_path)
        )

    def invalid(self, path: KeyPath, value: object, expected: str, line: int | None) -> None:
        """Record a value of the wrong type or outside its range."""
        self.add(dotted(path), f"invalid value {value!r} (expected {expected})", line, path=path)

    def subtree(self, tree: ConfigTree, path: KeyPath, reason: str) -> None:
        """Record every leaf under ``path`` (or ``path`` itself when it is a leaf)."""
        for leaf in leaves(tree.get(path), path):
            self.add(dotted(leaf), reason, tree.line(leaf), path=leaf)


def dotted(path: KeyPath) -> str:
    """Render a key path the way a user searches the YAML: ``qos.pfc.default-global.rx``."""
    return ".".join(path)


def leaves(node: Any, path: KeyPath) -> Iterator[KeyPath]:
    """Yield the key paths of every leaf (non-dict value or empty dict) under ``node``."""
    if isinstance(node, dict) and node:
        for key, child in node.items():
            yield from leaves(child, (*path, key))
    else:
        yield path


def deep_merge(target: dict[str, Any], source: dict[str, Any]) -> None:
    """Merge ``source`` into ``target``: dicts merge key by key, other values replace."""
    for key, value in source.items():
        current = target.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            deep_merge(current, value)
        else:
            target[key] = value
