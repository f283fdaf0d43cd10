"""The vendor shape, step 1: running-config text -> a tree of lines, plus the RT001 collector.

``show running-config`` indents a sub-mode's commands under the line that opened it
(``policy-map`` > ``class`` > action, ``interface`` > settings). The tree follows the
indentation: a line is a child of the nearest line above it that is indented less. Lines
whose first character is ``!`` are comments (``!Command: show running-config``, ``!Time:``)
and are dropped; so are blank lines and CLI prompts (``leaf1# show running-config``). A line
starting with ``#`` is not NX-OS syntax (the switch rejects it): it is dropped from the tree,
so it cannot break the nesting of the lines around it, and reported as Unparsed.

Readers of a block use :meth:`Node.walk` (every line below it in file order), so an action
indented one column off still belongs to its class. A ``class`` line at column 0 after a
policy-map is outside it in the file; it is reported (see :mod:`.policies`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from rocetune.model import Unparsed

_MAX_ITEM = 200
_MAX_LINES = 500_000
_PROMPT = re.compile(r"\S+#\s*show\s")


@dataclass
class Node:
    """One configuration line and the lines indented below it."""

    text: str
    """The line without indentation and trailing blanks."""
    line: int
    indent: int
    children: list[Node] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        """The line split on blanks."""
        return self.text.split()

    def walk(self) -> Iterator[Node]:
        """Every line below this one, in file order (not the line itself)."""
        stack = list(reversed(self.children))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


@dataclass
class Issues:
    """Collects Unparsed items (RT001) for one input file, without duplicates."""

    file: str
    items: list[Unparsed] = field(default_factory=list)
    _seen: set[tuple[str, str, int | None]] = field(default_factory=set)

    def add(self, item: str, reason: str, line: int | None) -> None:
        """Record one item the parser did not understand."""
        key = (item[:_MAX_ITEM], reason, line)
        if key not in self._seen:
            self._seen.add(key)
            self.items.append(Unparsed(item=key[0], reason=reason, file=self.file, line=line))

    def node(self, node: Node, reason: str) -> None:
        """Record one configuration line."""
        self.add(node.text, reason, node.line)

    def block(self, node: Node, reason: str) -> None:
        """Record a line and every line below it."""
        self.node(node, reason)
        for child in node.walk():
            self.node(child, reason)


def build_tree(text: str, issues: Issues) -> list[Node]:
    """Return the top-level lines of ``text`` with their indented children."""
    roots: list[Node] = []
    stack: list[Node] = []
    for number, raw in enumerate(text.splitlines()[:_MAX_LINES], start=1):
        body = raw.replace("\t", " ").rstrip()
        stripped = body.lstrip(" \ufeff")
        if not stripped or stripped.startswith("!") or _PROMPT.match(stripped):
            continue
        if stripped.startswith("#"):
            issues.add(
                stripped,
                "not NX-OS syntax ('!' starts a comment); the switch rejects this line",
                number,
            )
            continue
        node = Node(text=stripped, line=number, indent=len(body) - len(stripped))
        while stack and stack[-1].indent >= node.indent:
            stack.pop()
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots
