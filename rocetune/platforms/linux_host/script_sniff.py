"""Recognise a host setup script (shell, or a playbook / cloud-init running shell commands).

A file is a setup script when it sets NIC state with the host tools (``mlnx_qos`` with a set
option, ``cma_roce_tos -t``, ``cma_roce_mode -m``, a write to the ECN / traffic class /
rdma_cm files, ``mlxconfig ... set``) and either starts with a shell ``#!`` line, or shows no
sign of being a terminal session: no prompt or ``bash -x`` trace line and no tool output
(``Priority trust state:``, ``PFC configuration:`` ...). Terminal sessions stay transcripts
(what the tools printed wins there); switch files never contain these host commands.
"""

from __future__ import annotations

import re

from rocetune.platforms.linux_host.script_parse import (
    AndOr,
    Case,
    For,
    Func,
    Group,
    If,
    Loop,
    Node,
    Pipeline,
    Seq,
    Simple,
    parse,
)
from rocetune.platforms.linux_host.script_yaml import looks_like_yaml
from rocetune.platforms.linux_host.segments import MAX_LINES, prompt_command

SETTER = re.compile(
    r"mlnx_qos\b.*\s(?:--trust|--pfc|-f|--dscp2prio|--prio_tc|--tsa|--tcbw|--cable_len"
    r"|--buffer_size|--prio2buffer)\b"
    r"|cma_roce_tos\b.*\s-t\b|cma_roce_mode\b.*\s-m\b"
    r"|(?:>|\btee\b)\s*\"?\S*/sys/class/(?:net/\S+/ecn/|infiniband/\S+/tc/)"
    r"|(?:>|\btee\b)\s*\"?\S*/(?:default_roce_(?:mode|tos)|roce_[nr]p/(?:enable/|cnp_))"
    r"|(?:mlxconfig|mstconfig)\b.*\s(?:set|s)\s+[A-Z]"
)
_SHEBANG = re.compile(
    r"#!\s*\S*/(?:env\s+)?(?:ba|da|z|k)?sh\b|#!\s*/usr/bin/env\s+(?:ba|da|z|k)?sh\b"
)
_OUTPUT = re.compile(
    r"(?:Priority trust state|PFC configuration|DCBX mode|dscp2prio mapping|Cable len"
    r"|Receive buffer size|Global tclass)\s*[:=]"
    r"|tc: \d+ ratelimit|(?:enabled|buffer|priority)(?:\s+\d){8}\s*$|IB/RoCE v[12]\s*$"
    r"|RoCE v[12]\s*$|\d+\s*$"
)


def is_script(text: str) -> bool:
    """True when ``text`` is a host setup script (see the module doc)."""
    body = text.lstrip("\ufeff")
    lines = body.splitlines()[:MAX_LINES]
    if not lines:
        return False
    if looks_like_yaml(body):
        return True
    code = [ln for ln in (raw.strip() for raw in lines) if ln and not ln.startswith("#")]
    if not any(SETTER.search(ln) for ln in code):
        return False
    if _SHEBANG.match(lines[0].strip()):
        return True
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("```"):
            continue
        if prompt_command(line) is not None or _OUTPUT.fullmatch(line):
            return False
    return _reads_as_shell(body)


def _reads_as_shell(text: str) -> bool:
    """Without a ``#!`` line: the whole text parses as shell and names no prose word
    (``Note:``) as a command (notes and Markdown tables do not)."""
    tree, error = parse(text.replace("```", ""))
    if error is not None:
        return False
    names = [n.words[0] for n in _simple(tree) if n.words]
    return not any(name[-1:] in (":", ".", ",") for name in names)


def _simple(node: Node) -> list[Simple]:
    if isinstance(node, Simple):
        return [node]
    found: list[Simple] = []
    for child in _children(node):
        found.extend(_simple(child))
    return found


def _children(node: Node) -> list[Node]:
    if isinstance(node, Seq):
        return list(node.items)
    if isinstance(node, AndOr):
        return [n for _, n in node.items]
    if isinstance(node, Pipeline):
        return list(node.commands)
    if isinstance(node, (For, Loop, Group, Func)):
        return [node.body] if not isinstance(node, Loop) else [node.cond, node.body]
    if isinstance(node, If):
        out: list[Node] = [n for pair in node.clauses for n in pair]
        return out + ([node.orelse] if node.orelse is not None else [])
    if isinstance(node, Case):
        return [body for _, body in node.arms]
    return []
