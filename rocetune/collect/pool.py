"""Run collection jobs: a thread pool, or several processes each with a thread pool.

netmiko and paramiko spend their CPU in Python under the GIL (~18 ms per switch session,
~1 ms per exec command), so one process tops out at one core. For large fleets the jobs
are split across forked processes (each with ``workers / processes`` threads); every
process writes its devices' snapshots itself and sends back only the outcomes.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rocetune.collect.job import Job, Outcome, run_job
from rocetune.collect.reasons import Failure, Reason

if TYPE_CHECKING:
    from rocetune.collect.options import CollectOptions

MIN_JOBS_PER_PROCESS = 64
MAX_AUTO_PROCESSES = 4


def process_count(options: CollectOptions, jobs: int) -> int:
    """Processes to use: the option, or automatic (one per 64 jobs, up to the CPUs, max 4)."""
    if options.processes is not None:
        return max(1, min(options.processes, jobs or 1))
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_AUTO_PROCESSES, jobs // MIN_JOBS_PER_PROCESS))


def run_threads(jobs: Sequence[Job], out_dir: Path, options: CollectOptions) -> Iterator[Outcome]:
    """Yield outcomes as devices finish (a thread per concurrent device)."""
    if not jobs:
        return
    stop = threading.Event()
    workers = max(1, min(options.workers, len(jobs)))
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rocetune-collect")
    futures = [pool.submit(run_job, job, out_dir, options, stop) for job in jobs]
    try:
        for future in as_completed(futures):
            yield future.result()
    except BaseException:
        # Ctrl-C, SIGTERM or the consumer gave up: tell the workers to stop and do not
        # wait for a worker blocked on a slow device (a `with` block would join them).
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _child(jobs: Sequence[Job], out_dir: Path, options: CollectOptions, q: Any) -> None:
    # The parent handles Ctrl-C and SIGTERM and terminates its children; a child that
    # inherited the parent's handlers would instead wait for its threads' slow reads.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        for outcome in run_threads(jobs, out_dir, options):
            q.put(outcome)
    finally:
        q.put(None)


class ProcessFleet:
    """Jobs split across forked processes; iterate to receive the outcomes.

    The processes are forked when the fleet is created, so create it before any other
    thread (e.g. a progress bar) starts.
    """

    def __init__(
        self, jobs: Sequence[Job], out_dir: Path, options: CollectOptions, processes: int
    ) -> None:
        ctx = multiprocessing.get_context("fork")
        self.queue: Any = ctx.Queue()
        self.names = [job.target.name for job in jobs]
        self.platforms = {job.target.name: job.target.platform for job in jobs}
        per = replace(options, workers=max(1, options.workers // processes))
        chunks = [list(jobs[i::processes]) for i in range(processes)]
        self.procs = [
            ctx.Process(target=_child, args=(c, out_dir, per, self.queue), daemon=True)
            for c in chunks
            if c
        ]
        for proc in self.procs:
            proc.start()

    def __iter__(self) -> Iterator[Outcome]:
        done: set[str] = set()
        finished = 0
        try:
            while finished < len(self.procs):
                try:
                    item = self.queue.get(timeout=0.5)
                except queue.Empty:
                    if all(not p.is_alive() for p in self.procs):
                        break
                    continue
                if item is None:
                    finished += 1
                    continue
                done.add(item.name)
                yield item
            yield from self._lost(done)
        finally:
            for proc in self.procs:
                if proc.is_alive():
                    proc.terminate()
                proc.join()

    def _lost(self, done: set[str]) -> Iterator[Outcome]:
        for name in self.names:
            if name not in done:
                failure = Failure(Reason.INTERNAL, "the collecting process died")
                yield Outcome(name, self.platforms[name], failure=failure)


def run_jobs(jobs: Sequence[Job], out_dir: Path, options: CollectOptions) -> Iterator[Outcome]:
    """Start the jobs now (forking if several processes are used); yield outcomes."""
    processes = process_count(options, len(jobs))
    if processes > 1:
        return iter(ProcessFleet(jobs, out_dir, options, processes))
    return run_threads(jobs, out_dir, options)
