"""Secret redaction of collected outputs: the engine and the rules shared by platforms.

Every rule replaces only the secret itself, in place, with :data:`PLACEHOLDER`, so a
redacted output keeps its line numbers (provenance stays valid) and its syntax (JSON stays
JSON, YAML stays YAML). Over-redaction is preferred to a leak: a rule that is unsure
whether a token is secret redacts it. Rules:

- :func:`redact_private_keys`: PEM private-key bodies (``-----BEGIN ... PRIVATE KEY-----``),
  in plain text and inside JSON strings;
- :data:`CISCO_LIKE`: line rules for the Cisco-like CLI configs of EOS, NX-OS and FRR
  (``username ... secret sha512 <hash>``, ``enable secret``, ``snmp-server community``,
  ``snmp-server user ... auth/priv``, ``tacacs-server``/``radius-server ... key``, BGP
  ``neighbor ... password``, OSPF/NTP/IS-IS keys, ``key-string``);
- :func:`redact_json_members`: JSON members whose key names a secret (``passkey``,
  ``password``, ``secret``, ``community`` ...), and :func:`redact_json_embedded`: multi-line
  strings inside JSON (SONiC ``bgpraw`` is FRR configuration text) get ``text_rules``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocetune.snapshot import Command

PLACEHOLDER = "<redacted>"
"""What a secret is replaced with."""

Rule = re.Pattern[str]
"""A regular expression with a named group ``s`` around the secret."""

_TYPE = r"(?: (?:0|3|5|6|7|8|9|sha512|sha256))?"
TOKEN = r'(?P<s>"[^"\n]*"|[^\s"\\]+)'
"""The secret of a line rule: a quoted string or one word (the ``s`` group)."""


def rule(pattern: str) -> Rule:
    """A line rule (multi-line, case-insensitive); ``pattern`` names the secret ``s``
    (usually :data:`TOKEN`)."""
    return re.compile(pattern, re.MULTILINE | re.IGNORECASE)


CISCO_LIKE: tuple[Rule, ...] = (
    rule(rf"\bsecret{_TYPE} {TOKEN}"),
    rule(rf"\bpassword{_TYPE} {TOKEN}"),
    rule(rf"^[ \t]*snmp-server community {TOKEN}"),
    rule(rf"^[ \t]*snmp-server user \S.*?\bauth (?:md5|sha\S*) {TOKEN}"),
    rule(rf"^[ \t]*snmp-server user \S.*?\bpriv(?: (?:des|3des|aes\S*))? {TOKEN}"),
    rule(rf"^[ \t]*(?:tacacs|radius)-server\b.*?\bkey{_TYPE} {TOKEN}"),
    rule(rf"\b(?:authentication-key|key-string)(?: \d+)?(?: md5| sha\S*)?{_TYPE} {TOKEN}"),
    rule(rf"\bmessage-digest-key \d+ md5{_TYPE} {TOKEN}"),
    rule(rf"\bpre-shared-key{_TYPE} {TOKEN}"),
    rule(rf"^[ \t]*isis authentication key{_TYPE} {TOKEN}"),
    # SNMP notification receivers carry the v1/v2c community in the clear
    rule(rf"^[ \t]*snmp-server host \S+\b.*?\bversion (?:1|2c) {TOKEN}"),
    # IS-IS (router level), VRRP/HSRP text and PIM hello authentication
    rule(rf"\bauthentication key{_TYPE} {TOKEN}"),
    rule(rf"\bauthentication text {TOKEN}"),
    rule(rf"\bhello-authentication ah-md5{_TYPE} {TOKEN}"),
    # MACsec CAKs: EOS `profile X` / `key <CKN> 7 <CAK>`, NX-OS `key-octet-string 7 <CAK>`
    rule(rf"^[ \t]+key [0-9A-Fa-f]+ (?:0|7) {TOKEN}"),
    rule(rf"\bkey-octet-string{_TYPE} {TOKEN}"),
    # CloudVision onboarding key in the TerminAttr daemon's command line
    rule(r"-cvauth=key,(?P<s>[^\s,]+)"),
)
"""Line rules for EOS, NX-OS and FRR running-config text."""

_PEM = re.compile(
    r"-----BEGIN (?P<kind>[A-Z0-9 ]*)PRIVATE KEY-----(?P<s>.*?)-----END (?P=kind)PRIVATE KEY-----",
    re.DOTALL,
)
_SECRET_KEY = re.compile(
    r"pass(?:key|word|wd|phrase)|secret|communit|auth[_-]?key|priv(?:acy)?[_-]?(?:key|pass)"
    r"|private[_-]?key|pre[_-]?shared|\bpsk\b|hashed|cak\b",
    re.IGNORECASE,
)
_JSON_STRING = r'"(?:[^"\\\n]|\\.)*"'
_JSON_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
_JSON_MEMBER = re.compile(
    rf"(?P<k>{_JSON_STRING})(?P<sep>\s*:\s*)(?P<v>{_JSON_STRING}|{_JSON_NUMBER}(?=\s*[,}}\]]))"
)
_JSON_TOKEN = re.compile(_JSON_STRING)


def redact_rules(text: str, rules: Iterable[Rule]) -> str:
    """Replace group ``s`` of every match of every rule with the placeholder."""
    for rule in rules:
        text = rule.sub(_replace_group, text)
    return text


def _replace_group(match: re.Match[str]) -> str:
    whole, start = match.group(0), match.start()
    s0, s1 = match.start("s") - start, match.end("s") - start
    secret = match.group("s")
    if secret in (PLACEHOLDER, f'"{PLACEHOLDER}"'):
        return whole
    quoted = secret.startswith('"') and secret.endswith('"') and len(secret) >= 2
    new = f'"{PLACEHOLDER}"' if quoted else PLACEHOLDER
    return whole[:s0] + new + whole[s1:]


def redact_private_keys(text: str) -> str:
    """Replace the body of every PEM private key, keeping its line count."""

    def body(match: re.Match[str]) -> str:
        inner = match.group("s")
        lines = [  # keep each line's indentation: a key inside a YAML block stays YAML
            line[: len(line) - len(line.lstrip())] + PLACEHOLDER if line.strip() else line
            for line in inner.split("\n")
        ]
        kind = match.group("kind")
        return (
            f"-----BEGIN {kind}PRIVATE KEY-----"
            + "\n".join(lines)
            + f"-----END {kind}PRIVATE KEY-----"
        )

    return _PEM.sub(body, text)


def _json_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def redact_json_members(text: str, secret_key: Callable[[str], bool] | None = None) -> str:
    """Redact the value of every JSON member whose key names a secret.

    String values, and numbers too (a numeric passkey is a secret all the same); the
    placeholder is a string either way.
    """
    is_secret = secret_key or (lambda k: bool(_SECRET_KEY.search(k)))

    def member(match: re.Match[str]) -> str:
        try:
            key = json.loads(match.group("k"))
        except ValueError:
            return match.group(0)
        if not is_secret(key) or match.group("v") in ('""', _json_str(PLACEHOLDER)):
            return match.group(0)
        return match.group("k") + match.group("sep") + _json_str(PLACEHOLDER)

    return _JSON_MEMBER.sub(member, text)


def redact_json_embedded(text: str, text_rules: Callable[[str], str]) -> str:
    """Apply ``text_rules`` to every multi-line string inside a JSON document."""

    def token(match: re.Match[str]) -> str:
        raw = match.group(0)
        if "\\n" not in raw:
            return raw
        try:
            value = json.loads(raw)
        except ValueError:
            return raw
        new = text_rules(value)
        return raw if new == value else _json_str(new)

    return _JSON_TOKEN.sub(token, text)


def redact_json_tokens(text: str, secrets: Iterable[str]) -> str:
    """Replace JSON strings that are (or end with ``|`` +) one of ``secrets``.

    Numbered placeholders keep object keys distinct (SNMP community names are keys).
    """
    wanted = {s for s in secrets if s}
    if not wanted:
        return text
    numbers: dict[str, int] = {}

    def token(match: re.Match[str]) -> str:
        raw = match.group(0)
        try:
            value = json.loads(raw)
        except ValueError:
            return raw
        head, bar, tail = value.rpartition("|")
        secret = tail if bar else value
        if secret not in wanted:
            return raw
        n = numbers.setdefault(secret, len(numbers) + 1)
        return _json_str(f"{head}{bar}{PLACEHOLDER}-{n}")

    return _JSON_TOKEN.sub(token, text)


def redact_generic(text: str) -> str:
    """Rules that hold for any output: private keys."""
    return redact_private_keys(text)


def redact_cisco_like(command: Command, text: str) -> str:
    """Redact a Cisco-like CLI output (EOS, NX-OS running-configs) or its ``| json`` form."""

    def config(body: str) -> str:
        return redact_rules(body, CISCO_LIKE)

    if command.encoding == "json":
        text = redact_json_embedded(redact_json_members(text), config)
    else:
        text = config(text)
    return redact_generic(text)


def redact_fallback(command: Command, text: str) -> str:
    """The redactor of a platform without its own: JSON members whose key names a secret,
    else the Cisco-like line rules, plus private keys (better too much than a leak)."""
    if command.encoding == "json":
        text = redact_json_members(text)
    else:
        text = redact_rules(text, CISCO_LIKE)
    return redact_generic(text)
