"""Live collection over SSH: netmiko sessions, concurrency, retries, credentials, trust.

Entry point: :func:`collect` (inventory -> one snapshot directory per device). Modules:
:mod:`.options` (settings), :mod:`.credentials`,
:mod:`.target` (address, ssh_config, host-key trust, timeouts), :mod:`.transport` (the
netmiko and exec-channel sessions), :mod:`.device` (one device's commands and follow-ups,
redaction with the platform's redactor),
:mod:`.writer` (atomic snapshot directories), :mod:`.reasons` (failure classification),
:mod:`.job` (one device: retries, snapshot), :mod:`.pool` (threads and processes),
:mod:`.runner` (inventory -> jobs -> outcomes), :mod:`.progress` (stderr progress),
:mod:`.local` (host-local collection: the same jobs over local processes, no SSH).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rocetune.collect.job import Outcome
    from rocetune.collect.options import DEFAULT_WORKERS, CollectOptions
    from rocetune.collect.reasons import Failure, Reason
    from rocetune.collect.runner import CollectConfigError, collect
    from rocetune.collect.target import Timeouts, Trust

_LAZY = {
    "DEFAULT_WORKERS": "options",
    "CollectConfigError": "runner",
    "CollectOptions": "options",
    "Failure": "reasons",
    "Outcome": "job",
    "Reason": "reasons",
    "Timeouts": "target",
    "Trust": "target",
    "collect": "runner",
}
"""Name -> its module: imported on first use, so ``rocetune audit`` of saved snapshots (which
only reads the options) does not load netmiko, paramiko and the collection machinery."""

__all__ = [
    "DEFAULT_WORKERS",
    "CollectConfigError",
    "CollectOptions",
    "Failure",
    "Outcome",
    "Reason",
    "Timeouts",
    "Trust",
    "collect",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(import_module(f"{__name__}.{module}"), name)
