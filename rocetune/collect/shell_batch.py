"""Several commands in one exec channel: a POSIX sh script with framed results.

An exec channel costs about 1 ms of paramiko CPU (channel open, exec request, exit status,
close: about nine packets, each handled in Python), more than the commands of a host
themselves; so the exec transport runs a lane of commands per channel. The script defines
one function and calls it once per command::

    __rt() { __e=$( { eval "$1" ; } 2>&1 >&3 3>&- ); __r=$?; printf '\\n%s %s %s\\n' \\
        '<MARK>' "$__r" "$(printf '%s' "$__e" | head -n 1)"; } 3>&1
    __rt 'mlnx_qos -i eth2'
    __rt 'ethtool -a eth2'

Each command's stdout goes straight to the channel, its stderr is captured, and after it
comes one line ``\\n<MARK> <exit status> <first stderr line>``; ``<MARK>`` carries a random
nonce so no output can fake it. Commands are passed through ``eval`` of a single-quoted
argument, so each is exactly what a lone exec channel would have run.
"""

from __future__ import annotations

import re
import secrets
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

FUNCTION = "__rt"
BLOCK = 1 << 20
"""Bytes of a truncated output decoded at a time (:meth:`Stream.truncated_blocks`)."""


@dataclass(frozen=True)
class Framed:
    """One command's result from a batch."""

    stdout: str
    status: int
    stderr_line: str


def new_marker() -> str:
    """A marker nobody's output contains."""
    return f"__RT_{secrets.token_hex(8)}"


def build_script(commands: Sequence[str], marker: str) -> str:
    """The sh script running ``commands`` one after another with framed results."""
    head = (
        f'{FUNCTION}() {{ __e=$( {{ eval "$1" ; }} 2>&1 >&3 3>&- ); __r=$?; '
        f"printf '\\n%s %s %s\\n' '{marker}' \"$__r\" "
        f'"$(printf \'%s\' "$__e" | head -n 1)"; }} 3>&1'
    )
    return "\n".join([head, *(f"{FUNCTION} {shlex.quote(c)}" for c in commands)]) + "\n"


def exec_line(commands: Sequence[str], marker: str) -> str:
    """The exec request: the script under ``sh -c`` (whatever the login shell is)."""
    return "sh -c " + shlex.quote(build_script(commands, marker))


def parse(text: str, marker: str) -> list[Framed]:
    """The framed results found in a batch's output, in order (fewer if it was cut short)."""
    frame = re.compile(rf"\n{re.escape(marker)} (\d+) ([^\n]*)\n")
    found: list[Framed] = []
    pos = 0
    for match in frame.finditer(text):
        found.append(Framed(text[pos : match.start()], int(match.group(1)), match.group(2)))
        pos = match.end()
    return found


def cut_at_line(data: bytes | bytearray, cap: int) -> bytes:
    """The first ``cap`` bytes of ``data`` up to and including their last newline."""
    end = data.rfind(b"\n", 0, cap)
    return bytes(data[: end + 1]) if end >= 0 else b""


def decode(data: bytes | bytearray, end: int | None = None) -> str:
    """``data[:end]`` as UTF-8 text (invalid bytes replaced), decoded in place: no copy of
    the bytes (a capped output is then held as bytes and text, never twice as bytes)."""
    with memoryview(data) as whole, whole[:end] as part:
        return str(part, "utf-8", "replace")


@dataclass
class Stream:
    """A batch's output read as it arrives: framed results, each command's output capped.

    Holds at most the current command's output (up to ``cap`` bytes plus the last chunk);
    finished commands move to :attr:`done` as soon as their frame line is complete.
    """

    marker: str
    cap: int
    plain: bool = False
    """No framing: one command's output (a lone exec channel)."""
    done: list[Framed] = field(default_factory=list)
    buf: bytearray = field(default_factory=bytearray)
    _scan: int = 0

    def feed(self, data: bytes) -> bool:
        """Take more output; True when the command being read went past the cap."""
        self.buf += data
        if self.plain:
            return len(self.buf) > self.cap
        head = b"\n" + self.marker.encode() + b" "
        while True:
            start = self.buf.find(head, self._scan)
            if start < 0:
                self._scan = max(0, len(self.buf) - len(head) + 1)
                break
            end = self.buf.find(b"\n", start + len(head))
            if end < 0:  # the frame line is not complete yet
                self._scan = start
                break
            line = bytes(self.buf[start + len(head) : end]).decode("utf-8", "replace")
            status, _, error = line.partition(" ")
            stdout = decode(self.buf, start)
            self.done.append(Framed(stdout, int(status) if status.isdigit() else -1, error))
            del self.buf[: end + 1]
            self._scan = 0
        return len(self.buf) > self.cap

    def truncated(self) -> str:
        """The current command's output up to the cap, cut after its last complete line
        (the buffer is emptied: the text is what is kept)."""
        text = decode(self.buf, self.buf.rfind(b"\n", 0, self.cap) + 1)
        self.buf.clear()
        return text

    def truncated_blocks(self, size: int = BLOCK) -> Iterator[str]:
        """:meth:`truncated` as blocks of whole lines (about ``size`` bytes each, a longer
        line alone), decoded as they are asked for; the buffer is emptied at the end (it is
        held until then, never copied). Joined, the same text: a block ends after a newline,
        which no UTF-8 sequence holds, so decoding by blocks replaces the same bytes."""
        buf = self.buf
        end = buf.rfind(b"\n", 0, self.cap) + 1
        start = 0
        try:
            while start < end:
                cut = buf.rfind(b"\n", start, min(start + size, end)) + 1
                if cut <= start:
                    cut = buf.find(b"\n", start, end) + 1
                with memoryview(buf) as whole, whole[start:cut] as part:
                    text = str(part, "utf-8", "replace")
                yield text
                start = cut
        finally:
            buf.clear()

    def text(self) -> str:
        """The whole output read (no framing), emptying the buffer."""
        text = decode(self.buf)
        self.buf.clear()
        return text
