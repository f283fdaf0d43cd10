"""Read and parse many snapshots: in this process, or over a pool of forked processes.

Parsing is CPU-bound pure Python, so one process uses one core. For a big fleet the
snapshots are parsed by ``processes`` forked workers (results come back pickled, in the
order of the jobs, so the output does not depend on the pool). Small fleets stay in this
process: forking, pickling and start-up cost more than they save below
:data:`DEVICES_PER_PROCESS` devices per process.

Workers ignore SIGINT and take SIGTERM's default action: the parent handles Ctrl-C/SIGTERM
and terminates the pool on its way out (``finally``), so no worker outlives the run.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from rocetune.load import Loaded, load_device

if TYPE_CHECKING:
    from rocetune.parsecache import ParseCache

DEVICES_PER_PROCESS = 64
"""Below this many devices per process a pool costs more than it saves."""


class Job(NamedTuple):
    """One device to read: the arguments of :func:`rocetune.load.load_device`."""

    name: str
    source: Path | str | None
    platform: str | None
    role: str | None
    asic: str | None = None


def cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def process_count(requested: int | None, jobs: int) -> int:
    """Processes to parse ``jobs`` snapshots: ``requested`` (at most one per job), else one
    per :data:`DEVICES_PER_PROCESS` snapshots up to the CPUs."""
    if requested is not None:
        return max(1, min(requested, jobs))
    return max(1, min(cpus(), jobs // DEVICES_PER_PROCESS))


def _load(job: Job, cache: ParseCache | None = None) -> Loaded:
    return load_device(job.name, job.source, job.platform, job.role, job.asic, cache=cache)


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def load_all(
    jobs: Sequence[Job], processes: int | None = None, cache: ParseCache | None = None
) -> Iterator[Loaded]:
    """Each job's :class:`Loaded`, in the order of ``jobs``. With ``cache`` (rocetune.parsecache)
    the snapshots are read in this process: a cache hit costs less than shipping it back from
    a worker (parsing the misses in the pool is left to do)."""
    if cache is not None:
        for job in jobs:
            yield _load(job, cache)
        return
    count = process_count(processes, len(jobs))
    if count <= 1 or not hasattr(os, "fork"):
        for job in jobs:
            yield _load(job)
        return
    import multiprocessing

    pool = multiprocessing.get_context("fork").Pool(count, initializer=_worker_init)
    try:
        chunk = max(1, min(16, len(jobs) // (count * 8)))
        yield from pool.imap(_load, jobs, chunksize=chunk)
        pool.close()
    finally:
        pool.terminate()
        pool.join()
