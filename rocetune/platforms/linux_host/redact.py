"""Secret redaction for Linux host outputs.

The host commands (``mlnx_qos``, ``ethtool``, sysfs, ``mlxconfig``, ``lldpctl``) carry no
credentials; still, a mistaken or wrapped command (a transcript, a shell history, a setup
script) can. Redacted: JSON members whose key names a secret, PEM private keys, and the
shell forms that carry a password or token: ``*PASSWORD*=``/``*TOKEN*=``/``*SECRET*=``
assignments, ``password:`` lines, ``sshpass -p``, ``ipmitool ... -P``, ``mysql -p``,
``curl -u user:password`` and HTTP ``Authorization:`` headers.
"""

from __future__ import annotations

import re

from rocetune.platforms.common.redact import (
    redact_generic,
    redact_json_members,
    redact_rules,
)
from rocetune.snapshot import Command

_VALUE = r"(?P<s>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"
SHELL_RULES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.MULTILINE | re.IGNORECASE)
    for p in (
        rf"\b[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|TOKEN|SECRET|API_?KEY)[A-Z0-9_]*={_VALUE}",
        rf"\b(?:password|passwd|passphrase|secret|token)[ \t]*:[ \t]*{_VALUE}",
        rf"\bsshpass\b(?:\s+-\w)*\s+-p\s*{_VALUE}",
        rf"\bipmitool\b.*?\s-P\s+{_VALUE}",
        r"\bmysql\b.*?\s-p(?P<s>[^\s'\"]+)",
        r"\bcurl\b.*?\s(?:-u|--user)\s+['\"]?[^:\s'\"]+:(?P<s>[^\s'\"]+)",
        r"\bAuthorization:[ \t]*(?:Bearer|Basic|Token)[ \t]+(?P<s>\S+)",
    )
)


SHELL_TRIGGERS: tuple[tuple[str, ...], ...] = (
    ("pass", "token", "secret", "api"),
    ("pass", "secret", "token"),
    ("sshpass",),
    ("ipmitool",),
    ("mysql",),
    ("curl",),
    ("authorization",),
)
"""Per rule of :data:`SHELL_RULES`: words (lower case) one of which every match contains.
A test derives this from the rules' patterns (a match of rule 0 holds ``PASS``, ``TOKEN``,
``SECRET`` or ``API``, ...)."""


def redact_shell(text: str) -> str:
    """:data:`SHELL_RULES` applied to ``text``, each rule only when ``text`` holds one of its
    trigger words (host outputs rarely hold any: one scan instead of seven).

    Same result as applying every rule: a skipped rule has no match. Case-insensitive
    matching is ASCII case folding only on ASCII text (Unicode folds ``ſ`` to ``s`` and
    the Kelvin sign to ``k``), so other text gets every rule. A replacement cannot make a
    new trigger: the placeholder ``<redacted>`` holds none and its ``<``/``>`` stop a word
    from spanning it.
    """
    if not text.isascii():
        return redact_rules(text, SHELL_RULES)
    lower = text.lower()
    for rule, words in zip(SHELL_RULES, SHELL_TRIGGERS, strict=True):
        if any(word in lower for word in words):
            text = redact_rules(text, (rule,))
    return text


def redact(command: Command, text: str) -> str:
    """Return ``text`` (the output of ``command``) with every secret replaced."""
    text = redact_json_members(text) if command.encoding == "json" else redact_shell(text)
    return redact_generic(text)
