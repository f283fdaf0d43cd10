"""Running-config text -> a tree of indented lines, and the Unparsed collector.

EOS indents sub-modes (``interface``, ``qos profile``, ``tx-queue``) by three spaces per level
(some generated configs use four); a line belongs to the nearest preceding line with a smaller
indent. ``!`` lines are comments or separators (``!!`` inside blocks is a comment too) and
``end`` closes the configuration; both are skipped. Tabs count as one column each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.model import Unparsed

_MAX_ITEM = 200


@dataclass
class Node:
    """One configuration line and the lines indented under it."""

    text: str
    line: int
    indent: int
    children: list[Node] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        """The line split on whitespace."""
        return self.text.split()


def read_tree(text: str) -> list[Node]:
    """Return the top-level nodes of a configuration text."""
    roots: list[Node] = []
    stack: list[Node] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.strip()
        if not body or body.startswith("!") or body == "end":
            continue
        indent = len(raw) - len(raw.lstrip())
        node = Node(text=body, line=number, indent=indent)
        while stack and stack[-1].indent >= indent:
            stack.pop()
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots


def header_comments(text: str, limit: int = 40) -> list[str]:
    """The ``!`` comment lines among the first ``limit`` lines, without the ``!``."""
    out: list[str] = []
    for raw in text.splitlines()[:limit]:
        body = raw.strip()
        if body.startswith("!"):
            out.append(body.lstrip("!").strip())
    return out


@dataclass
class Issues:
    """Collects Unparsed items (RT001) for one input file, without duplicates."""

    file: str
    items: list[Unparsed] = field(default_factory=list)

    def add(self, item: str, reason: str, line: int | None) -> None:
        """Record one item the parser did not understand (or does not model)."""
        entry = Unparsed(item=item[:_MAX_ITEM], reason=reason, file=self.file, line=line)
        if entry not in self.items:
            self.items.append(entry)

    def node(self, node: Node, reason: str) -> None:
        """Record a configuration line."""
        self.add(node.text, reason, node.line)
