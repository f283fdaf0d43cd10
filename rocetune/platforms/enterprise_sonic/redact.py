"""Secret redaction for Enterprise SONiC (sonic-cli) outputs.

sonic-cli prints secrets as ``<token> encrypted`` (an OpenSSL-salted base64 blob,
``U2FsdGVkX1...``) or in the clear when typed so: ``username NAME password HASH role R``,
``tacacs-server [host H] key K``, ``radius-server [host H] key K``, ``snmp-server community
NAME``, ``snmp-server host H community NAME``, ``snmp-server user U group G [encrypted]
auth md5|sha auth-password P priv des|aes-128 priv-password P``, ``ldap-server nss|pam
bindpw P``, ``mfa client-secret S`` / ``key-seed S``, ``ntp authentication-key N md5|sha1|
sha2-256 K``, BGP ``password P``, OSPF ``authentication-key`` / ``message-digest-key N md5
K`` (Dell Ansible collection examples). The Cisco-like rules of
:mod:`rocetune.platforms.common.redact` cover the keywords the two CLIs share; the rules
below add the sonic-cli-only ones and any salted blob left on a line of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocetune.platforms.common.redact import (
    CISCO_LIKE,
    TOKEN,
    Rule,
    redact_generic,
    redact_rules,
    rule,
)

if TYPE_CHECKING:
    from rocetune.snapshot import Command


KLISH_RULES: tuple[Rule, ...] = (
    rule(rf"\b(?:auth|priv)-password {TOKEN}"),
    rule(rf"\bbindpw {TOKEN}"),
    rule(rf"\b(?:client-secret|key-seed|shared-secret|passkey) {TOKEN}"),
    rule(rf"^[ \t]*snmp-server host \S+\b.*?\bcommunity {TOKEN}"),
    rule(rf"^[ \t]*(?:tacacs|radius)-server\b.*?\bkey {TOKEN}"),
    rule(rf"\bauthentication-key(?: \d+)? (?:md5|sha\S*) {TOKEN}"),
    rule(r"(?P<s>U2FsdGVkX1[A-Za-z0-9+/=]+)"),
)


def redact(command: Command, text: str) -> str:
    """Return ``text`` (the output of ``command``) with every secret replaced."""
    del command
    return redact_generic(redact_rules(redact_rules(text, CISCO_LIKE), KLISH_RULES))
