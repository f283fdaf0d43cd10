"""The vendor shape, step 1: running-config text -> a tree of lines, plus the RT001 collector.

The tree is built by :mod:`rocetune.platforms.common.cli_tree` (indentation, or the CLI
modes for unindented scripts and transcripts; prompts, banners and exec commands removed)
with the NX-OS modes below. ``!`` lines are comments. A line starting with ``#`` is not
NX-OS syntax (the switch rejects it): it is dropped from the tree, so it cannot break the
nesting of the lines around it, and reported as Unparsed.

Modes (what a column-0 line of a pasted script belongs to): ``interface`` (every command
except the global ones in :data:`TOP_WORDS`; ``ip``/``ipv6``/``lldp``/``priority-flow-control``
/``service-policy``/``spanning-tree``/``mac``/``vrf`` stay interface commands), ``policy-map``
with its ``class`` sub-mode (class actions: :data:`CLASS_WORDS`), ``class-map``, ``system
qos`` and the non-QoS blocks (``router``, ``vrf context``, ``vlan``, ``line`` ...). The NX-OS
CLI itself falls back to the global mode for a global command typed in a sub-mode.

Readers of a block use :meth:`Node.walk` (every line below it in file order), so an action
indented one column off still belongs to its class.
"""

from __future__ import annotations

from rocetune.platforms.common.cli_tree import Grammar, Issues, Node, is_global, word_set
from rocetune.platforms.common.cli_tree import build_tree as _build

__all__ = ["OTHER_BLOCKS", "TOP_WORDS", "Issues", "Node", "build_tree"]

TOP_WORDS = word_set(
    "interface policy-map class-map system hostname switchname feature vlan router line"
    " username ntp-server snmp-server boot banner version control-plane route-map track"
    " object-group aaa tacacs-server radius-server nv evpn service clock cli license rmon copp"
    " ssh telnet fex role key install event callhome system-mac cfs password port-profile vdc"
    " userpassphrase crypto segment-routing telemetry nxapi http-server table-map xml"
    " switching-mode errdisable"
)
"""First words of global-only commands: a column-0 line starting so leaves any mode (the
pairs of :data:`~rocetune.platforms.common.cli_tree.GLOBAL_PAIRS` as well)."""
_GLOBAL_QOS = word_set("priority-flow-control qos mls ecn wred")
"""QoS words that are global outside an interface (an open policy or class-map closes)."""
CLASS_WORDS = word_set(
    "set bandwidth priority random-detect pause mtu congestion-control police shape"
    " queue-limit description afd dpp no"
)
OTHER_BLOCKS = word_set(
    "router vlan line role route-map vpc key track object-group monitor event"
    " port-profile vdc crypto"
)
"""Non-QoS blocks: consumed whole."""
_BLOCK_PAIRS = frozenset(
    {
        ("vrf", "context"),
        ("ip", "access-list"),
        ("ipv6", "access-list"),
        ("mac", "access-list"),
        ("ip", "prefix-list"),
        ("spanning-tree", "mst"),
    }
)


def _head(words: list[str]) -> str:
    if words[0] in ("no", "default") and len(words) > 1:
        return words[1]
    return words[0]


def _opens(words: list[str], parent: str | None) -> str | None:
    head = words[0]
    if head == "interface" and words[1:2] != ["breakout"] and len(words) > 1:
        return "interface"
    if head == "policy-map":
        return "policy"
    if head == "class-map":
        return "class-map"
    if words[:2] == ["system", "qos"]:
        return "system"
    if head == "class" and parent in ("policy", "class"):
        return "class"
    if head in OTHER_BLOCKS or tuple(words[:2]) in _BLOCK_PAIRS:
        return "other"
    return None


def _accepts(mode: str, words: list[str]) -> bool:
    head = _head(words)
    if mode == "class":
        return head in CLASS_WORDS
    if mode == "policy" and head == "class":
        return True
    if mode == "system":
        return head in ("service-policy", "fex")
    if mode == "interface" and head in ("priority-flow-control", "qos", "mls"):
        return True
    return not is_global(words, TOP_WORDS) and head not in _GLOBAL_QOS


def _submode(mode: str, words: list[str]) -> bool:
    return mode == "policy" and words[0] == "class"


def _comment(text: str) -> str | None:
    if text.startswith("#"):
        return "not NX-OS syntax ('!' starts a comment); the switch rejects this line"
    return None


GRAMMAR = Grammar(opens=_opens, accepts=_accepts, submode=_submode, comment=_comment)


def build_tree(text: str, issues: Issues) -> list[Node]:
    """Return the top-level lines of ``text`` with the lines of their modes as children."""
    return _build(text, GRAMMAR, issues)
