"""Read the files a user meant, and only those: regular files, bounded in size.

Every input rocetune reads from disk (snapshots, inventories, --intent, --config,
--baseline, --pairs) goes through :func:`read_bytes`:

- only a regular file is read: a FIFO would block for ever, ``/dev/zero`` would fill the
  memory, a directory is not a config;
- a file larger than :data:`MAX_INPUT_BYTES` is refused with a clear error, not read;
- inside a snapshot directory, a symbolic link is not followed (``follow_symlinks=False``):
  a snapshot is often committed to a repository, and a link to ``/etc/shadow`` or
  ``~/.ssh/id_rsa`` would otherwise be read and echoed in RT001 findings, in SARIF and in
  pull-request annotations.

This module sits below everything (it imports nothing from rocetune); callers turn
:class:`InputRefused` into their own error with file and line.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_INPUT_BYTES = 64 * 2**20
"""The largest input file read (a 1,000-port chassis CONFIG_DB is a few MiB)."""


class InputRefused(Exception):
    """The file is not one rocetune reads (the message says why, without its content)."""


_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def read_bytes(
    path: Path | str, *, follow_symlinks: bool = True, limit: int = MAX_INPUT_BYTES
) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes.

    ``follow_symlinks=False``: where ``open`` has ``O_NOFOLLOW``, opening a symbolic link
    fails (ELOOP; EMLINK on FreeBSD), so the link is looked for (``lstat``) only then, not
    before every file of a snapshot; elsewhere it is looked for first.
    """
    flags = _FLAGS
    if not follow_symlinks:
        flags |= _NOFOLLOW
        if not _NOFOLLOW and os.path.islink(path):
            raise InputRefused("a symbolic link: not followed")
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (not follow_symlinks and os.path.islink(path)):
            raise InputRefused("a symbolic link: not followed") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputRefused(f"not a regular file ({_kind(st.st_mode)})")
        if st.st_size > limit:
            raise InputRefused(_too_large(st.st_size, limit))
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        total = 0
        while True:
            # ask for what is left (not a fixed MiB: that allocates a MiB per small file)
            chunk = os.read(fd, min(1 << 20, max(4096, st.st_size + 1 - total)))
            if not chunk:
                break
            total += len(chunk)
            if total > limit:  # it grew while we read
                raise InputRefused(_too_large(total, limit))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(
    path: Path | str, *, follow_symlinks: bool = True, limit: int = MAX_INPUT_BYTES
) -> str:
    """:func:`read_bytes` decoded as UTF-8 (undecodable bytes replaced)."""
    return read_bytes(path, follow_symlinks=follow_symlinks, limit=limit).decode(
        "utf-8", errors="replace"
    )


def _too_large(size: int, limit: int) -> str:
    return f"larger than {limit // 2**20} MiB ({size} bytes or more): not read"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"
