"""Work done in a forked child while this process goes on (the ``fix:`` lines' plan).

The child inherits the audited fabric (nothing is sent to it) and sends back its result
pickled through a pipe; a child that fails gives None (its caller does the work itself).
Not used when other threads run (a fork copies only the forking thread: a lock another
thread held would never be released in the child)."""

from __future__ import annotations

import os
import pickle
import signal
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    """Whether :class:`Forked` may fork here (a POSIX fork, this thread alone)."""
    return hasattr(os, "fork") and threading.active_count() == 1


class Forked(Generic[T]):
    """``work()`` run in a forked child from the start of the ``with`` block; the block ends
    the child if :meth:`result` was not asked (an exception in this process)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._pid = 0
        self._read = -1

    def __enter__(self) -> Forked[T]:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                os.close(read)
                data = pickle.dumps(self._work(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as fh:
                    fh.write(data)
                code = 0
            finally:
                os._exit(code)  # no atexit handlers, no flush of the parent's buffers
        os.close(write)
        self._pid, self._read = pid, read
        return self

    def result(self) -> T | None:
        """The child's result once it is done (None: it failed)."""
        with os.fdopen(self._read, "rb") as fh:
            self._read = -1
            data = fh.read()
        _, status = os.waitpid(self._pid, 0)
        self._pid = 0
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        try:
            got: T = pickle.loads(data)  # our own child's, through our own pipe
        except Exception:
            return None
        return got

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._read >= 0:
            os.close(self._read)
            self._read = -1
        if self._pid:
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = 0
