"""Indented CLI configuration as a tree, for the EOS and NX-OS lab engines.

A ``show running-config`` text is read by indentation (a deeper line is a child of the line
above it that is indented less) and written back the same way, so an unchanged tree renders
byte for byte as the file it was read from (comment ``!`` and blank lines are kept as nodes
that never match a command).

Entering a configuration line follows the switch CLI closely enough for apply tests:

- a line equal to an existing child is a no-op (and enters its mode when it is a block);
- a line with the same *key* as an existing child replaces it in place (``mtu 9214`` ->
  ``mtu 9000``; keys in :data:`KEYED`), every other line is added at the end of its mode;
- ``no X`` removes the child ``X`` (or the child starting with ``X``, or with X's key);
  EOS shows a few negations in its config (``no switchport``), which are kept as lines;
- a line opens a mode when it matches the platform's opener pattern or names an existing
  block; a top-level opener entered in a sub-mode leaves the sub-mode first (as the CLI
  does); every other line belongs to the current mode (``exit`` leaves one mode).

This is a lab model, not a parser of the vendor grammar: what it does not model (EOS
regrouping ``qos map dscp`` lists, for example) it adds as a line of its own.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field


@dataclass
class Node:
    """One line and the lines of its mode."""

    text: str
    children: list[Node] = field(default_factory=list)

    @property
    def comment(self) -> bool:
        """A ``!`` or blank line (kept for rendering, never a command)."""
        return not self.text or self.text.startswith("!")


KEYED = re.compile(
    r"^(?:no )?(?P<key>mtu|speed|description|random-detect|bandwidth(?: remaining)?"
    r"|priority(?! level)|priority level|qos trust|service-profile"
    r"|service-policy(?: type \S+)? (?:input|output)|set qos-group"
    r"|priority-flow-control (?:mode|on|off)"
    r"|priority-flow-control watch-dog(?:-interval| interval| shutdown-multiplier)"
    r"|priority-flow-control fixed-restore multiplier"
    r"|priority-flow-control pause watchdog (?:default (?:timeout|recovery-time|polling-interval)"
    r"|action)"
    r"|time start|job name|switchport|shutdown|hostname|switchname)(?=\s|$)"
)
"""Settings of which a mode holds one value (a new value replaces the old line)."""
NO_FORM_SHOWN = ("priority", "switchport", "shutdown")
"""EOS keys whose negation the running-config shows as a line of its own."""


@dataclass(frozen=True)
class Dialect:
    """How one platform indents and which lines open modes."""

    indent: int
    top_openers: re.Pattern[str]
    sub_openers: re.Pattern[str]
    shows_no_form: bool = False


def key_of(text: str) -> str | None:
    """The setting ``text`` sets (see :data:`KEYED`), or None."""
    found = KEYED.match(text)
    return found.group("key") if found else None


def parse(text: str) -> Node:
    """A root node holding the configuration of ``text`` (indentation = modes)."""
    root = Node("")
    stack: list[tuple[int, Node]] = [(-1, root)]
    body = text.replace("\r\n", "\n")
    for raw in body.removesuffix("\n").split("\n"):
        line = raw.rstrip()
        indent = len(line) - len(line.lstrip(" "))
        node = Node(line.strip())
        if not line:
            indent = stack[-1][0] + 1 if len(stack) > 1 else 0
        while len(stack) > 1 and stack[-1][0] >= indent:
            stack.pop()
        stack[-1][1].children.append(node)
        stack.append((indent, node))
    return root


def render(root: Node, indent: int) -> str:
    """The text of ``root``'s configuration (``indent`` spaces per mode)."""
    out: list[str] = []

    def walk(node: Node, depth: int) -> None:
        for child in node.children:
            out.append((" " * (indent * depth) + child.text) if child.text else "")
            walk(child, depth + 1)

    walk(root, 0)
    return "\n".join(out) + "\n"


def clone(root: Node) -> Node:
    """A deep copy (a checkpoint, a session's snapshot)."""
    return copy.deepcopy(root)


def _insert(parent: Node, node: Node) -> None:
    """Add ``node`` at the end of ``parent``'s mode, before its closing ``end``/``!``."""
    at = len(parent.children)
    while at > 0 and parent.children[at - 1].text in ("end", "!", ""):
        at -= 1
    parent.children.insert(at, node)


def find(parent: Node, text: str) -> Node | None:
    """The child of ``parent`` whose line is ``text``."""
    return next((c for c in parent.children if not c.comment and c.text == text), None)


def enter(parent: Node, line: str, dialect: Dialect) -> Node:
    """Enter configuration ``line`` in the mode of ``parent``; the node of a new mode or
    ``parent`` (the caller decides whether the line opened a mode, see :func:`opens`)."""
    line = " ".join(line.split())
    if line.startswith("no "):
        _negate(parent, line[3:], dialect)
        return parent
    same = find(parent, line)
    if same is not None:
        return same
    key = key_of(line)
    if key is not None:
        for child in parent.children:
            if not child.comment and key_of(child.text) == key:
                child.text = line
                return child
    node = Node(line)
    _insert(parent, node)
    return node


def _negate(parent: Node, target: str, dialect: Dialect) -> None:
    key = key_of(target)
    for child in list(parent.children):
        if child.comment:
            continue
        if (
            child.text == target
            or child.text.startswith(target + " ")
            or (key is not None and key_of(child.text) == key and not child.text.startswith("no "))
        ):
            if dialect.shows_no_form and key in NO_FORM_SHOWN:
                child.text, child.children = f"no {key}", []
            else:
                parent.children.remove(child)
            return
    if dialect.shows_no_form and key in NO_FORM_SHOWN and find(parent, f"no {key}") is None:
        _insert(parent, Node(f"no {key}"))


def opens(line: str, depth: int, existing: Node | None, dialect: Dialect) -> bool:
    """Whether ``line`` entered at mode depth ``depth`` opens a mode."""
    if existing is not None and any(not c.comment for c in existing.children):
        return True
    pattern = dialect.top_openers if depth == 0 else dialect.sub_openers
    return pattern.match(line) is not None
