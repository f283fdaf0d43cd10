"""One command on an interactive session: netmiko writes it, rocetune reads the answer.

netmiko's ``send_command`` polls the channel (a sleep of 10 ms while it waits for the echo,
25 ms after it), drains everything the peer sent into one string per poll, and searches the
whole output for the prompt after every poll. That costs latency on every command (half a
poll on average), CPU that grows with the square of the output, and several copies of a
large output (netmiko's string, its list of recent reads, the split lines of its prompt and
echo stripping, ours): a flooding peer drove memory to 4-6 times the output cap.

Here the channel is read with blocking ``recv`` calls bounded by the deadlines (we wake when
data arrives), at most 64 KiB at a time; raw bytes are counted against the cap *before* they
are decoded (a read past the cap is cut there, so nothing beyond the cap is ever held); the
bytes are decoded incrementally, line ends normalised and ANSI codes stripped with netmiko's
own functions, and the prompt is looked for in the last (incomplete) line only. Complete lines
are kept as they come and joined once at the end (held once while it streams; the join is
the one copy, as decoding a byte buffer would be: about twice the cap at the end of a flood).

The result is what ``send_command(..., expect_string=pattern, auto_find_prompt=False)``
returns: everything before the command's echo and the echo line dropped, the prompt line
dropped, backspaces removed.
"""

from __future__ import annotations

import codecs
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rocetune.collect.reasons import CollectError, Reason

CHUNK = 65536
"""Bytes asked for per ``recv``."""

_OPEN_ESCAPE = re.compile(r"\x1b[^a-zA-Z]*")
"""An escape sequence not finished yet. A block is cut before it, and before its trailing
line-end characters (``\\r\\n`` split across two reads must normalise as one line end): what
may continue in the next read waits for it."""


PROMPT_MAX = 4096
"""A last line longer than this is output, not a prompt (prompts are short)."""


@dataclass
class Limits:
    """When one command's read must stop: its deadline, the device's, the output cap."""

    deadline: float
    """time.monotonic() by which the prompt must have come (the read timeout)."""
    device_deadline: float
    cap: int
    """Bytes of raw output (echo and prompt included) past which the read stops."""


@dataclass(frozen=True)
class Answer:
    """A command's output (netmiko's ``send_command`` text), or what came before the cap."""

    text: str
    truncated: bool = False
    """The output went past the cap: ``text`` is its complete lines up to the cap."""
    blocks: Iterator[str] | None = None
    """Asked for blocks: a truncated output's text as blocks of whole lines (consumed
    once; ``text`` is then empty), never joined."""


class _Text:
    """The decoded, normalised stream of one command (echo handling, lines, prompt)."""

    def __init__(self, conn: Any, command: str, prompt: re.Pattern[str]) -> None:
        self.conn, self.command, self.prompt = conn, command.strip(), prompt
        self.decoder = codecs.getincrementaldecoder(getattr(conn, "encoding", "utf-8"))("ignore")
        self.ansi = bool(getattr(conn, "ansi_escape_codes", False))
        self.carry = ""
        self.head = ""
        """Text up to the end of the echo line (dropped once the echo line is complete)."""
        self.scan = 0
        self.echoed = False
        self.tail = ""
        """The last, incomplete line (where the prompt appears)."""

    def block(self, raw: bytes) -> str:
        """Decode ``raw``; return the normalised text that no later read can change."""
        text = self.carry + self.decoder.decode(raw)
        keep = len(text.rstrip("\r\n"))
        esc = text.rfind("\x1b", max(0, keep - 16), keep)
        if esc >= 0 and _OPEN_ESCAPE.fullmatch(text, esc, keep):
            keep = esc
        text, self.carry = text[:keep], text[keep:]
        if not text:
            return ""
        text = self.conn.normalize_linefeeds(text)
        if self.ansi and "\x1b" in text:
            text = self.conn.strip_ansi_escape_codes(text)
        return str(text)

    def feed(self, text: str) -> str:
        """Take normalised text; return the complete lines that follow the echo line."""
        if not self.echoed:
            self.head += text
            at = self.head.find(self.command, self.scan)
            if at < 0:
                self.scan = max(0, len(self.head) - len(self.command))
                return ""
            self.scan = at
            end = self.head.find("\n", at)
            if end < 0:
                return ""
            text, self.head, self.echoed = self.head[end + 1 :], "", True
        cut = text.rfind("\n")
        if cut < 0:
            self.tail += text
            return ""
        lines, self.tail = self.tail + text[: cut + 1], text[cut + 1 :]
        return lines

    def at_prompt(self) -> bool:
        """The last line is the prompt (the pattern is anchored at the end of a line)."""
        if not self.echoed or len(self.tail) > PROMPT_MAX:
            return False
        return self.prompt.search(self.tail) is not None


def _recv(chan: Any, limits: Limits, cap_left: int) -> bytes:
    """One read of at most ``min(CHUNK, cap_left + 1)`` bytes, waiting until a deadline."""
    while True:
        now = time.monotonic()
        deadline = min(limits.deadline, limits.device_deadline)
        if now >= deadline:
            if limits.device_deadline <= limits.deadline:
                detail = "output not complete before the device deadline"
            else:
                detail = "no prompt after the read timeout"
            raise CollectError(Reason.COMMAND_TIMEOUT, detail)
        chan.settimeout(min(deadline - now, 1.0))
        try:
            data: bytes = chan.recv(max(1, min(CHUNK, cap_left + 1)))
        except TimeoutError:
            continue
        if not data:
            raise EOFError("the device closed the connection")
        return data


def send_and_read(
    conn: Any, command: str, prompt: re.Pattern[str], limits: Limits, *, blocks: bool = False
) -> Answer:
    """Send ``command`` on netmiko connection ``conn`` and read its output up to ``prompt``
    (a truncated output as :attr:`Answer.blocks` when ``blocks``)."""
    chan = conn.remote_conn
    stream = _Text(conn, command, prompt)
    pending = str(getattr(conn, "_read_buffer", "") or "")
    conn._read_buffer = ""
    conn.write_channel(conn.normalize_cmd(command))
    parts: list[str] = []  # complete lines, joined once at the end
    received = 0
    if pending:
        parts.append(stream.feed(pending))
    old_timeout = chan.gettimeout()
    try:
        while not stream.at_prompt():
            data = _recv(chan, limits, limits.cap - received)
            received += len(data)
            if received > limits.cap:  # keep what came before the cap: complete lines
                parts.append(stream.feed(stream.block(data[: len(data) - (received - limits.cap)])))
                if blocks:
                    return Answer("", truncated=True, blocks=_drain(parts))
                return Answer(_finish(parts, final=False), truncated=True)
            parts.append(stream.feed(stream.block(data)))
    finally:
        chan.settimeout(old_timeout)
    return Answer(_finish(parts, final=True))


def _drain(parts: list[str]) -> Iterator[str]:
    """The parts one by one, each dropped as it is taken (backspaces removed, as
    :func:`_finish` does on the joined text)."""
    parts.reverse()
    while parts:
        part = parts.pop()
        yield part.replace("\x08", "") if "\x08" in part else part


def _finish(parts: list[str], *, final: bool) -> str:
    """The output (its one copy: the parts are dropped as they are joined); at the prompt,
    netmiko's result: the line end before the prompt goes with the prompt line."""
    out = "".join(parts)
    parts.clear()
    if "\x08" in out:
        out = out.replace("\x08", "")
    if final and len(out) <= 1:
        return ""
    return out
