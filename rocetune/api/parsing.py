"""Read and parse many snapshots: in this process, or over a pool of forked processes.

Parsing is CPU-bound pure Python, so one process uses one core. For a big fleet the
snapshots are parsed by ``processes`` forked workers (results come back pickled, in the
order of the jobs, so the output does not depend on the pool). Small fleets stay in this
process: forking, pickling and start-up cost more than they save below
:data:`DEVICES_PER_PROCESS` devices per process.

With a parse cache (rocetune.parsecache) every device is looked up here first by its stat
signature (no file read): hits are decoded in this process, and only the rest (changed,
new, or not yet recorded) goes to the pool, where each worker reads, hashes, looks up and
parses; the workers' cache counters and stat-index records come back with their results.

Workers ignore SIGINT and take SIGTERM's default action: the parent handles Ctrl-C/SIGTERM
and terminates the pool on its way out (``finally``), so no worker outlives the run.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from rocetune.load import Loaded, cached_device, entry_device, load_device
from rocetune.model.share import Sharer, sharing

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


_worker_cache: list[ParseCache] = []
"""The parent's cache, inherited by forked workers (held only while a pool runs)."""
_worker_sharer: list[Sharer] = []
"""A pool worker's :class:`~rocetune.model.share.Sharer` (set by :func:`_worker_init`)."""

Counts = tuple[int, int, int, int]


class Entry(NamedTuple):
    """A device a worker parsed and stored: its parse cache entry's bytes, sent instead of a
    second pickle of the parse; the parent reads it as a later run reads the cache."""

    key: str
    identity: str
    raw: bytes


def _load_in_worker(
    job: Job,
) -> tuple[Loaded | Entry, list[tuple[str, list[Any]]], Counts]:
    """:func:`_load` with the inherited cache; what it recorded and counted comes back.

    Ports share equal values as they are built (as in one process), with the other devices
    of this worker too: the entry and the pickle sent back hold each map once per device. A
    device the worker stored comes back as its entry's bytes (:class:`Entry`)."""
    sharer = _worker_sharer[0] if _worker_sharer else Sharer()
    if not _worker_cache:
        with sharing(sharer):
            item = _load(job)
        if item.result is not None:
            sharer.device(item.result.device)
        return item, [], (0, 0, 0, 0)
    from rocetune.parsecache import pickled

    cache = _worker_cache[0]
    cache.keep_written = True
    before = (cache.hits, cache.misses, cache.ignored, cache.write_errors)
    with sharing(sharer):
        item = _load(job, cache)
    written = cache.written.get(item.key) if item.key is not None else None
    cache.written.clear()
    journal = list(cache.index.journal)
    cache.index.journal.clear()
    after = (cache.hits, cache.misses, cache.ignored, cache.write_errors)
    delta = (after[0] - before[0], after[1] - before[1], after[2] - before[2], after[3] - before[3])
    if written is not None and item.key is not None and pickled(written[1]):
        return Entry(item.key, written[0], written[1]), journal, delta
    if item.result is not None:
        sharer.device(item.result.device)
    return item, journal, delta


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _worker_sharer[:] = [Sharer()]


@contextmanager
def frozen() -> Iterator[None]:
    """A block that works on a fabric already built (render, plan, the ``fix:`` lines): the
    objects alive when it starts are kept out of the cyclic collector's scans until it ends
    (``gc.freeze``; reference counting still frees them), so the collections the block's own
    allocations trigger do not re-scan the whole audited model (a full collection over it
    made render grow faster than the fabric). Nothing changes when the collector is disabled.
    """
    if not gc.isenabled():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def long_lived() -> Iterator[Callable[[], None]]:
    """A block whose objects alive at each call of the function it gives (``settle``) are
    kept out of the cyclic garbage collector's scans until the block ends.

    An audit builds the model of a whole fabric (millions of objects that live to the end)
    while it parses, then allocates findings: every full collection re-scanned the whole
    model so far (about a fifth of the CPU of a 2,500-host audit). ``settle`` collects the
    garbage cycles made since the last ``settle`` (a collection that scans only those
    objects: the older ones are frozen), then ``gc.freeze`` moves the survivors to the
    permanent generation (reference counting still frees them). What exists when the block
    starts (modules, the loaded inventory) is frozen first, so the first ``settle`` does not
    scan it either. Within the block the automatic collections are off (``settle`` collects
    instead; reference counting frees the rest). At the end of the block the collector is
    enabled and sees them again (:func:`frozen`). Nothing changes when the collector is
    disabled."""
    if not gc.isenabled():
        yield lambda: None
        return

    def settle() -> None:
        gc.collect()  # only what was made since the last settle: the rest is frozen
        gc.freeze()

    with frozen():  # what exists already (modules, the inventory) is never re-scanned
        gc.disable()  # settle collects; automatic collections would scan the same objects
        try:
            yield settle
        finally:
            gc.enable()


def load_all(
    jobs: Sequence[Job], processes: int | None = None, cache: ParseCache | None = None
) -> Iterator[Loaded]:
    """Each job's :class:`Loaded`, in the order of ``jobs``. With ``cache``
    (rocetune.parsecache): devices whose snapshot is unchanged by its stat signature come
    from the cache in this process, the others are parsed (in the pool when there are
    enough of them); the stat index is saved at the end."""
    if cache is None:
        yield from _parse(jobs, processes, None)
        return
    done: list[Loaded | None] = []
    todo: list[Job] = []
    for job in jobs:
        hit = cached_device(
            job.name, job.source, job.platform, job.role, job.asic, cache=cache, by_stat=True
        )
        done.append(hit)
        if hit is None:
            todo.append(job)
    parsed = iter(list(_parse(todo, processes, cache)))
    out = [item if item is not None else next(parsed) for item in done]
    cache.save_index()
    yield from out


def _parse(
    jobs: Sequence[Job], processes: int | None, cache: ParseCache | None
) -> Iterator[Loaded]:
    count = process_count(processes, len(jobs))
    if count <= 1 or not hasattr(os, "fork"):
        for job in jobs:
            yield _load(job, cache)
        return
    import multiprocessing

    _worker_cache[:] = [cache] if cache is not None else []
    pool = multiprocessing.get_context("fork").Pool(count, initializer=_worker_init)
    try:
        chunk = max(1, min(16, len(jobs) // (count * 8)))
        results = pool.imap(_load_in_worker, jobs, chunksize=chunk)
        for job, (got, journal, counts) in zip(jobs, results, strict=True):
            item = _from_worker(job, got, cache)
            if cache is not None:
                cache.index.apply(journal)
                cache.hits += counts[0]
                cache.misses += counts[1]
                cache.ignored += counts[2]
                cache.write_errors += counts[3]
            yield item
        pool.close()
    finally:
        _worker_cache.clear()
        pool.terminate()
        pool.join()


def _from_worker(job: Job, got: Loaded | Entry, cache: ParseCache | None) -> Loaded:
    if not isinstance(got, Entry):
        return got
    item = entry_device(got.raw, got.key, got.identity, job.asic)
    if item is None:  # bytes that do not read back (never seen): parsed here, not lost
        return _load(job, cache)
    return dataclasses.replace(item, cached=False)  # parsed in this run: shared as such
