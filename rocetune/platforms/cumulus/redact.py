"""Secret redaction for Cumulus Linux outputs (NVUE YAML, ``nv set`` lists, NVUE JSON).

NVUE YAML: the value of every ``password``, ``hashed-password``, ``secret``, ``key``,
``passkey``, ``auth-md5``/``auth-sha``, ``encrypt-aes``/``encrypt-des`` member (TACACS+
and RADIUS servers, local users, BGP neighbours, SNMPv3 users), and the SNMP community
names, which are the *keys* under ``readonly-community`` / ``readonly-community-v6``
(``service``/``system snmp-server``), under a trap destination's ``community-password``
and under SNMPv3 ``auth-*``/``encrypt-*``, replaced by numbered placeholders so keys stay
distinct; multi-line (block scalar) values of those members, line by line. ``nv set``
lines: the token after those words and after ``readonly-community``.
JSON (``nv show ... -o json``): members whose key names a secret. FRR text: the Cisco-like
rules. Private keys anywhere.
"""

from __future__ import annotations

import re

from rocetune.platforms.common.redact import (
    CISCO_LIKE,
    PLACEHOLDER,
    redact_generic,
    redact_json_members,
    redact_rules,
)
from rocetune.snapshot import Command

_WORDS = (
    r"(?:password|hashed-password|secret|key|passkey|auth-md5|auth-sha|encrypt-aes"
    r"|encrypt-des|authentication-key|md5-key)"
)
_YAML_VALUE = re.compile(
    rf"^[ \t]*(?:- )?['\"]?{_WORDS}['\"]?[ \t]*:[ \t]+(?P<s>[^\s#][^\n]*?)[ \t]*$",
    re.MULTILINE,
)
_NV_SET = re.compile(
    rf"^[ \t]*(?:\S+[$#]\s*)?nv (?:set|unset)\b.*?\b(?:{_WORDS}|readonly-community(?:-v6)?"
    r"|community-password)"
    r" (?P<s>'[^'\n]*'|\"[^\"\n]*\"|\S+)",
    re.MULTILINE,
)
_COMMUNITY_PARENT = re.compile(
    r"^(?P<i>[ \t]*)(?:- )?(?:readonly-community(?:-v6)?|community-password"
    r"|auth-(?:md5|sha)|encrypt-(?:aes|des))[ \t]*:[ \t]*$"
)
"""Mappings whose child *keys* are secrets: SNMP communities (read-only and of trap
destinations) and SNMPv3 user passwords (``username X auth-sha <password>``)."""
_BLOCK_SECRET = re.compile(
    rf"^(?P<i>[ \t]*)(?:- )?['\"]?{_WORDS}['\"]?[ \t]*:[ \t]*[|>][+-]?[0-9]?[ \t]*$"
)
_COMMUNITY_FLOW = re.compile(
    r"(readonly-community(?:-v6)?[ \t]*:[ \t]*\{[ \t]*)(?P<s>[^:{}\s,]+)", re.MULTILINE
)
_YAML_KEY = re.compile(r"(?P<q>['\"]?)(?P<k>[^:'\"#]+)(?P=q)[ \t]*:(?P<rest>(?:[ \t].*)?)$")


def _sub(rule: re.Pattern[str], text: str) -> str:
    def one(match: re.Match[str]) -> str:
        start = match.start()
        s0, s1 = match.start("s") - start, match.end("s") - start
        return match.group(0)[:s0] + PLACEHOLDER + match.group(0)[s1:]

    return rule.sub(one, text)


def redact_communities(text: str) -> str:
    """Rename the child keys of ``readonly-community`` mappings (block style)."""
    lines = text.split("\n")
    parent: int | None = None
    child: int | None = None
    count = 0
    for i, line in enumerate(lines):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        meaningful = bool(body) and not body.startswith("#")
        if parent is not None and meaningful and indent <= parent:
            parent = child = None
        if parent is not None and meaningful:
            child = indent if child is None else child
            match = _YAML_KEY.match(body)
            if indent == child and match:
                count += 1
                lines[i] = " " * indent + f"{PLACEHOLDER}-{count}:" + match.group("rest")
            continue
        found = _COMMUNITY_PARENT.match(line)
        if found:
            parent, child = len(found.group("i")), None
    return "\n".join(lines)


def redact_blocks(text: str) -> str:
    """Replace each line of a block-scalar value (``password: |``) of a secret member."""
    lines = text.split("\n")
    block: int | None = None
    for i, line in enumerate(lines):
        body = line.lstrip(" \t")
        indent = len(line) - len(body)
        if block is not None:
            if not body or indent > block:
                if body:
                    lines[i] = line[:indent] + PLACEHOLDER
                continue
            block = None
        found = _BLOCK_SECRET.match(line)
        if found:
            block = len(found.group("i"))
    return "\n".join(lines)


def redact(command: Command, text: str) -> str:
    """Return ``text`` (the output of ``command``) with every secret replaced."""
    if command.encoding == "json":
        text = redact_json_members(text)
    else:
        text = redact_blocks(text)  # before the one-line rule takes `|`/`>` for the value
        text = _sub(_YAML_VALUE, text)
        text = _sub(_NV_SET, text)
        text = _sub(_COMMUNITY_FLOW, text)
        text = redact_communities(text)
        text = redact_rules(text, CISCO_LIKE)
    return redact_generic(text)
