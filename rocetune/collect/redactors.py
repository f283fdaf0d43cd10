"""Which redactor cleans which platform's outputs (the rules live in rocetune/platforms/).

A platform without an entry gets :func:`rocetune.platforms.common.redact.redact_generic`
plus the JSON member and Cisco-like rules: better too much than a leak.
"""

from __future__ import annotations

import importlib
from functools import cache

from rocetune.collect.device import Redactor
from rocetune.platforms.common.redact import (
    CISCO_LIKE,
    redact_generic,
    redact_json_members,
    redact_rules,
)
from rocetune.snapshot import Command

REDACTORS: dict[str, str] = {
    "sonic": "rocetune.platforms.sonic.redact",
    "cumulus": "rocetune.platforms.cumulus.redact",
    "eos": "rocetune.platforms.eos.redact",
    "nxos": "rocetune.platforms.nxos.redact",
    "linux_host": "rocetune.platforms.linux_host.redact",
}
"""Platform -> module with ``redact(command, text) -> str``."""


def _fallback(command: Command, text: str) -> str:
    if command.encoding == "json":
        text = redact_json_members(text)
    else:
        text = redact_rules(text, CISCO_LIKE)
    return redact_generic(text)


@cache
def redactor_for(platform: str) -> Redactor:
    """The redactor of ``platform``."""
    module = REDACTORS.get(platform)
    if module is None:
        return _fallback
    func: Redactor = importlib.import_module(module).redact
    return func
