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
    from rocetune.statindex import Signature

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
_worker_jobs: list[Job] = []
"""The parent's jobs, inherited by forked workers (:func:`_overlapped`)."""
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
    cache.bundle = None  # the parent's (a worker sends its parses back)
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
    instead; reference counting frees the rest). What the block made after its last
    ``settle`` (an audit's findings and check records) is frozen at its end, without a
    collection: left to the collector, the first collections after the block scanned those
    millions of objects twice (young, then middle generation: 1.1 s of a 10 s cached
    re-audit of 10,500 devices), and a collection there found no garbage cycle. When the
    enclosing :func:`frozen` block ends, the collector sees them all again (the oldest
    generation: a later full collection frees any cycle). Nothing changes when the
    collector is disabled."""
    if not gc.isenabled():
        yield _unchanged
        return
    with frozen() as settle:  # what exists already (modules, the inventory) is never re-scanned
        gc.disable()  # settle collects; automatic collections would scan the same objects
        try:
            yield settle
        finally:
            gc.freeze()  # what the block made since the last settle: see above
            gc.enable()


def load_all(
    jobs: Sequence[Job], processes: int | None = None, cache: ParseCache | None = None
) -> Iterator[Loaded]:
    """Each job's :class:`Loaded`, in the order of ``jobs``. With ``cache``
    (rocetune.parsecache): devices whose snapshot is unchanged by its stat signature come
    from the cache in this process, the others are parsed; the stat index is saved at the
    end. With a pool (:func:`process_count`), see :func:`_overlapped`. A device whose
    entry turns out unusable is parsed after the others."""
    if cache is None:
        yield from _parse(jobs, processes, None)
        return
    count = process_count(processes, len(jobs))
    if count > 1 and hasattr(os, "fork"):
        out, late = _overlapped(jobs, count, cache)
    else:
        out, late = [], []
        for i, job in enumerate(jobs):
            known = known_key(job.name, job.source, job.platform, job.role, cache=cache)
            got = cached_entry(known, job.asic, cache=cache) if known is not None else None
            if known is not None and got is None:  # known by its signature, entry unusable
                late.append(i)
            out.append(got if known is not None else _load(job, cache))
    for i, got in zip(late, _parse([jobs[i] for i in late], processes, cache), strict=True):
        out[i] = got
    cache.save_index()
    for item in out:
        assert item is not None  # every job is a hit, parsed, or parsed late
        yield item


_Worked = tuple["Loaded | Entry", list[tuple[str, list[Any]]], "Counts"]
"""A pool worker's parse: the device (or its entry's bytes), what the cache's index recorded
and what the cache counted."""


class Known(NamedTuple):
    """A snapshot a worker found unchanged by its stat signature, and when it was taken."""

    taken_ns: int
    signature: Signature


def _overlapped(
    jobs: Sequence[Job], count: int, cache: ParseCache
) -> tuple[list[Loaded | None], list[int]]:
    """The loads of ``jobs`` by ``count`` forked workers and this process at once: the
    workers take every snapshot's stat signature (one ``stat`` per file: 160,000 for
    10,000 hosts) and parse those not unchanged by it, while this process decodes the cache
    entry its index records for each snapshot (a re-audit of a big fleet where a few changed:
    all three at once). An entry is used only when the worker found its snapshot unchanged
    (its signature is the one recorded with that entry's key); the others are dropped and
    the worker's parse is used. Returns the loads and the jobs to parse again (known by
    their signature, their entry unusable)."""
    cache.index.read()  # once, before the workers inherit it
    _worker_jobs[:] = jobs
    _worker_cache[:] = [cache]
    import multiprocessing

    pool = multiprocessing.get_context("fork").Pool(count, initializer=_worker_init)
    out: list[Loaded | None] = []
    late: list[int] = []
    try:
        size = max(1, min(256, len(jobs) // (count * 8)))
        spans = [(i, min(i + size, len(jobs))) for i in range(0, len(jobs), size)]
        results = pool.imap(_sign_or_parse, spans)  # the workers run ahead
        pool.close()
        answers = _after_guesses(spans, jobs, cache, results)
        for (first, end), (guesses, got) in zip(spans, answers, strict=True):
            for i, guess, item in zip(range(first, end), guesses, got, strict=True):
                out.append(_merged(jobs[i], guess, item, cache))
                if out[-1] is None:  # known by its signature, entry unusable
                    late.append(i)
    finally:
        _worker_jobs.clear()
        _worker_cache.clear()
        pool.terminate()
        pool.join()
    return out, late


_Guess = tuple[str, str, "Loaded | None"] | None


def _after_guesses(
    spans: list[tuple[int, int]],
    jobs: Sequence[Job],
    cache: ParseCache,
    results: Iterator[list[Known | _Worked]],
) -> Iterator[tuple[list[_Guess], list[Known | _Worked]]]:
    """Per span: this process's guesses (:func:`_guess`), made while the workers take the
    signatures, then the workers' answers (a span's parses are let go span by span: a cold
    run does not hold every entry's bytes at once)."""
    for first, end in spans:
        guesses = [_guess(job, cache) for job in jobs[first:end]]
        yield guesses, next(results)


def _merged(job: Job, guess: _Guess, got: Known | _Worked, cache: ParseCache) -> Loaded | None:
    """The load of ``job`` from this process's guess and its worker's answer (None: known by
    its signature, its entry unusable or not the one guessed: parse it again)."""
    from rocetune import statindex

    if isinstance(got, Known):
        assert isinstance(job.source, Path)
        statindex.taken(job.source, got.taken_ns, got.signature)
        if guess is None:
            return None
        key = cache.index.known(guess[0], got.signature)
        item = guess[2] if key is not None and key == guess[1] else None
        if item is None:
            cache.forget(guess[1])
        cache.hits += item is not None
        return item
    loaded, journal, counts = got
    _absorb(cache, journal, counts)
    if guess is not None and loaded.key != guess[1]:
        cache.forget(guess[1])  # the guessed entry is not the snapshot's any more
    return _from_worker(job, loaded, cache)


def _guess(job: Job, cache: ParseCache) -> _Guess:
    """(identity, key, the entry's load) of the entry the index records for ``job`` whatever
    its signature (None: no record), read without counting (:func:`_overlapped`)."""
    if not isinstance(job.source, Path):
        return None
    identity = cache.identity(job.source, job.name, job.platform, job.role)
    key = cache.index.recorded(identity)
    if key is None:
        return None
    return identity, key, cached_entry((identity, key), job.asic, cache=cache, counted=False)


def _sign_or_parse(span: tuple[int, int]) -> list[Known | _Worked]:
    """In a worker: for the jobs ``span`` (of the inherited ``_worker_jobs``), :class:`Known`
    when the snapshot's stat signature is the one recorded with its key in the inherited
    cache's index, else its parse (:func:`_load_in_worker`)."""
    from rocetune import statindex

    cache = _worker_cache[0]
    out: list[Known | _Worked] = []
    for job in _worker_jobs[span[0] : span[1]]:
        if isinstance(job.source, Path):
            identity = cache.identity(job.source, job.name, job.platform, job.role)
            taken, sig = statindex.signature_taken(job.source)
            if sig is not None and cache.index.known(identity, sig) is not None:
                out.append(Known(taken, sig))
                continue
        out.append(_load_in_worker(job))
    return out


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
            _absorb(cache, journal, counts)
        yield item


def _absorb(cache: ParseCache, journal: list[tuple[str, list[Any]]], counts: Counts) -> None:
    """Add what a worker's cache recorded in its index and counted to ``cache``."""
    cache.index.apply(journal)
    cache.hits += counts[0]
    cache.misses += counts[1]
    cache.ignored += counts[2]
    cache.write_errors += counts[3]


def _from_worker(job: Job, got: Loaded | Entry, cache: ParseCache | None) -> Loaded:
    if not isinstance(got, Entry):
        return dataclasses.replace(got, decoded=True)  # sent back pickled by the worker
    item = entry_device(got.raw, got.key, got.identity, job.asic, cache)
    if item is None:  # bytes that do not read back (never seen): parsed here, not lost
        return _load(job, cache)
    return dataclasses.replace(item, cached=False, decoded=True)  # parsed in this run: shared
