"""Indented-CLI configuration text (NX-OS, EOS) -> a tree of lines, read as the switch reads it.

A switch's CLI is mode-based: ``interface X`` enters interface mode, ``policy-map P`` enters
policy mode, ``class C`` inside it enters class mode, and every following command belongs
to that mode until a command of an enclosing mode (or ``exit``) leaves it. A saved
``show running-config`` shows the modes by indentation; pasted scripts, vendor runbooks and
CLI transcripts often do not indent at all. The tree therefore follows both:

- an indented line is a child of the nearest line above it that is indented less (the
  running-config shape); an indentation every line shares (a script copied from a document)
  is removed first;
- a line at column 0 is placed by mode: it stays in the innermost open mode that accepts it
  (:class:`Grammar`), else it is a top-level command; ``exit`` leaves one mode, ``end``
  leaves all. A mode whose body was indented in the file is closed by any column-0 line
  except its own sub-mode openers (``class`` after a policy-map);
- CLI prompts are removed (``leaf01(config-if)# mtu 9216``, ``switch# show run``,
  ``switch(config)#``); a ``(config)#`` prompt means global mode (closes every open mode);
  exec commands (``show ...``, ``configure terminal``, ``copy``, ``write``) are consumed;
- ``banner <kind> <delimiter>...<delimiter>`` (NX-OS, IOS), ``banner <kind>`` ... ``EOF``
  and ``comment`` ... ``EOF`` (EOS) are consumed whole; ``!`` lines are comments.

:class:`Issues` is the shared unparsed-line collector (:mod:`.unparsed`) with what a tree
reader adds: the host name of the first prompt and recording a node, a block or the QoS-looking
lines of a skipped block. Each item names the ports of the interface body it sits in (``None``
for a global line) and the features it may change (:func:`~.unparsed.features_of`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

from rocetune.model.device import Feature
from rocetune.platforms.common.unparsed import UnparsedCollector

MAX_LINES = 500_000
_PROMPT = re.compile(
    r"^(?P<host>[A-Za-z0-9][\w.\-:/]{0,62})(?P<mode>\((?:config|cfg)[\w\-./ ]{0,40}\))?"
    r"(?P<end>#|>)(?=[\sa-z]|$)\s?"
)
_EXEC = re.compile(
    r"^(?:show|sh|configure|conf|config|copy|write|wr|terminal|term|enable|disable|ping"
    r"|traceroute|reload|dir|more|bash|run|clear|debug|exit|end|quit|logout|en)\b"
)
_STRONG_QOS = re.compile(
    r"priority-flow-control|random-detect|\bqos\b|\bpfc\b|\becn\b|tx-queue|service-policy"
    r"|no-drop|\bpause\b|qos-group|\bmtu\b"
)
_LIST = re.compile(r"\d{1,3}[.)]\s+")
_ESCAPED_NOTE = re.compile(r"\s*\\\(.*\\\)\s*$")
_NOTE = re.compile(r"\s+\([^()]*\)\s*$")
_ECHO = ("Enter configuration commands, one per line.",)
"""What the CLI prints on ``configure terminal`` (a transcript line, not configuration)."""
_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
"""Line boundaries of ``str.splitlines`` other than ``\n``."""
_BANNER = re.compile(r"^banner\s+(?:motd|login|exec|incoming|slip-ppp)\b\s*(.*)$")


@dataclass(slots=True)
class Node:
    """One configuration line and the lines of its mode below it.

    Slotted, and a line without children shares the empty tuple: a tree holds every line of
    a config (an instance dict and an empty list per line were ~9x the text)."""

    text: str
    """The line without prompt, indentation and trailing blanks."""
    line: int
    indent: int
    children: list[Node] | tuple[()] = ()
    mode: str | None = None
    """The mode this line opens (``interface``, ``policy``, ``class``), if any."""
    indented: bool = False
    """Whether the file indents this mode's body (then column 0 leaves it)."""

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


@dataclass(frozen=True)
class Grammar:
    """What a platform's modes are, for column-0 lines.

    ``opens(words, parent_mode)`` -> the mode a line opens (None: a plain command);
    ``accepts(mode, words)`` -> whether a column-0 line is a command of that open mode;
    ``submode(mode, words)`` -> whether the line opens a sub-mode of that mode (such lines
    stay in an indented mode too: NX-OS ``class`` after an indented class).
    """

    opens: Callable[[list[str], str | None], str | None]
    accepts: Callable[[str, list[str]], bool]
    submode: Callable[[str, list[str]], bool]
    comment: Callable[[str], str | None] = lambda text: None
    """A reason to report a non-``!`` comment line (NX-OS ``#``), else None to keep it."""


def word_set(text: str) -> frozenset[str]:
    """The blank-separated words of ``text`` (keyword tables)."""
    return frozenset(text.split())


GLOBAL_PAIRS = frozenset(
    {
        ("ip", "route"),
        ("ip", "routing"),
        ("ip", "access-list"),
        ("ip", "prefix-list"),
        ("ip", "name-server"),
        ("ip", "domain-name"),
        ("ip", "domain-lookup"),
        ("ip", "community-list"),
        ("ip", "as-path"),
        ("ip", "tacacs"),
        ("ip", "radius"),
        ("ipv6", "route"),
        ("ipv6", "access-list"),
        ("ipv6", "prefix-list"),
        ("ipv6", "unicast-routing"),
        ("vrf", "context"),
        ("vrf", "instance"),
        ("spanning-tree", "mode"),
        ("spanning-tree", "mst"),
        ("port-channel", "load-balance"),
        ("lldp", "timer"),
        ("lldp", "run"),
        ("lldp", "holdtime"),
        ("mac", "address-table"),
        ("ntp", "server"),
        ("ntp", "source"),
        ("ntp", "source-interface"),
        ("logging", "server"),
        ("logging", "host"),
        ("logging", "buffered"),
        ("logging", "console"),
        ("logging", "level"),
        ("logging", "format"),
        ("logging", "logfile"),
        ("logging", "timestamp"),
        ("hardware", "access-list"),
        ("hardware", "profile"),
        ("hardware", "tcam"),
    }
)
"""Two-word commands that exist only in the global mode (their first word is an interface
command as well, so the first word alone does not leave the interface)."""


def is_global(words: list[str], global_words: frozenset[str]) -> bool:
    """Whether a column-0 line is a global-mode command (it leaves interface/policy modes)."""
    body = words[1:] if words[0] in ("no", "default") and len(words) > 1 else words
    return body[0] in global_words or tuple(body[:2]) in GLOBAL_PAIRS


def strip_prompt(raw: str) -> tuple[str, str | None]:
    """``leaf01(config-if)# mtu 9216`` -> (``mtu 9216``, ``sub``); ``switch# x`` -> exec.

    The hint is ``global`` (``(config)#``), ``sub`` (``(config-xxx)#``), ``exec`` (``#`` or
    ``>`` without a mode) or None (no prompt).
    """
    match = _PROMPT.match(raw)
    if match is None:
        return raw, None
    mode = match.group("mode")
    rest = raw[match.end() :]
    if mode is None:
        # ``host#`` alone is a prompt only when a command or nothing follows it
        return rest, "exec"
    return rest, "global" if mode in ("(config)", "(cfg)") else "sub"


def unprompt(text: str) -> str:
    """``text`` with the CLI prompt and list markers removed from every line (for sniffing)."""
    return "\n".join(strip_prompt(_unlist(line)[0])[0] for line in text.splitlines())


def _banner_end(words_rest: str) -> tuple[str | None, bool]:
    """The banner's delimiter and whether it closes on its own line."""
    rest = words_rest.strip()
    if not rest:
        return "EOF", False
    delim = rest[:2] if rest.startswith("^C") else rest[0]
    return delim, delim in rest[len(delim) :]


def build_tree(text: str, grammar: Grammar, issues: Issues) -> list[Node]:
    """Return the top-level lines of ``text`` with the lines of their modes as children."""
    roots: list[Node] = []
    stack: list[Node] = []
    banner: str | None = None
    base = _base_indent(islice(iter_lines(text), MAX_LINES))
    for number, raw in enumerate(islice(iter_lines(text), MAX_LINES), start=1):
        body = raw.replace("\t", " ").rstrip().lstrip("\ufeff")[base:]
        if banner is not None:
            if (banner == "EOF" and body.strip() == "EOF") or (banner != "EOF" and banner in body):
                banner = None
            continue
        stripped = body.lstrip(" ")
        indent = len(body) - len(stripped)
        hint = None
        if indent == 0:
            before = stripped
            stripped, listed = _unlist(stripped)
            stripped, hint = strip_prompt(stripped)
            stripped = _uncomment(stripped.strip(), listed)
            if hint is not None and issues.prompt_host is None:
                issues.prompt_host = _PROMPT.match(before).group("host")  # type: ignore[union-attr]
        if not stripped or stripped.startswith("!") or stripped.startswith(_ECHO):
            continue
        if stripped in ("exit", "end"):
            _leave(stack, all_modes=stripped == "end")
            continue
        if hint == "exec" or (indent == 0 and _EXEC.match(stripped)):
            continue
        if hint == "global":
            stack.clear()
        if stripped == "comment":
            banner = "EOF"  # EOS ``comment`` ... ``EOF``: free text
            continue
        match = _BANNER.match(stripped)
        if match is not None:
            delim, closed = _banner_end(match.group(1))
            banner = None if closed else delim
            continue
        reason = grammar.comment(stripped)
        if reason is not None:
            issues.add(stripped, reason, number, features=())
            continue
        node = Node(text=stripped, line=number, indent=indent)
        parent = _parent(node, stack, grammar) if indent == 0 else _indented(node, stack)
        node.mode = grammar.opens(node.words, parent.mode if parent else None)
        _attach(node, parent, roots)
        stack.append(node)
    return roots


def _attach(node: Node, parent: Node | None, roots: list[Node]) -> None:
    if parent is None:
        roots.append(node)
    elif parent.children:
        parent.children.append(node)
    else:
        parent.children = [node]  # the first child: a list of its own from now on


def iter_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` one by one, as ``str.splitlines`` splits them (not held in a
    list: only the lines a tree keeps stay alive)."""
    if _BREAKS.search(text):  # other line boundaries than "\n": rare, split at once
        yield from text.splitlines()
        return
    start, end = 0, len(text)
    while start < end:
        stop = text.find("\n", start)
        if stop < 0:
            stop = end
        yield text[start:stop]
        start = stop + 1


def _unlist(text: str) -> tuple[str, bool]:
    """``11.\tpriority-flow-control mode on`` (a runbook's numbered step) -> the command."""
    match = _LIST.match(text)
    return (text[match.end() :], True) if match else (text, False)


def _uncomment(text: str, listed: bool) -> str:
    """Drop a runbook's trailing explanation: ``\\(...\\)`` always, ``(...)`` after a numbered
    step; expand the ``int`` abbreviation of ``interface``."""
    match = _ESCAPED_NOTE.search(text) or (_NOTE.search(text) if listed else None)
    if match is not None:
        text = text[: match.start()].rstrip()
    words = text.split(maxsplit=1)
    if words and words[0] in ("int", "inter", "interf") and len(words) == 2:
        text = f"interface {words[1]}"
    return text


def _base_indent(lines: Iterable[str]) -> int:
    """The indentation every line shares (a script pasted from a document, all lines indented
    by four blanks, reads as unindented)."""
    base: int | None = None
    for raw in lines:
        body = raw.replace("\t", " ").rstrip().lstrip("\ufeff")
        stripped = body.lstrip(" ")
        if stripped:
            indent = len(body) - len(stripped)
            base = indent if base is None else min(base, indent)
            if base == 0:
                return 0
    return base or 0


def _leave(stack: list[Node], *, all_modes: bool) -> None:
    """``exit`` leaves the innermost open mode, ``end`` every mode."""
    if all_modes:
        stack.clear()
        return
    while stack and stack[-1].mode is None:
        stack.pop()
    if stack:
        stack.pop()


def _indented(node: Node, stack: list[Node]) -> Node | None:
    while stack and stack[-1].indent >= node.indent:
        stack.pop()
    parent = stack[-1] if stack else None
    if parent is not None:
        parent.indented = True
    return parent


def _parent(node: Node, stack: list[Node], grammar: Grammar) -> Node | None:
    words = node.words
    while stack:
        top = stack[-1]
        if top.mode is not None and (
            grammar.submode(top.mode, words)
            or (not top.indented and grammar.accepts(top.mode, words))
        ):
            node.indent = top.indent if top.indented else 0
            return top
        stack.pop()
    return None


@dataclass
class Issues(UnparsedCollector):
    """The Unparsed items (RT001) of one CLI file (:class:`UnparsedCollector`), and the host
    name its first prompt shows."""

    prompt_host: str | None = None
    """The host name the first CLI prompt of the file shows (``leaf01(config)#``)."""

    def node(self, node: Node, reason: str, *, features: tuple[Feature, ...] | None = None) -> None:
        """Record one configuration line."""
        self.add(node.text, reason, node.line, features=features)

    def suspects(self, node: Node, reason: str) -> None:
        """Record the lines below a skipped (non-QoS) block that look QoS-related.

        Control-plane (CoPP) blocks police traffic to the CPU: not the data path."""
        if "control-plane" in node.text:
            return
        for child in node.walk():
            if _STRONG_QOS.search(child.text):
                self.node(child, reason)

    def block(self, node: Node, reason: str) -> None:
        """Record a line and every line below it."""
        self.node(node, reason)
        for child in node.walk():
            self.node(child, reason)
