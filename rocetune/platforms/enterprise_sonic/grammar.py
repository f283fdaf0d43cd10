"""``sonic-cli`` (Klish) text -> a tree of lines by CLI mode, with Klish prompts understood.

``show running-configuration`` of Enterprise SONiC separates blocks with ``!`` and may or may
not indent their bodies (vendor guides print it flush left); CLI transcripts carry Klish
prompts (``sonic(config)#``, ``sonic(conf-if-Ethernet0)#``, ``sonic(conf-wred-ROCE)#``,
``(config-if-range-eth**)$``). Prompts are rewritten into the form
:mod:`rocetune.platforms.common.cli_tree` reads (``host(config)#`` closes every mode,
``host(config-x)#`` keeps the open one), line numbers unchanged; then lines are placed by
mode (:data:`GRAMMAR`):

- ``interface ...`` opens an interface body; ``qos map <kind> NAME``, ``qos wred-policy
  NAME`` and ``qos scheduler-policy NAME`` open policy bodies, ``queue N`` inside a
  scheduler policy opens a queue body;
- a column-0 line leaves an interface body when it is a global command (:data:`TOP_WORDS`,
  the global ``priority-flow-control watchdog polling-interval|counter-poll``, ``buffer
  init|pool|profile``, ``qos map|wred-policy|scheduler-policy|buffer ...``); it leaves a
  policy body unless it is one of that body's commands;
- blocks rocetune does not read (``router``, ``line``, ``hardware``, access lists, ...)
  swallow their bodies the same way.
"""

from __future__ import annotations

import re

from rocetune.platforms.common.cli_tree import (
    Grammar,
    Issues,
    Node,
    build_tree,
    is_global,
    word_set,
)

__all__ = ["GRAMMAR", "TOP_WORDS", "Issues", "Node", "normalise_prompts", "read_tree"]

TOP_WORDS = word_set(
    "interface hostname qos roce router line hardware username snmp-server ntp logging aaa"
    " tacacs-server radius-server mclag vlan interface-naming spanning-tree sflow banner"
    " management clock system errdisable route-map class-map policy-map copp-action dhcp"
    " evpn nat ptp tam bfd threshold switch-resource ztp feature mac access-list tcam"
    " ip-sla port-group lldp vrf load-balance"
)
"""First words of global-only Klish commands (a column-0 line starting so leaves a body)."""

OTHER_BLOCKS = word_set(
    "router line hardware access-list tcam route-map class-map policy-map aaa management"
    " mclag vrf tam ptp copp-action evpn nat threshold switch-resource ztp ip-sla"
)
"""Blocks rocetune does not read; their bodies are consumed (QoS-looking lines reported)."""

MAP_KINDS = (
    "dscp-tc",
    "dot1p-tc",
    "tc-queue",
    "tc-pg",
    "tc-dscp",
    "tc-dot1p",
    "pfc-priority-queue",
    "pfc-priority-pg",
)
_MAP_WORDS = word_set("dscp dot1p traffic-class pfc-priority no")
_WRED_WORDS = word_set("green yellow red ecn no")
_SCHED_WORDS = word_set("queue port no")
_QUEUE_WORDS = word_set("type weight cir pir cbs pbs meter-type priority no")
_GLOBAL_PAIRS = frozenset(
    {("ip", "route"), ("ip", "prefix-list"), ("ip", "access-list"), ("ipv6", "route")}
)
_PROMPT = re.compile(
    r"^(?P<lead>\$\s+)?(?P<host>[A-Za-z0-9][\w.\-]{0,62})?"
    r"\((?P<mode>conf(?:ig)?(?:-[^)\s]*)?)\)\s?[#$]\s?"
)
_DOLLAR = re.compile(r"^\$\s+(?=\S)")
_NO_HOST = "klish-prompt-without-host"
_MESSAGE = re.compile(r"%\s?(?:Info|Error|Warning|Note)\b")
_IF_MODE = re.compile(r"conf-if-((?:Ethernet|Eth)[\d/]+)")
_PLACEHOLDER = re.compile(r"^interface \S+ ?<[^>]*>\s*$")


def _head(words: list[str]) -> list[str]:
    return words[1:] if words[0] == "no" and len(words) > 1 else words


def _global_line(words: list[str]) -> bool:
    """A command that exists only in global configuration mode."""
    body = _head(words)
    first = body[0]
    if first == "qos":
        return body[1:2] in (["map"], ["wred-policy"], ["scheduler-policy"]) or (
            body[1:3] in (["buffer", "init"], ["buffer", "pool"]) or body[1:2] == ["buffer-profile"]
        )
    if first == "priority-flow-control":
        return body[1:3] in (["watchdog", "polling-interval"], ["watchdog", "counter-poll"])
    if first == "buffer":
        return body[1:2] in (["init"], ["pool"], ["profile"])
    return tuple(body[:2]) in _GLOBAL_PAIRS or first in TOP_WORDS


def _opens(words: list[str], parent: str | None) -> str | None:
    if words[0] == "interface" and len(words) > 1 and words[1] != "breakout":
        return "interface"
    if words[:2] == ["qos", "map"] and len(words) >= 3:
        return "map"
    if words[:2] == ["qos", "wred-policy"]:
        return "wred"
    if words[:2] == ["qos", "scheduler-policy"]:
        return "sched"
    if words[0] == "queue" and parent in ("sched", "squeue"):
        return "squeue"
    if words[0] in OTHER_BLOCKS or tuple(words[:2]) in (("ip", "access-list"),):
        return "other"
    return None


def _accepts(mode: str, words: list[str]) -> bool:
    body = _head(words)
    if mode == "map":
        return body[0] in _MAP_WORDS
    if mode == "wred":
        return body[0] in _WRED_WORDS
    if mode == "sched":
        return body[0] in _SCHED_WORDS
    if mode == "squeue":
        return body[0] in _QUEUE_WORDS
    if mode == "interface":
        return not _global_line(words) and not is_global(words, frozenset())
    return not _global_line(words)


def _submode(mode: str, words: list[str]) -> bool:
    return mode == "sched" and words[0] == "queue"


GRAMMAR = Grammar(opens=_opens, accepts=_accepts, submode=_submode)


def normalise_prompts(text: str) -> str:
    """Klish prompts -> the ``host(config...)#`` form of the shared tree reader (line count
    kept): ``(conf-if-Ethernet0)#`` becomes ``(config-if)#`` and ``(config)$`` or a leading
    ``$ `` shell prompt is dropped to its command."""
    out: list[str] = []
    placeholder: int | None = None
    for raw in text.splitlines():
        line = raw.lstrip()
        match = _PROMPT.match(line)
        if match is not None:
            host = match.group("host") or _NO_HOST
            mode = "config" if match.group("mode") in ("config", "conf") else "config-sub"
            rest = line[match.end() :]
            named = _IF_MODE.fullmatch(match.group("mode"))
            if placeholder is not None and named is not None:
                # ``interface Ethernet <id>`` in a guide, the prompt then names the port
                out[placeholder] = re.sub(
                    r"interface .*", f"interface {named.group(1)}", out[placeholder]
                )
            placeholder = len(out) if _PLACEHOLDER.search(rest) else None
            out.append(f"{host}({mode})# {rest}" if rest else f"{host}({mode})#")
            continue
        if _MESSAGE.match(line):
            out.append("")  # what the CLI printed (``%Info: ...``, ``%Error: ...``)
            continue
        out.append(_DOLLAR.sub("", raw) if raw.startswith("$") else raw)
    return "\n".join(out)


def read_tree(text: str, issues: Issues) -> list[Node]:
    """Return the top-level nodes of a sonic-cli configuration text."""
    roots = build_tree(normalise_prompts(text), GRAMMAR, issues)
    if issues.prompt_host == _NO_HOST:
        issues.prompt_host = None
    return roots
