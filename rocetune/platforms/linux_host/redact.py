"""Secret redaction for Linux host outputs.

The host commands (``mlnx_qos``, ``ethtool``, sysfs, ``mlxconfig``, ``lldpctl``) carry no
credentials; still, JSON members whose key names a secret and PEM private keys are redacted
so a mistaken command cannot leak one into a snapshot.
"""

from __future__ import annotations

from rocetune.platforms.common.redact import redact_generic, redact_json_members
from rocetune.snapshot import Command


def redact(command: Command, text: str) -> str:
    """Return ``text`` (the output of ``command``) with every secret replaced."""
    if command.encoding == "json":
        text = redact_json_members(text)
    return redact_generic(text)
