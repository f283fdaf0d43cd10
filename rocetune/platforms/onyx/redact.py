"""Secret redaction for NVIDIA Onyx outputs.

``show running-config`` hides most secrets itself (``# radius-server key ********``), but
not all: local users keep their hash (``username admin password 7 $6$...``; ``password 0
<clear>`` when typed so), SNMP communities and v3 user keys are in the clear, and a pasted
``radius-server key``/``tacacs-server key`` line may carry the key. Rules: the Cisco-like
rules of :mod:`rocetune.platforms.common.redact` plus the Onyx forms below; private keys
anywhere.
"""

from __future__ import annotations

from rocetune.platforms.common.redact import (
    CISCO_LIKE,
    TOKEN,
    Rule,
    redact_generic,
    redact_private_keys,
    redact_rules,
    rule,
)
from rocetune.snapshot import Command

ONYX: tuple[Rule, ...] = (
    rule(rf"^[ \t]*username \S+ password(?: [07])? {TOKEN}"),
    rule(rf"^[ \t]*snmp-server community {TOKEN}"),
    rule(rf"^[ \t]*snmp-server user \S+ v3 \S.*?\bauth \S+ {TOKEN}"),
    rule(rf"^[ \t]*snmp-server user \S+ v3 \S.*?\bpriv \S+ {TOKEN}"),
    rule(rf"^[ \t]*(?:radius|tacacs)-server\b.*?\bkey(?: [07])? {TOKEN}"),
    rule(rf"^[ \t]*ldap bind-password {TOKEN}"),
    rule(rf"^[ \t]*web proxy auth basic password {TOKEN}"),
    rule(rf"^[ \t]*ntp\b.*?\bkey \d+ \S+ {TOKEN}"),
    rule(rf"^[ \t]*ntp authentication-key \d+ \S+ {TOKEN}"),
)
"""Onyx line rules (the ``********`` Onyx prints itself is replaced as well)."""


def redact(command: Command, text: str) -> str:
    """Return ``text`` (the output of ``command``) with every secret replaced."""
    del command
    text = redact_private_keys(text)
    text = redact_rules(text, ONYX)
    text = redact_rules(text, CISCO_LIKE)
    return redact_generic(text)
