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

from rocetune.collect.job import Outcome
from rocetune.collect.options import DEFAULT_WORKERS, CollectOptions
from rocetune.collect.reasons import Failure, Reason
from rocetune.collect.runner import CollectConfigError, collect
from rocetune.collect.target import Timeouts, Trust

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
