"""How each platform's CLI says a command failed, for output read from an interactive shell.

Over an interactive session there is no exit status: a rejected command is recognised by
the text it prints first. Linux-based platforms (SONiC, Cumulus, hosts) print shell errors
(``-bash: nv: command not found``), click/NVUE errors (``Error: ...``, ``Usage: ...``) or
sudo errors; EOS and NX-OS print ``% Invalid input`` / ``% Invalid command at '^' marker``
(after a caret line on NX-OS). Only the first three non-empty lines are looked at, so a
config that contains such words further down is not mistaken for an error.
"""

from __future__ import annotations

import re

_SHELL = re.compile(
    r"^(?:-?(?:ba|z|da)?sh: .*(?:command not found|No such file or directory|Permission denied)"
    r"|sudo: .+|Error: .+|Usage: .+|.*: command not found)$"
)
_CISCO = re.compile(r"^% ?(?:Invalid|Incomplete|Ambiguous|Unrecognized|Error|Permission)\b.*$")
_CARET = re.compile(r"^\s*\^\s*$")

MARKERS: dict[str, re.Pattern[str]] = {
    "sonic": _SHELL,
    "cumulus": _SHELL,
    "linux_host": _SHELL,
    "eos": _CISCO,
    "nxos": _CISCO,
}
"""Platform -> the pattern of an error line."""


def command_error(platform: str, output: str) -> str | None:
    """The error line when ``output`` says the command failed, else None."""
    marker = MARKERS.get(platform)
    if marker is None:
        return None
    lines = [line.strip() for line in output.splitlines() if line.strip()][:3]
    for line in lines:
        if _CARET.match(line):
            continue
        if marker.match(line):
            return line[:200]
    return None
