"""Read ``nv set`` / ``nv unset`` command lists into the same tree as NVUE YAML.

Accepted input: the output of ``nv config show -o commands``, a pasted session, or a runbook
that mixes commands with their output and prose. Each line is classified:

* ``nv set`` / ``nv unset`` (behind an optional prompt: ``cumulus@switch:mgmt:~$``, a bare
  ``$`` or ``#`` root prompt, and an optional ``sudo``) is configuration and is read;
* ``nv config apply|save|diff|show|history...``, ``nv show ...``, ``nv action ...`` and other
  read-only NVUE commands are skipped, and so is their output (every line up to the next
  command is output or prose);
* ``nv config patch|replace <file>`` loads configuration rocetune cannot see: reported;
* any other ``nv`` line (``nv sett ...``) is reported: it is meant as NVUE and not understood;
* NCLU ``net add|del`` commands and ``key = value`` lines of the datapath QoS files
  (``qos_features.conf``), which configure QoS outside NVUE, are reported when they name a
  QoS setting; except the NCLU RoCE one-shots (``net add roce lossless|lossy``, ``net del
  roce``), which are read as the NVUE commands Cumulus documents as their equivalents;
* everything else (prose, shell commands, command output, Markdown fences) is skipped and
  counted (:attr:`~.tree.ConfigTree.skipped_lines`, the fact ``nvue.skipped_lines``):
  prose is not configuration, and reporting it would only teach users to mute RT001.

A text is a command list (:func:`is_commands_text`) when at least one line is an ``nv set``
or ``nv unset`` command; a file without any is not NVUE configuration.

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

from rocetune.platforms.cumulus.scope import keyword_features, line_ports
from rocetune.platforms.cumulus.tree import ConfigTree, Issues, KeyPath

PROMPT = re.compile(r"^(?:[\w.-]+@[\w.-]+(?::\S*?)?[$#]|[$#](?=\s))\s?")
"""A shell prompt: ``cumulus@leaf01:mgmt:~$``, ``root@sw:~#`` or a bare ``$``/``#``."""
_SUDO = re.compile(r"^sudo\s+(?:-\S+\s+)*")
_SKIPPED_NV = frozenset(
    {"show", "action", "list-commands", "help", "complete", "-h", "--help", "--version"}
)
_CONFIG_LOADS = frozenset({"patch", "replace"})
_NCLU = re.compile(r"^net\s+(?:add|del)\b")
_CONF_LINE = re.compile(r"^[a-z_]+(?:\.[\w\-\[\]]+)+\s*=\s*\S")
_QOS_WORDS = re.compile(
    r"pfc|ecn|red|pause|qos|dscp|cos|roce|buffer|mtu|speed|sched|shap|lossless|breakout"
    r"|priority|trust|watchdog|pool",
    re.IGNORECASE,
)

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


def strip_prompt(line: str) -> str:
    """A line without its shell prompt and ``sudo``."""
    text = PROMPT.sub("", line.strip(), count=1).strip()
    return _SUDO.sub("", text, count=1)


def command_words(line: str) -> list[str] | None:
    """Return the words of an ``nv`` command line (prompt removed) or None for other lines."""
    text = strip_prompt(line)
    if not text.startswith("nv "):
        return None
    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return text.split()


def _is_set(words: list[str] | None) -> bool:
    return words is not None and len(words) > 2 and words[1] in ("set", "unset")


def nclu_roce(line: str) -> list[str] | None:
    """The NVUE command an NCLU RoCE one-shot stands for, or None for any other line.

    Cumulus Linux 4.4 documents each NCLU RoCE command next to its NVUE equivalent (S1,
    "RDMA over Converged Ethernet - RoCE"): ``net add roce lossless`` = ``nv set qos roce``
    (NVUE's default mode is lossless), ``net add roce lossy`` = ``nv set qos roce mode
    lossy``, ``net del roce`` = ``nv unset qos roce``. Both configure the same RoCE
    defaults (trust DSCP, DSCP 26 -> switch priority 3 with PFC and ECN, CNP on priority 6
    strict), so the NCLU line is read as its NVUE twin.
    """
    words = strip_prompt(line).split()
    if words[:3] in (["net", "add", "roce"], ["net", "del", "roce"]):
        rest = words[3:]
        if words[1] == "del" and not rest:
            return ["nv", "unset", "qos", "roce"]
        if words[1] == "add" and rest in (["lossless"], ["lossy"]):
            return ["nv", "set", "qos", "roce", "mode", rest[0]]
    return None


def is_commands_text(text: str) -> bool:
    """True when at least one line is an ``nv set`` or ``nv unset`` command (or an NCLU RoCE
    one-shot, read as its NVUE twin: :func:`nclu_roce`).

    The prompt and ``sudo`` are only ever cut from the start of a line, so a command's words
    are in the raw line as written: a line without ``nv `` (or ``net`` and ``roce``) is no
    command, and is not split."""
    return any(
        ("nv " in raw and _is_set(command_words(raw)))
        or ("net" in raw and "roce" in raw and nclu_roce(raw) is not None)
        for raw in text.splitlines()
    )


has_set_commands = is_commands_text


def load_commands(text: str, issues: Issues) -> ConfigTree:
    """Build the configuration tree from the ``nv set`` / ``nv unset`` lines of ``text``."""
    tree = ConfigTree()
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = strip_prompt(raw)
        if not stripped or stripped.startswith("```"):
            continue
        words = command_words(raw) or nclu_roce(raw)
        if words is None:
            _other_line(stripped, number, tree, issues)
        elif _is_set(words) and words[1] == "set":
            _set(tree, words[2:], number)
        elif _is_set(words):
            _unset(tree.root, words[2:])
        elif len(words) > 2 and words[1] == "config" and words[2] in _CONFIG_LOADS:
            issues.add(
                stripped,
                "loads NVUE configuration from a file that is not in the input",
                number,
                features=("trust", "dscp_map", "pfc", "watchdog", "ecn", "scheduler", "buffers"),
            )
        elif len(words) > 1 and (words[1] == "config" or words[1] in _SKIPPED_NV):
            tree.skipped_lines.append(number)
        else:
            issues.add(stripped, "not an `nv set` or `nv unset` command", number)
    return tree


def _other_line(text: str, number: int, tree: ConfigTree, issues: Issues) -> None:
    """A line that is not an ``nv`` command: NCLU or datapath QoS config is reported."""
    if text.startswith("#"):
        return
    if (_NCLU.match(text) or _CONF_LINE.match(text)) and _QOS_WORDS.search(text):
        issues.add(
            text,
            "QoS configuration outside NVUE (NCLU or datapath .conf) is not read",
            number,
            ports=line_ports(text) if _NCLU.match(text) else None,
            features=keyword_features(text),
        )
        return
    tree.skipped_lines.append(number)


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
