"""One command on an interactive session, read by rocetune: :class:`Reader` takes the raw
reads, whether a netmiko session's blocking loop (:func:`send_and_read`) or the asyncio
shell's channel callbacks (:mod:`rocetune.collect.aio_shell`) hand them over.

netmiko's ``send_command`` polls the channel (a sleep of 10 ms while it waits for the echo,
25 ms after it), drains everything the peer sent into one string per poll, and searches the
whole output for the prompt after every poll. That costs latency on every command (half a
poll on average), CPU that grows with the square of the output, and several copies of a
large output (netmiko's string, its list of recent reads, the split lines of its prompt and
echo stripping, ours): a flooding peer drove memory to 4-6 times the output cap.

Here the channel is read with blocking ``recv`` calls bounded by the deadlines (we wake when
data arrives), at most 64 KiB at a time; raw bytes are counted against the cap *before* they
are decoded (a read past the cap is cut there, so nothing beyond the cap is ever held); the
bytes are decoded incrementally, line ends normalised and ANSI codes stripped (netmiko's
own functions on a netmiko session, :class:`Terminal` on the asyncio shell), and the prompt
is looked for in the last (incomplete) line only. Complete lines are kept as they come and
joined once at the end (held once while it streams; the join is the one copy, as decoding a
byte buffer would be: about twice the cap at the end of a flood).

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


_LINE_END = re.compile(r"\r*\n\r?|\r")
"""A terminal's line ends (CR LF, CR CR LF, LF CR, a lone CR): one LF each."""
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[()*+][0-9A-Za-z]|[@-_=>])"
)
"""ECMA-48 sequences a CLI prints: CSI (colours, cursor moves, erase, modes), OSC (window
titles, ended by BEL or ST), character-set selection and the two-character ones (``ESC E``,
next line, becomes a line end first)."""


class Terminal:
    """Line ends and escape sequences of an interactive session, without netmiko (the
    asyncio shell transport); netmiko's connection object has the same three members."""

    encoding = "utf-8"
    ansi_escape_codes = True

    @staticmethod
    def normalize_linefeeds(text: str) -> str:
        """Every line end as ``\\n``."""
        return _LINE_END.sub("\n", text)

    @staticmethod
    def strip_ansi_escape_codes(text: str) -> str:
        """Escape sequences removed (``ESC E`` as a line end)."""
        return _ESCAPE.sub("", text.replace("\x1bE", "\n"))


def _settled(text: str) -> int:
    """How much of ``text`` no later read can change: not its trailing line-end characters
    (CR LF split across two reads is one line end) nor an escape sequence not finished yet."""
    keep = len(text.rstrip("\r\n"))
    esc = text.rfind("\x1b", max(0, keep - 16), keep)
    if esc >= 0 and _OPEN_ESCAPE.fullmatch(text, esc, keep):
        keep = esc
    return keep


def prompt_pattern(base: str) -> re.Pattern[str]:
    """The prompt of base prompt ``base`` at the end of the text, in any CLI mode:
    ``name(config-if)#`` keeps the base prompt; Onyx prints a space before the mode and the
    mode character (``switch (config) #``)."""
    escaped = re.escape(base.strip())
    return re.compile(
        rf"(?:^|[\r\n]){escaped}[ \t]?(?:\([^()\r\n]{{1,120}}\)[ \t]?)?[>#$%]?[ \t]*\Z"
    )


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


class Decoder:
    """Raw reads of a terminal as text: decoded incrementally, line ends normalised, escape
    sequences stripped (by ``term``: a netmiko connection or :class:`Terminal`)."""

    def __init__(self, term: Any) -> None:
        self.term = term
        self.decoder = codecs.getincrementaldecoder(getattr(term, "encoding", "utf-8"))("ignore")
        self.ansi = bool(getattr(term, "ansi_escape_codes", False))
        self.carry = ""
        """Raw text a later read may change (a line end or an escape cut by the read)."""

    def block(self, raw: bytes) -> str:
        """Decode ``raw``; return the normalised text that no later read can change."""
        text = self.carry + self.decoder.decode(raw)
        keep = _settled(text)
        text, self.carry = text[:keep], text[keep:]
        if not text:
            return ""
        text = self.term.normalize_linefeeds(text)
        if self.ansi and "\x1b" in text:
            text = self.term.strip_ansi_escape_codes(text)
        return str(text)


class _Text(Decoder):
    """The decoded, normalised stream of one command (echo handling, lines, prompt)."""

    def __init__(self, term: Any, command: str, prompt: re.Pattern[str]) -> None:
        super().__init__(term)
        self.command, self.prompt = command.strip(), prompt
        self.head = ""
        """Text up to the end of the echo line (dropped once the echo line is complete)."""
        self.scan = 0
        self.echoed = False
        self.tail = ""
        """The last, incomplete line (where the prompt appears)."""

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


class Reader:
    """One command's answer, fed raw reads as they come (by the blocking loop of
    :func:`send_and_read`, or by an asyncio channel's callbacks): the cap is counted on raw
    bytes before they are decoded, complete lines are kept, the prompt ends it."""

    def __init__(
        self, term: Any, command: str, prompt: re.Pattern[str], cap: int, *, blocks: bool = False
    ) -> None:
        self.text = _Text(term, command, prompt)
        self.cap, self.blocks = cap, blocks
        self.parts: list[str] = []  # complete lines, joined once at the end
        self.received = 0

    def pending(self, text: str) -> None:
        """Text read before the command was sent (dropped up to the command's echo)."""
        if text:
            self.parts.append(self.text.feed(text))

    def left(self) -> int:
        """Raw bytes the cap still allows."""
        return self.cap - self.received

    def take(self, data: bytes) -> Answer | None:
        """Feed one read; the answer once the prompt came or the cap was passed."""
        self.received += len(data)
        if self.received > self.cap:  # keep what came before the cap: complete lines
            keep = data[: len(data) - (self.received - self.cap)]
            self.parts.append(self.text.feed(self.text.block(keep)))
            if self.blocks:
                return Answer("", truncated=True, blocks=_drain(self.parts))
            return Answer(_finish(self.parts, final=False), truncated=True)
        self.parts.append(self.text.feed(self.text.block(data)))
        if self.text.at_prompt():
            return Answer(_finish(self.parts, final=True))
        return None


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
    reader = Reader(conn, command, prompt, limits.cap, blocks=blocks)
    pending = str(getattr(conn, "_read_buffer", "") or "")
    conn._read_buffer = ""
    conn.write_channel(conn.normalize_cmd(command))
    reader.pending(pending)
    old_timeout = chan.gettimeout()
    try:
        while True:
            answer = reader.take(_recv(chan, limits, reader.left()))
            if answer is not None:
                return answer
    finally:
        chan.settimeout(old_timeout)


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
