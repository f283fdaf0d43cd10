"""One device's collection job: what to collect, how, and what happened.

:func:`run_job` collects one device with retries and writes its snapshot; it never raises.
The pool (:mod:`.pool`) runs many of them; :mod:`.runner` builds them from the inventory.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from rocetune.collect.device import Collected, collect_device
from rocetune.collect.options import CollectOptions
from rocetune.collect.reasons import Failure, Reason, classify
from rocetune.collect.spill import SpillError
from rocetune.collect.target import Target
from rocetune.collect.transport import Transport
from rocetune.collect.writer import write_device
from rocetune.platforms.base import Platform


@dataclass(frozen=True)
class Outcome:
    """What happened to one device."""

    name: str
    platform: str | None
    path: Path | None = None
    """The written snapshot directory (None when the device failed)."""
    failure: Failure | None = None
    seconds: float = 0.0
    commands: int = 0
    rejected: int = 0
    """Optional commands the device rejected (recorded in meta.json)."""

    @property
    def ok(self) -> bool:
        """Collected and written."""
        return self.failure is None


@dataclass(frozen=True)
class Job:
    """One device to collect, fully resolved."""

    target: Target
    driver: Platform
    nics: tuple[str, ...]
    transport: Transport
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """Strings scrubbed from failure messages (the password)."""


def _scrub(failure: Failure, secrets: Iterable[str]) -> Failure:
    detail = failure.detail
    for secret in secrets:
        detail = detail.replace(secret, "<redacted>")
    return replace(failure, detail=detail)


def _attempts(
    job: Job, options: CollectOptions, stop: threading.Event, spill_to: Path
) -> Collected | Outcome:
    """Run the job with retries; return the Collected data or a failed Outcome."""
    attempt = 0
    redact = job.driver.redactor
    while True:
        attempt += 1
        try:
            return collect_device(
                job.target, job.driver, job.nics, job.transport, redact, stop=stop,
                spill_to=spill_to,
            )  # fmt: skip
        except SpillError as exc:  # a local write failure: WRITE_FAILED, not retried
            raise exc.error from exc
        except Exception as exc:
            failure = classify(exc)
        if not failure.reason.transient or attempt > options.retries or stop.is_set():
            failure = _scrub(replace(failure, attempts=attempt), job.secrets)
            return Outcome(job.target.name, job.target.platform, failure=failure)
        delay = options.backoff * 2 ** (attempt - 1) * (1 + random.uniform(0, 0.25))
        if stop.wait(delay):
            failure = _scrub(replace(failure, attempts=attempt), job.secrets)
            return Outcome(job.target.name, job.target.platform, failure=failure)


def run_job(job: Job, out_dir: Path, options: CollectOptions, stop: threading.Event) -> Outcome:
    """Collect one device and write its snapshot; never raises."""
    start = time.monotonic()
    name, platform = job.target.name, job.target.platform
    try:
        got = _attempts(job, options, stop, out_dir)
        if isinstance(got, Outcome):
            return replace(got, seconds=round(time.monotonic() - start, 3))
        try:
            meta = got.meta(name, platform)
            path = write_device(
                out_dir, name, got.outputs, meta, durable=options.durable, spilled=got.spilled
            )
        finally:
            got.close()
    except OSError as exc:  # a full disk or read-only file system: said once, exit 2
        where = exc.filename or out_dir
        failure = Failure(Reason.WRITE_FAILED, f"{where}: {exc.strerror or exc}")
        return Outcome(name, platform, failure=_scrub(failure, job.secrets))
    except Exception as exc:  # a bug must not lose the other devices
        failure = Failure(Reason.INTERNAL, f"{type(exc).__name__}: {exc}".splitlines()[0])
        return Outcome(name, platform, failure=_scrub(failure, job.secrets))
    return Outcome(
        name,
        platform,
        path=path,
        seconds=round(time.monotonic() - start, 3),
        commands=len(got.records),
        rejected=got.failed_optional,
    )
