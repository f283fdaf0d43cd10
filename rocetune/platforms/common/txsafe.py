"""Helpers of the Linux-based transaction drivers (SONiC, Cumulus NVUE, hosts).

Everything a driver sends is validated first: names that become unit, file or checkpoint
names match :data:`TAG`; no value carries a control character (a newline would make it two
commands, and :func:`rocetune.collect.transport.check_command` refuses it anyway); files are
written with ``printf '%s'`` of shell-quoted chunks (a heredoc needs newlines, which an
interactive session cannot send as one command) and read back before use.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Iterable, Sequence

from rocetune.platforms.common.cli_errors import command_error
from rocetune.platforms.transaction import Step, TransactionError
from rocetune.session import Session

TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
"""A name used as a checkpoint, systemd unit and file name (``rocetune-<run>-<device>``)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
CHUNK = 900
"""Quoted characters of file content per ``printf`` command. A terminal in canonical mode
takes at most 4095 characters per line (Linux N_TTY), so a command stays well below that."""
LOST = "exit status -1"
"""What the exec-channel transport reports when a channel closed without an exit status
(:mod:`rocetune.collect.exec_channel`): the connection went away, the command's fate is unknown."""
QUESTION = re.compile(r"(\[[yY]/[nN]\]|\(y/n\)|\[yes/no\]|continue\?)\s*$", re.I)
"""An interactive question left unanswered at the end of an output."""


def check_tag(tag: str) -> str:
    """Return ``tag`` when it is a safe device-side name; TransactionError otherwise."""
    if TAG.fullmatch(tag) is None:
        raise TransactionError("precheck", f"unsafe run/device name for device objects: {tag!r}")
    return tag


def check_text(step: Step, text: str, what: str) -> str:
    """Return ``text`` when it has no control characters; TransactionError otherwise."""
    if _CONTROL.search(text):
        raise TransactionError(step, f"{what} contains a control character: {text[:80]!r}")
    return text


def _chunks(text: str) -> list[str]:
    """``text`` cut so that each piece, shell-quoted, stays near :data:`CHUNK` characters
    (a single quote costs five characters quoted: ``'"'"'``)."""
    chunks: list[str] = []
    start, cost = 0, 0
    for i, ch in enumerate(text):
        step = 5 if ch == "'" else 1
        if cost + step > CHUNK:
            chunks.append(text[start:i])
            start, cost = i, 0
        cost += step
    chunks.append(text[start:])
    return chunks


def write_file(path: str, text: str) -> list[str]:
    """Commands writing ``text`` (no control characters) to ``path``, chunk by chunk."""
    chunks = _chunks(text)
    out: list[str] = []
    for n, chunk in enumerate(chunks):
        redirect = ">" if n == 0 else ">>"
        out.append(f"printf '%s' {shlex.quote(chunk)} {redirect} {shlex.quote(path)}")
    return out


def write_lines(path: str, lines: Sequence[str]) -> str:
    """One command writing ``lines`` (each without control characters) to ``path``."""
    args = " ".join(shlex.quote(line) for line in lines)
    return f"printf '%s\\n' {args} > {shlex.quote(path)}"


def timer_active(session: Session, step: Step, unit: str, platform: str) -> bool:
    """Whether the on-box timer ``<unit>.timer`` (a revert or restore timer) is armed."""
    text = run(session, step, f"systemctl is-active {unit}.timer || true", platform)
    return text.strip().splitlines()[-1:] == ["active"]


def run(
    session: Session,
    step: Step,
    command: str,
    platform: str,
    *,
    success: str | None = None,
    failures: Iterable[str] = (),
) -> str:
    """Run ``command``; TransactionError when the device refused it.

    A lost session is not a refusal: the transport's exception goes through unchanged.

    Refused means: the session reported an error (exit status or CLI error line), one of the
    ``failures`` phrases is in the output, an interactive question is left open, or the
    ``success`` phrase the tool prints on success is missing (garbled or cut output counts
    as a failure: a step is done only when the device says so).
    """
    out = session.run(command)  # a broken session raises as it is: the device state is
    text = out.text  # unknown, and rocetune.apply recovers over a new session (pending())
    if out.error == LOST:
        raise ConnectionError(f"no exit status for {command!r}: the connection was lost")
    said = [ln.strip() for ln in text.splitlines() if any(f in ln for f in failures)]
    error = said[0][:200] if said else out.error or command_error(platform, text)
    if error is None and QUESTION.search(text.rstrip()):
        error = f"interactive question left open: {text.strip().splitlines()[-1][:120]}"
        with contextlib.suppress(Exception):  # answer "no": the step fails anyway
            session.run("n")
    if error is None and success is not None and success not in text:
        error = f"no {success!r} in the output"
    if error is not None:
        raise TransactionError(step, f"device refused ({command}): {error}", text)
    return text
