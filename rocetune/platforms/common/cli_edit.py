"""Apply indented CLI change blocks to a running-config text (EOS, NX-OS), as the switch would.

A change block is the text an operator pastes in configuration mode: section headers
(``policy-map type queuing X``, ``interface Ethernet1/1``) then, indented, the lines to enter
there. Entering a line replaces the sibling that the platform treats as the same setting (a
line starting with one of ``single`` prefixes: ``mtu``, ``random-detect``, ...); ``no <line>``
removes the sibling it names (exactly, or the single setting it starts); any other line is
added at the end of its section. The result keeps every untouched line byte for byte, so the
parser reads it as it read the running config. Used to check a plan and its rollback.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Node:
    """One config line and the lines nested under it."""

    raw: str
    children: list[Node] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The line without indentation."""
        return self.raw.strip()

    @property
    def indent(self) -> int:
        """Leading spaces."""
        return len(self.raw) - len(self.raw.lstrip(" "))


def parse(text: str) -> Node:
    """Indented text -> tree (blank lines and ``!`` comments kept as leaves)."""
    root = Node("", [])
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in text.splitlines():
        stripped = raw.strip()
        indent = len(raw) - len(raw.lstrip(" "))
        if not stripped:
            stack[0][1].children.append(Node(raw))
            continue
        while stack[-1][0] >= indent:
            stack.pop()
        node = Node(raw)
        stack[-1][1].children.append(node)
        stack.append((indent, node))
    return root


def render(root: Node) -> str:
    """Tree -> text."""
    out: list[str] = []

    def walk(node: Node) -> None:
        for child in node.children:
            out.append(child.raw)
            walk(child)

    walk(root)
    return "\n".join(out) + "\n"


def _key(line: str, single: tuple[str, ...]) -> str | None:
    bare = line[3:] if line.startswith("no ") else line
    for prefix in single:
        if bare == prefix or bare.startswith(prefix + " "):
            return prefix
    return None


def _enter(section: Node, line: str, unit: int, single: tuple[str, ...]) -> Node:
    kids = section.children
    if line.startswith("no "):
        target = line[3:]
        key = _key(line, single)
        for i, child in enumerate(kids):
            if child.text == target or (key is not None and _key(child.text, single) == key):
                del kids[i]
                break
        return section
    for child in kids:
        if child.text == line:
            return child
    key = _key(line, single)
    indent = section.indent + unit if section.raw else 0
    siblings = [c for c in kids if c.text]
    if siblings:
        indent = siblings[-1].indent
    node = Node(" " * indent + line)
    for i, child in enumerate(kids):
        if key is not None and _key(child.text, single) == key:
            node.children = child.children
            kids[i] = node
            return node
    at = len(kids)
    while section is not None and at > 0 and not kids[at - 1].text and section.raw == "":
        at -= 1
    kids.insert(at, node)
    return node


def apply_block(text: str, block: str, unit: int, single: tuple[str, ...]) -> str:
    """``text`` with one change block entered (see the module docstring)."""
    root = parse(text)
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in block.splitlines():
        line = raw.strip()
        if not line or line.startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= indent:
            stack.pop()
        node = _enter(stack[-1][1], line, unit, single)
        stack.append((indent, node))
    return render(root)
