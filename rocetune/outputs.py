"""Write results safely: atomic files, a lock per output directory, clear write errors.

- :func:`write_atomic`: the text goes to a temporary file in the same directory, is
  flushed, and is renamed over the target, so a reader (or a crash, or Ctrl-C) sees the
  old file or the new one, never half of one.
- :class:`DirectoryLock`: one rocetune run writes into an output directory at a time. Two
  ``collect`` runs into one directory used to clean up each other's temporary snapshot
  directories and could lose a device the other run reported as collected. The lock file
  names its owner (pid, user, host, start, command); a lock whose process is gone (same
  host) is taken over.
- Write failures (read-only file system, full disk, no permission) are an
  :class:`OutputError`: one line naming the path, exit 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import time
from pathlib import Path
from types import TracebackType

from rocetune.errors import RocetuneError

LOCK_FILE = ".rocetune.lock"


class OutputError(RocetuneError):
    """An output could not be written."""


def _failed(exc: OSError, path: Path) -> OutputError:
    return OutputError(f"cannot write: {exc.strerror or exc}", file=exc.filename or path)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file + rename).

    Only a regular file (or a new one) is replaced: ``-o /dev/null``, ``-o /dev/stdout`` or a
    FIFO is written to as a shell redirection would (renaming over them would put a regular
    file in place of the device, for every user of the machine when run as root), and a
    symbolic link is followed to the file it names, which is replaced, not the link.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise _failed(exc, path) from None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise OutputError("cannot write: is a directory", file=path)
        _write_through(path, text)
        return
    if path.is_symlink():
        path = path.resolve()
    directory = path.parent if str(path.parent) else Path()
    tmp: str | None = None
    try:
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise _failed(exc, path) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def replace_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it renamed over it (the
    parent directory is made when missing): readers see the old or the new content, never a
    part. No fsync (cache files: a lost entry is only a miss); ``OSError`` propagates."""
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # not at import: a replayed run (rocetune.runcache) writes nothing

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_through(path: Path, text: str) -> None:
    """Write to an existing device or FIFO in place (no temporary file, no rename)."""
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise _failed(exc, path) from None


def check_writable(directory: Path) -> None:
    """Create ``directory`` if needed and prove a file can be written in it."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        import tempfile

        fd, probe = tempfile.mkstemp(prefix=".rocetune-probe-", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _failed(exc, directory) from None


def _owner() -> dict[str, object]:
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid()) if hasattr(os, "getuid") else "?"
    return {
        "pid": os.getpid(),
        "user": user,
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))[
            :300
        ],
    }


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class DirectoryLock:
    """``with DirectoryLock(dir):`` the run owns ``dir`` (created and checked writable)."""

    def __init__(self, directory: Path, name: str = LOCK_FILE) -> None:
        """``name``: the lock file in ``directory`` (``collect --local`` locks one host's
        snapshot with ``.<host>.rocetune.lock`` so nodes sharing ``directory`` run at once)."""
        self.directory = directory
        self.path = directory / name
        self.held = False

    def acquire(self) -> None:
        """Take the lock, or raise OutputError naming the run that holds it."""
        check_writable(self.directory)
        body = json.dumps(_owner(), sort_keys=True) + "\n"
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                if self._stale():
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(self.path)
                    continue
                raise self._busy() from None
            except OSError as exc:
                raise _failed(exc, self.path) from None
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(body)
            self.held = True
            return
        raise self._busy()

    def _holder(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _stale(self) -> bool:
        import socket

        holder = self._holder()
        pid = holder.get("pid")
        if holder.get("host") != socket.gethostname() or not isinstance(pid, int):
            return False  # another machine's run (shared file system): never taken over
        return not _alive(pid)

    def _busy(self) -> OutputError:
        h = self._holder()
        who = (
            f"pid {h.get('pid')} of {h.get('user')}@{h.get('host')} since {h.get('started')} "
            f"({h.get('command')})"
            if h
            else "another run"
        )
        msg = (
            f"output directory is in use by {who}; wait for it, or remove {self.path} "
            "if that run is gone"
        )
        return OutputError(msg, file=self.directory)

    def release(self) -> None:
        """Remove the lock file if this run holds it."""
        if self.held:
            with contextlib.suppress(OSError):
                if self._holder().get("pid") == os.getpid():
                    os.unlink(self.path)
            self.held = False

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
