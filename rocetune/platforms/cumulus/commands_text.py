"""Read ``nv set`` / ``nv unset`` command lists into the same tree as NVUE YAML.

Accepted input: the output of ``nv config show -o commands`` or a pasted session, one command
per line, optionally behind a shell prompt (``cumulus@switch:mgmt:~$ nv set qos roce``).
``nv config ...`` lines (apply, save, diff) are ignored; blank and ``#`` lines are skipped;
any other line becomes an Unparsed item.

``nv set`` words form a key path. Most words are keys, and the last word is the value of the
key before it (``qos pfc default-global tx enable`` -> ``tx: enable``) unless that key is an
object such as ``roce`` or ``pfc-watchdog``. After a *collection* keyword the next word is a
member id, exactly as NVUE YAML writes it (``qos pfc default-global switch-priority 3`` ->
``switch-priority: {"3": {}}``; ``qos mapping default-global dscp 26 switch-priority 4`` ->
``dscp: {"26": {switch-priority: "4"}}``). A command that ends on a key without a value sets
a presence key (``nv set qos roce`` -> ``roce: {}``) and keeps what is already below it, as
NVUE does ("``nv set qos roce`` without a mode does not change the RoCE mode", S1).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from rocetune.platforms.cumulus.tree import ConfigTree, Issues, KeyPath

PROMPT = re.compile(r"^[\w.-]+@[\w.-]+(?::\S*?)?[$#]\s?")

_COLLECTIONS: dict[KeyPath, frozenset[str]] = {
    (): frozenset({"interface"}),
    ("qos",): frozenset(
        {
            "pfc",
            "link-pause",
            "congestion-control",
            "egress-scheduler",
            "egress-queue-mapping",
            "mapping",
            "traffic-pool",
            "remark",
            "egress-shaper",
            "advance-buffer-config",
        }
    ),
    ("qos", "pfc", "*"): frozenset({"switch-priority"}),
    ("qos", "traffic-pool", "*"): frozenset({"switch-priority"}),
    ("qos", "egress-queue-mapping", "*"): frozenset({"switch-priority"}),
    ("qos", "remark", "*"): frozenset({"switch-priority"}),
    ("qos", "congestion-control", "*"): frozenset({"traffic-class"}),
    ("qos", "egress-scheduler", "*"): frozenset({"traffic-class"}),
    ("qos", "egress-shaper", "*"): frozenset({"traffic-class"}),
    ("qos", "mapping", "*"): frozenset({"dscp", "pcp"}),
    ("qos", "advance-buffer-config", "*"): frozenset(
        {"ingress-service-pool", "egress-service-pool", "ingress-pool", "egress-pool"}
    ),
    ("qos", "advance-buffer-config", "*", "ingress-lossy-buffer"): frozenset({"priority-group"}),
    ("qos", "advance-buffer-config", "*", "egress-lossy-buffer"): frozenset(
        {"traffic-class", "multicast-switch-priority"}
    ),
    ("interface", "*", "bond"): frozenset({"member"}),
    ("interface", "*", "ip"): frozenset({"address"}),
    ("bridge",): frozenset({"domain"}),
    ("bridge", "domain", "*"): frozenset({"vlan"}),
}
_OBJECTS = frozenset({"qos", "roce", "pfc-watchdog"})
"""Keys that are objects, never values: ``nv set qos roce`` sets ``roce: {}``."""


def command_words(line: str) -> list[str] | None:
    """Return the words of an ``nv`` command line (prompt removed) or None for other lines."""
    text = PROMPT.sub("", line.strip(), count=1).strip()
    if not text.startswith("nv "):
        return None
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def is_commands_text(text: str) -> bool:
    """True when every meaningful line is an ``nv set|unset|config`` command (one set/unset)."""
    seen = False
    for raw in text.splitlines()[:5000]:
        stripped = PROMPT.sub("", raw.strip(), count=1).strip()
        if not stripped or stripped.startswith("#"):
            continue
        words = command_words(raw)
        if words is None or len(words) < 2:
            return False
        if words[1] in ("set", "unset"):
            seen = True
        elif words[1] != "config":
            return False
    return seen


def has_set_commands(text: str) -> bool:
    """True when at least one line is an ``nv set`` or ``nv unset`` command."""
    for raw in text.splitlines():
        words = command_words(raw)
        if words is not None and len(words) > 2 and words[1] in ("set", "unset"):
            return True
    return False


def load_commands(text: str, issues: Issues) -> ConfigTree:
    """Build the configuration tree from ``nv set`` / ``nv unset`` lines."""
    tree = ConfigTree()
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = PROMPT.sub("", raw.strip(), count=1).strip()
        if not stripped or stripped.startswith("#"):
            continue
        words = command_words(raw)
        if words is None or len(words) < 2:
            issues.add(stripped, "not an `nv set` or `nv unset` command", number)
        elif words[1] == "config":
            continue
        elif words[1] == "set" and len(words) > 2:
            _set(tree, words[2:], number)
        elif words[1] == "unset" and len(words) > 2:
            _unset(tree.root, words[2:])
        else:
            issues.add(stripped, "not an `nv set` or `nv unset` command", number)
    return tree


def _steps(words: list[str]) -> list[tuple[str, str | None]]:
    """Split words into (key, value) steps; value None means "descend into the key"."""
    steps: list[tuple[str, str | None]] = []
    schema: KeyPath = ()
    index = 0
    while index < len(words):
        word = words[index]
        rest = len(words) - index
        if word in _COLLECTIONS.get(schema, frozenset()) and rest >= 2:
            steps.extend([(word, None), (words[index + 1], None)])
            schema = (*schema, word, "*")
            index += 2
        elif rest == 2 and word not in _OBJECTS:
            steps.append((word, words[index + 1]))
            index += 2
        else:
            steps.append((word, None))
            schema = (*schema, word)
            index += 1
    return steps


def _set(tree: ConfigTree, words: list[str], line: int) -> None:
    node: dict[str, Any] = tree.root
    path: KeyPath = ()
    for key, value in _steps(words):
        path = (*path, key)
        if value is not None:
            node[key] = value
            tree.lines[path] = line
            return
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
            tree.lines[path] = line
        else:
            tree.lines.setdefault(path, line)
        node = child
    tree.lines[path] = line


def _unset(root: dict[str, Any], words: list[str]) -> None:
    node: Any = root
    steps = _steps(words)
    for position, (key, _value) in enumerate(steps):
        if not isinstance(node, dict) or key not in node:
            return
        if position == len(steps) - 1:
            del node[key]
            return
        node = node[key]
