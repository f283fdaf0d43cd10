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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from rocetune.load import Loaded, cached_entry, entry_device, known_key, load_device
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


class Settle(Protocol):
    """What :func:`frozen` and :func:`long_lived` give: keep what is alive out of the cyclic
    collector's scans (``collect``: collect the garbage cycles made since the last call first)."""

    def __call__(self, collect: bool = True) -> None: ...


@contextmanager
def frozen() -> Iterator[Settle]:
    """A block that works on a fabric already built (render, plan, the ``fix:`` lines): the
    objects alive when it starts are kept out of the cyclic collector's scans until it ends
    (``gc.freeze``; reference counting still frees them), so the collections the block's own
    allocations trigger do not re-scan the whole audited model (a full collection over it
    made render grow faster than the fabric). The function it gives (``settle``) does the
    same for what the block made and keeps so far (the plan after each device: its full
    collections re-scanned every plan made before). Nothing changes when the collector is
    disabled. Blocks nest: an inner block's objects stay frozen until the outermost ends
    (``gc.unfreeze`` thaws every frozen object, so an inner block ending would make the
    outer block's next full collection scan the whole model again)."""
    if not gc.isenabled():
        yield _unchanged
        return
    if _FROZEN:  # an enclosing block unfreezes
        yield _settle
        return
    gc.freeze()
    _FROZEN.append(True)
    try:
        yield _settle
    finally:
        _FROZEN.clear()
        gc.unfreeze()


_FROZEN: list[bool] = []
"""Non-empty while a :func:`frozen` block is open (the outermost one unfreezes)."""


def _settle(collect: bool = True) -> None:
    """``collect``: False for objects known to hold no garbage cycle (a model decoded from
    the cache): frozen without the collection that would scan every one of them."""
    if collect:
        gc.collect()  # only what was made since the last settle: the rest is frozen
    gc.freeze()


def _unchanged(collect: bool = True) -> None:
    """``settle`` with the collector disabled."""


@contextmanager
def long_lived() -> Iterator[Settle]:
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
        yield _unchanged
        return
    with frozen() as settle:  # what exists already (modules, the inventory) is never re-scanned
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
    from the cache in this process, the others are parsed; the stat index is saved at the
    end.

    The unchanged snapshots are found first (a stat of each, no entry read), so that the
    pool parses the others while this process decodes the entries of the unchanged ones (a
    re-audit of a big fleet where a few devices changed does both at once). A device whose
    entry turns out unusable is parsed after them."""
    if cache is None:
        yield from _parse(jobs, processes, None)
        return
    known = [known_key(j.name, j.source, j.platform, j.role, cache=cache) for j in jobs]
    out: list[Loaded | None] = [None] * len(jobs)
    todo = [i for i, k in enumerate(known) if k is None]
    late: list[int] = []
    count = _overlapped(processes, len(jobs), len(todo))
    with _started([jobs[i] for i in todo], count, cache) as parsed:
        for i, k in enumerate(known):
            if k is not None:
                out[i] = cached_entry(k, jobs[i].asic, cache=cache)
                if out[i] is None:  # known by its signature, entry gone or damaged
                    late.append(i)
        for i, got in zip(todo, parsed, strict=True):
            out[i] = got
    for i, got in zip(late, _parse([jobs[i] for i in late], processes, cache), strict=True):
        out[i] = got
    cache.save_index()
    for item in out:
        assert item is not None  # every job is a hit, parsed, or parsed late
        yield item


def _overlapped(processes: int | None, jobs: int, todo: int) -> int:
    """Processes to parse ``todo`` of ``jobs`` snapshots while this process decodes the
    cache entries of the others (0: parse in this process). ``processes`` given: as
    :func:`_parse`. Else a pool only when the whole run would have one (small fleets stay
    in this process), at most one process per snapshot to parse, and one fewer than the
    CPUs when this process has more entries to decode than there are snapshots to parse
    (it keeps a CPU busy meanwhile)."""
    if processes is not None:
        count = process_count(processes, todo)
        return count if count > 1 else 0
    whole = process_count(None, jobs)
    if whole <= 1 or todo == 0:
        return 0
    count = min(whole, todo)
    if count > 1 and jobs - todo > todo:
        count -= 1
    return count


def _parse(
    jobs: Sequence[Job], processes: int | None, cache: ParseCache | None
) -> Iterator[Loaded]:
    count = process_count(processes, len(jobs))
    with _started(jobs, count if count > 1 else 0, cache) as parsed:
        yield from parsed


@contextmanager
def _started(
    jobs: Sequence[Job], count: int, cache: ParseCache | None
) -> Iterator[Iterator[Loaded]]:
    """The parses of ``jobs``, in their order: by a pool of ``count`` forked processes that
    starts on them now (the pool ends with the block), or with ``count`` 0 in this process
    as they are iterated."""
    if count < 1 or not jobs or not hasattr(os, "fork"):
        yield (_load(job, cache) for job in jobs)
        return
    import multiprocessing

    _worker_cache[:] = [cache] if cache is not None else []
    pool = multiprocessing.get_context("fork").Pool(count, initializer=_worker_init)
    try:
        chunk = max(1, min(16, len(jobs) // (count * 8)))
        results = pool.imap(_load_in_worker, jobs, chunksize=chunk)
        yield _received(jobs, results, cache)
        pool.close()
    finally:
        _worker_cache.clear()
        pool.terminate()
        pool.join()


def _received(
    jobs: Sequence[Job],
    results: Iterator[tuple[Loaded | Entry, list[tuple[str, list[Any]]], Counts]],
    cache: ParseCache | None,
) -> Iterator[Loaded]:
    """The pool's results as :class:`Loaded`, with what the workers recorded and counted
    added to ``cache``."""
    for job, (got, journal, counts) in zip(jobs, results, strict=True):
        item = _from_worker(job, got, cache)
        if cache is not None:
            cache.index.apply(journal)
            cache.hits += counts[0]
            cache.misses += counts[1]
            cache.ignored += counts[2]
            cache.write_errors += counts[3]
        yield item


def _from_worker(job: Job, got: Loaded | Entry, cache: ParseCache | None) -> Loaded:
    if not isinstance(got, Entry):
        return got
    item = entry_device(got.raw, got.key, got.identity, job.asic)
    if item is None:  # bytes that do not read back (never seen): parsed here, not lost
        return _load(job, cache)
    return dataclasses.replace(item, cached=False)  # parsed in this run: shared as such
