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


def redact(command: Command, text: str) -> str:
    """Return ``text`` (the output of ``command``) with every secret replaced."""
    if command.encoding == "json":
        text = redact_json_members(text)
    else:
        text = redact_rules(text, SHELL_RULES)
    return redact_generic(text)
