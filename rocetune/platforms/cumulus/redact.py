"""Secret redaction for Cumulus Linux outputs (NVUE YAML, ``nv set`` lists, NVUE JSON).

NVUE YAML: the value of every ``password``, ``hashed-password``, ``secret``, ``key``,
``passkey``, ``auth-md5``/``auth-sha``, ``encrypt-aes``/``encrypt-des`` member (TACACS+
and RADIUS servers, local users, BGP neighbours, SNMPv3 users), and the SNMP community
names, which are the *keys* under ``readonly-community`` / ``readonly-community-v6``
(``service``/``system snmp-server``), replaced by numbered placeholders so keys stay
distinct. ``nv set`` lines: the token after those words and after ``readonly-community``.
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
    r"|encrypt-des|authentication-key)"
)
_YAML_VALUE = re.compile(
    rf"^[ \t]*(?:- )?['\"]?{_WORDS}['\"]?[ \t]*:[ \t]+(?P<s>[^\s#][^\n]*?)[ \t]*$",
    re.MULTILINE,
)
_NV_SET = re.compile(
    rf"^[ \t]*(?:\S+[$#]\s*)?nv (?:set|unset)\b.*?\b(?:{_WORDS}|readonly-community(?:-v6)?)"
    r" (?P<s>'[^'\n]*'|\"[^\"\n]*\"|\S+)",
    re.MULTILINE,
)
_COMMUNITY_PARENT = re.compile(r"^(?P<i>[ \t]*)(?:- )?readonly-community(?:-v6)?[ \t]*:[ \t]*$")
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


def redact(command: Command, text: str) -> str:
    """Return ``text`` (the output of ``command``) with every secret replaced."""
    if command.encoding == "json":
        text = redact_json_members(text)
    else:
        text = _sub(_YAML_VALUE, text)
        text = _sub(_NV_SET, text)
        text = _sub(_COMMUNITY_FLOW, text)
        text = redact_communities(text)
        text = redact_rules(text, CISCO_LIKE)
    return redact_generic(text)
