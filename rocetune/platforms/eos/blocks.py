"""Running-config text -> a tree of lines (by indentation or by CLI mode), and the RT001 collector.

EOS indents sub-modes (``interface``, ``qos profile``, ``tx-queue``) by three spaces per level
(some generated configs use four); a line belongs to the nearest preceding line with a smaller
indent. Unindented scripts and CLI transcripts (``switch(config-if-Et1)# mtu 9214``) are read
by mode (:mod:`rocetune.platforms.common.cli_tree`): a column-0 line stays in the open
``interface`` / ``qos profile`` mode unless it is a global command (:data:`TOP_WORDS`;
``qos map|profile|random-detect|rewrite`` and ``priority-flow-control all|pause watchdog
default|action|override`` are global, other ``qos`` / ``priority-flow-control`` lines are
interface commands), and in the ``tx-queue N`` sub-mode while it is a queue command
(``random-detect``, ``bandwidth``, ``priority``, ``shape``). ``!`` lines are comments,
``end`` closes every mode, ``banner motd`` ... ``EOF`` is skipped. Tabs count as one column.
"""

from __future__ import annotations

import re
from itertools import islice

from rocetune.platforms.common.cli_tree import (
    Grammar,
    Issues,
    Node,
    build_tree,
    is_global,
    iter_lines,
    word_set,
)

__all__ = ["TOP_WORDS", "Issues", "Node", "header_comments", "read_tree"]

TOP_WORDS = word_set(
    "interface hostname router vlan username snmp-server banner management platform daemon"
    " aaa clock dns monitor policy-map class-map event-handler boot enable route-map"
    " peer-filter tacacs-server radius-server alias agent traffic-policies system prompt"
    " schedule tap tunnel-ribs event-monitor load-balance terminal application ntp-server"
    " transceiver service"
)
"""First words of global-only commands: a column-0 line starting so leaves any mode (the
pairs of :data:`~rocetune.platforms.common.cli_tree.GLOBAL_PAIRS` as well)."""
_QUEUE_WORDS = word_set("random-detect bandwidth priority shape no default")
_QUEUES = ("tx-queue", "uc-tx-queue", "mc-tx-queue")
_SEGMENT_WORDS = word_set("identifier redundancy designated-forwarder route-target mpls")
"""Commands of the interface ``evpn ethernet-segment`` sub-mode."""
_ACL = re.compile(r"(?:ip|ipv6|mac) (?:access-list|prefix-list) |(?:ip|ipv6) access-list ")
OTHER_BLOCKS = word_set(
    "router vlan management daemon monitor route-map peer-filter mlag event-handler"
    " traffic-policies policy-map class-map aaa"
)


def _head(words: list[str]) -> list[str]:
    return words[1:] if words[0] in ("no", "default") and len(words) > 1 else words


def _global_qos(words: list[str]) -> bool:
    body = _head(words)
    if body[0] == "qos":
        return body[1:2] in (["map"], ["profile"], ["random-detect"], ["rewrite"])
    if body[0] == "priority-flow-control":
        return body[1:2] == ["all"] or body[1:4] in (
            ["pause", "watchdog", "default"],
            ["pause", "watchdog", "action"],
            ["pause", "watchdog", "override"],
        )
    return False


def _opens(words: list[str], parent: str | None) -> str | None:
    if words[0] == "interface" and len(words) > 1:
        return "interface"
    if words[:2] == ["qos", "profile"]:
        return "profile"
    if words[0] in _QUEUES and parent in ("interface", "profile", "queue"):
        return "queue"
    if words[:2] == ["evpn", "ethernet-segment"] and parent == "interface":
        return "segment"
    if _ACL.match(" ".join(words)):
        return "other"
    if words[0] == "platform" or words[0] in OTHER_BLOCKS or words[:2] == ["vrf", "instance"]:
        return "other"
    return None


def _accepts(mode: str, words: list[str]) -> bool:
    body = _head(words)
    if mode == "queue":
        return words[0] in _QUEUE_WORDS and body[0] in _QUEUE_WORDS
    if mode == "segment":
        return body[0] in _SEGMENT_WORDS
    if body[0] in ("qos", "priority-flow-control"):
        return mode in ("interface", "profile") and not _global_qos(words)
    return not is_global(words, TOP_WORDS)


def _submode(mode: str, words: list[str]) -> bool:
    return mode in ("interface", "profile") and words[0] in _QUEUES


def _comment(text: str) -> str | None:
    if text.startswith("#"):
        return "not EOS syntax ('!' starts a comment); the switch rejects this line"
    return None


GRAMMAR = Grammar(opens=_opens, accepts=_accepts, submode=_submode, comment=_comment)


def read_tree(text: str, issues: Issues) -> list[Node]:
    """Return the top-level nodes of a configuration text."""
    return build_tree(text, GRAMMAR, issues)


def header_comments(text: str, limit: int = 40) -> list[str]:
    """The ``!`` comment lines among the first ``limit`` lines, without the ``!``."""
    out: list[str] = []
    for raw in islice(iter_lines(text), limit):  # not a list of every line (~3x the text)
        body = raw.strip()
        if body.startswith("!"):
            out.append(body.lstrip("!").strip())
    return out
