"""A truncated (flooded) output redacted in windows of lines and kept on disk, not in memory.

A peer that floods a command fills the output cap; the raw bytes read up to the cap are held
once (the read buffer). Turning them into one ``str`` for the redactor, and the redactor's
own copies, would hold the output a second time (about twice the cap at the end of a
flood). Here the kept output is decoded block by block, redacted in windows of whole lines,
and written to an unnamed temporary file next to the snapshot (same file system; it
disappears when closed, also after a crash); the writer copies it into the snapshot. Memory:
the read buffer (the cap) plus one window (a constant), plus the longest kept line when a
line is longer than a window (a line is never cut: the redaction rules are line rules).

The redactors keep line numbers (every rule replaces a secret in place, see
:mod:`rocetune.platforms.common.redact`), so the redacted lines of a window map one to one
onto its raw lines. Each window is redacted with up to :data:`CONTEXT` characters of whole
lines before and after the lines it writes: a secret spanning lines (a PEM key body, a
block-scalar value, a JSON member split over lines) is redacted as in the whole text when
it lies within that context. Should a redactor change a window's line count, that window's
lines are redacted alone (without context).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

WINDOW = 1 << 20
"""Characters of lines written per window (at least one line)."""
CONTEXT = 256 << 10
"""Characters of whole lines each window is redacted with before and after what it writes."""
COPY = 1 << 20
"""Bytes copied at a time from a spill file."""
HEAD = 1 << 20
"""Bytes of a spilled output that follow-up discovery reads (:meth:`Spilled.head`)."""


class SpillError(Exception):
    """Writing a spill file failed (its ``OSError`` is ``error``): a local write failure,
    reported as such, never taken for the peer's fault or retried."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class Spilled:
    """A redacted output in an unnamed temporary file (UTF-8), written into a snapshot by
    :func:`copy_into`; :meth:`close` deletes it."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file

    @property
    def size(self) -> int:
        """Bytes held."""
        return os.fstat(self.file.fileno()).st_size

    def chunks(self) -> Iterator[bytes]:
        """The bytes, :data:`COPY` at a time."""
        self.file.seek(0)
        while chunk := self.file.read(COPY):
            yield chunk

    def head(self, limit: int = HEAD) -> str:
        """The first ``limit`` bytes, up to and including their last newline, as text."""
        self.file.seek(0)
        data = self.file.read(limit + 1)
        if len(data) > limit:
            data = data[: data.rfind(b"\n", 0, limit) + 1]
        return data.decode("utf-8", "replace")

    def close(self) -> None:
        """Delete the file."""
        self.file.close()


def redact_windows(
    redact: Callable[[str], str],
    blocks: Iterable[str],
    write: Callable[[str], object],
    *,
    window: int = WINDOW,
    context: int = CONTEXT,
) -> None:
    """Write ``redact`` of the concatenated ``blocks``, window by window.

    Each window is ``before + lines + after`` (whole raw lines), ``before``/``after`` up to
    ``context`` characters; only the redacted ``lines`` are written.
    """
    before: list[str] = []
    pending: list[str] = []  # raw lines (without their "\n") not written yet
    chars = 0
    carry = ""
    for block in blocks:
        text = carry + block
        lines = text.split("\n")
        carry = lines.pop()
        pending += lines
        chars += len(text) - len(carry)
        while chars >= window + context and pending:
            k, size = _take(pending, window)
            after, _ = _take(pending[k:], context)
            write(_redact(redact, before, pending[: k + after], k, end=False))
            before = _tail(before + pending[:k], context)
            del pending[:k]
            chars -= size
    ended = carry == ""
    rest = pending + ([carry] if not ended else [])
    if rest:
        write(_redact(redact, before, rest, len(rest), end=True, newline=ended))


def _take(lines: list[str], limit: int) -> tuple[int, int]:
    """How many of the first lines hold ``limit`` characters (with their line ends; at
    least one line when there is one), and their characters."""
    size = 0
    for i, line in enumerate(lines):
        if size >= limit and i > 0:
            return i, size
        size += len(line) + 1
    return len(lines), size


def _tail(lines: list[str], limit: int) -> list[str]:
    """The last whole lines of ``lines`` within ``limit`` characters."""
    size = 0
    for i in range(len(lines) - 1, -1, -1):
        size += len(lines[i]) + 1
        if size > limit:
            return lines[i + 1 :]
    return lines


def _redact(
    redact: Callable[[str], str],
    before: list[str],
    lines: list[str],
    k: int,
    *,
    end: bool,
    newline: bool = True,
) -> str:
    """The redacted text of ``lines[:k]``, redacted together with ``before`` and
    ``lines[k:]`` (alone when the redactor changed the window's line count)."""
    final = "" if end and not newline else "\n"
    out = redact("\n".join(before + lines) + final).split("\n")
    if len(out) == len(before) + len(lines) + len(final):
        return "\n".join(out[len(before) : len(before) + k]) + final
    return redact("\n".join(lines[:k]) + final)


def spill(redact: Callable[[str], str], blocks: Iterable[str], directory: Path | None) -> Spilled:
    """``blocks`` redacted by windows into an unnamed file in ``directory``; a failed write
    raises :class:`SpillError`."""
    try:
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)
        file = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115 - closed by Spilled.close
    except OSError as exc:
        raise SpillError(exc) from exc
    try:
        redact_windows(redact, blocks, lambda text: file.write(text.encode("utf-8")))
        file.flush()
    except OSError as exc:
        file.close()
        raise SpillError(exc) from exc
    except BaseException:
        file.close()
        raise
    return Spilled(file)
