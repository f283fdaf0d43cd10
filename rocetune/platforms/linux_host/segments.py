"""Split a saved file into command outputs: one per prompt, ``bash -x`` or backtick line.

A collected snapshot file holds one output. Saved files in pull requests, issues and notes
often hold a terminal session instead; the lines that start a new command are:

- a shell prompt: ``[root@host dir]# cmd``, ``user@host:~$ cmd``, ``$ cmd``;
- a ``bash -x`` trace line: ``+ cmd`` (``++`` for nested levels);
- a command quoted alone on a line: ```` `cmd` ````;
- a host tool's command line pasted without a prompt (:func:`bare_command`), also after a
  root prompt ``# ``; other lines starting with ``#`` are script comments and are dropped.

Markdown code fences (```` ``` ````) are dropped. The lines before the first command line
belong to the file's own command (the one the snapshot file name or metadata names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rocetune.platforms.linux_host import commands as c

_PROMPTS = (
    re.compile(r"\[[^\]\n]{1,80}\][#$]\s?(.*)"),
    re.compile(r"[\w.-]{1,64}@[\w.-]{1,64}(?::[^\s#$]{0,120})?\s?[#$]\s?(.*)"),
    re.compile(r"\$ (.*)"),
    re.compile(r"\+{1,3} (.*)"),
    re.compile(r"`([^`]+)`\s*"),
)
_SYSFS_WRITE = re.compile(
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba)?sh\s+-c\s+['\"]\s*)?echo\s+\S+\s*>\s*/sys/"
)
_TOOL = re.compile(r"(?:sudo\s+(?:-\S+\s+)*)?[\w./-]+(?:\s|$)")
_SHELL = re.compile(
    r"(?:sudo|sysctl|modprobe|systemctl|lspci|ibstat|devlink|lldptool|dcb|mkdir|export)\s"
)
_FENCE = re.compile(r"\s*```[\w-]*\s*")
_FIRST_WORDS = (
    # _SYSFS_WRITE and _SHELL
    "sudo|sh|bash|echo|sysctl|modprobe|systemctl|lspci|ibstat|devlink|lldptool|dcb|mkdir|export"
    # commands.strip_command's prefixes, then the first word of every host read command
    "|command|exec|time|ibdev2netdev|hostname|lldpcl|mlnx_qos|cat|ethtool|grep|cma_roce_"
    "|show_gids|ibv_devinfo|mlxconfig|mstconfig"
)
"""Every word a line that :func:`prompt_command` or :func:`bare_command` accepts may start
with (after blanks); a superset: a line starting otherwise is output (tests keep it in step
with :data:`~.commands.KINDS`)."""
_MAY_START_FIRST = re.compile(rf"\s*(?:[\[$+#]|{_FIRST_WORDS})")
_MAY_START_LATER = re.compile(rf"\n\s*(?:[\[$+#]|{_FIRST_WORDS})")
"""With ``@`` and a backtick, these find every line that may start a command (and some that
do not): a text without one is plain output, one segment (the fast path of :func:`split`).
The first line and the lines after a newline are two patterns, not one ``^`` pattern with
``re.MULTILINE``: a pattern that starts with the literal newline is searched for it (the
``^`` pattern was tried at every character: a third of a host snapshot's parse)."""
_MAY_START_LINE = re.compile(rf"\s*(?:[\[$+#]|{_FIRST_WORDS})|[^@`]*[@`]")
MAX_LINES = 200_000
"""Lines read per file (outputs of real hosts are far shorter)."""
_PLAIN: dict[tuple[str, bool], tuple[tuple[int, str], ...]] = {}
"""The numbered lines of the texts :func:`split` found to be plain output, by (text,
transcript): every host of a fabric saves the same ``mlnx_qos``, ECN and ``ethtool`` outputs,
and looking a text up costs a fraction of :func:`_may_start`'s patterns on it. The shared
line tuples also make the parse memo of :mod:`.outputs` compare its keys by identity."""
_PLAIN_SIZE = 512
_PLAIN_TEXT = 4096
"""Longer texts are not kept (per-NIC outputs are a few hundred bytes to a kilobyte)."""


@dataclass(frozen=True)
class Segment:
    """The output of one command inside a file, with 1-based line numbers."""

    file: str
    lines: tuple[tuple[int, str], ...]
    command: str | None = None
    """The command line that produced it (None: the file's own command)."""
    command_line: int | None = None

    @property
    def first_line(self) -> int | None:
        """Line of the command (or of the first output line)."""
        if self.command_line is not None:
            return self.command_line
        return self.lines[0][0] if self.lines else None

    def text_lines(self) -> list[str]:
        """The output lines without their numbers."""
        return [text for _, text in self.lines]

    def meaningful(self) -> list[tuple[int, str]]:
        """Lines that are not blank."""
        return [(n, t) for n, t in self.lines if t.strip()]


def prompt_command(line: str) -> str | None:
    """The command of a prompt / trace / backtick line, or None for an ordinary line."""
    for pattern in _PROMPTS:
        match = pattern.fullmatch(line.rstrip())
        if match is not None:
            return match.group(1).strip()
    return None


_HOST_PROMPT = re.compile(r"\[?[\w.-]{1,64}@([A-Za-z0-9][\w.-]{0,62})[\s:\]]")


_NO_IDENTITY = frozenset({"localhost", "localhost.localdomain", "host", "hostname", "server"})
"""Prompt host names that name no particular machine."""


def prompt_host(text: str) -> tuple[str, int] | None:
    """The host name of the first ``[user@host dir]#`` / ``user@host:~$`` prompt, and its line
    (``localhost`` and other placeholders name no machine and are skipped)."""
    for number, line in enumerate(text.splitlines()[:MAX_LINES], start=1):
        if prompt_command(line) is None:
            continue
        match = _HOST_PROMPT.match(line.strip())
        if match is not None and match.group(1).lower() not in _NO_IDENTITY:
            return match.group(1), number
    return None


def bare_command(line: str) -> str | None:
    """A command line pasted without a prompt (``mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0``,
    ``sudo cma_roce_tos -d mlx5_0 -t 106``, ``echo 106 > /sys/.../traffic_class``), or None.

    Only host tools are recognised (commands a switch runs too, ``hostname`` and ``lldpctl``,
    are not): an output line never starts with one of their names."""
    text = line.strip()
    if not text or text[0] in "#:<[{" or len(text) > 400:
        return None
    if _SYSFS_WRITE.match(text):
        return text
    if _SHELL.match(text):
        return text  # sudo / sysctl / modprobe ... never start a tool's output line
    if not _TOOL.match(text):
        return None  # ``grep: /sys/...: No such file`` is an error message, not a command
    found = c.identify(text)
    if found is None or found[0] in (c.LLDPCTL, c.HOSTNAME):
        return None
    return text


def _may_start(text: str) -> bool:
    """True when a line of ``text`` may start a command (see :data:`_MAY_START_FIRST`)."""
    return (
        "@" in text
        or "`" in text
        or _MAY_START_FIRST.match(text) is not None
        or _MAY_START_LATER.search(text) is not None
    )


def split(text: str, file: str, *, transcript: bool = True) -> list[Segment]:
    """Split ``text`` into segments; with ``transcript=False`` the whole text is one output."""
    known = _PLAIN.get((text, transcript))
    if known is not None:
        return [Segment(file, known)]
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = normal.split("\n")[:MAX_LINES]
    if lines[0].startswith("\ufeff"):
        lines[0] = lines[0].lstrip("\ufeff")
    elif "`" not in normal and (not transcript or not _may_start(normal)):
        # plain command output: no line can be a fence, prompt or command line
        numbered = tuple(enumerate(lines, start=1))
        if len(text) <= _PLAIN_TEXT:
            if len(_PLAIN) >= _PLAIN_SIZE:
                _PLAIN.clear()  # start over: a fabric has a few distinct outputs per command
            _PLAIN[(text, transcript)] = numbered
        return [Segment(file, numbered)]
    segments: list[Segment] = []
    current: list[tuple[int, str]] = []
    command: str | None = None
    command_line: int | None = None
    for number, line in enumerate(lines, start=1):
        if "`" in line and _FENCE.fullmatch(line):
            continue
        found = None
        if transcript and _MAY_START_LINE.match(line) is not None:
            found = prompt_command(line) or bare_command(line)
            if found is None and line.startswith("#"):
                root = bare_command(line[1:]) if line.startswith("# ") else None
                if root is None:
                    continue  # a script comment or ``#!/bin/bash``: no output of any command
                found = root
        if found is None:
            current.append((number, line))
            continue
        segments.append(Segment(file, tuple(current), command, command_line))
        current, command, command_line = [], found, number
    segments.append(Segment(file, tuple(current), command, command_line))
    return segments
