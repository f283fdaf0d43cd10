"""How a platform's CLI says a command failed, for output read from an interactive shell.

Over an interactive session there is no exit status: a rejected command is recognised by
the text it prints first. Linux-based platforms (SONiC, Cumulus, hosts) print shell errors
(``-bash: nv: command not found``), click/NVUE errors (``Error: ...``, ``Usage: ...``) or
sudo errors (:data:`SHELL`); EOS and NX-OS print ``% Invalid input`` / ``% Invalid command at
'^' marker`` (after a caret line on NX-OS) (:data:`CISCO`). Each platform names its pattern
(``Platform.error_marker``). Only the first three non-empty lines are looked at, so a config
that contains such words further down is not mistaken for an error.
"""

from __future__ import annotations

import re

SHELL = re.compile(
    r"^(?:-?(?:ba|z|da)?sh: .*(?:command not found|No such file or directory|Permission denied)"
    r"|sudo: .+|Error: .+|Usage: .+|.*: command not found)$"
)
"""An error line of a Linux shell, sudo, click or NVUE."""
CISCO = re.compile(r"^% ?(?:Invalid|Incomplete|Ambiguous|Unrecognized|Error|Permission)\b.*$")
"""An error line of a Cisco-like CLI (EOS, NX-OS)."""


def command_error(platform: str, output: str) -> str | None:
    """The error line when ``output`` says a command of ``platform`` failed, else None (the
    platform's ``error_marker``; a platform without a package has none)."""
    from rocetune.platforms import get_driver

    driver = get_driver(platform)
    return driver.command_error(output) if driver is not None else None
