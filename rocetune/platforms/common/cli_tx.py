"""Helpers of the modal-CLI transaction drivers (Arista EOS, Cisco NX-OS).

Everything sent is validated first: device-side names (session, checkpoint, schedule, file)
come from :attr:`rocetune.platforms.transaction.TxContext.tag` and must match :data:`TAG`;
plan lines carry no control character (a newline would make them two commands) and no
exec-mode command (``copy``, ``write``, ``reload``, ``configure``, ``end``: a plan is
configuration only).

Plan ``commands`` are indented the way the platform writes its running config. A modal CLI
has no indentation, so :func:`mode_script` turns the indentation back into modes: a line
followed by a deeper one opens a mode, and an ``exit`` is sent for every mode a shallower
line leaves.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from rocetune.platforms.transaction import Step, TransactionError
from rocetune.session import Session

TAG = re.compile(r"rocetune-[A-Za-z0-9][A-Za-z0-9_.-]{0,90}")
"""A device-side object name of one run (``rocetune-<run>-<device>``)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_EXEC = re.compile(
    r"^(?:do|end|exit|configure|config|conf|copy|write|wr|reload|delete|rollback|checkpoint"
    r"|commit|abort|show|terminal|run|bash|guestshell|install|format|erase|clear|rmdir|move"
    r"|tclsh|python|event|scheduler|lab)\b"
)
QUESTION = re.compile(
    r"(\[confirm\]|\[[yY]/[nN]\]|\(y/n\)\??|\[yes/no\]|\[no\]|Proceed\?|continue\?)\s*:?\s*$",
    re.IGNORECASE,
)
"""An interactive question left unanswered at the end of an output."""
MAX_LINE = 512


class UnreadableOutput(Exception):
    """The device answered, but not in a form that says what it did (garbled, cut, no
    success line): the device state is unknown, which is not a :class:`TransactionError`
    (that one means "refused, nothing changed by this step"). The orchestrator treats it
    like a broken session: new session, :meth:`~rocetune.platforms.transaction.Transaction.
    pending`, rollback."""

    def __init__(self, step: Step, message: str, output: str = "") -> None:
        super().__init__(f"{step}: {message}")
        self.step, self.message, self.output = step, message, output


def _percent(text: str) -> str | None:
    """Any ``% ...`` line among the first ones: EOS and NX-OS start every CLI error with it
    (the session's own error marker knows the common words; a lock or limit message has
    others)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()][:3]
    return next((line[:200] for line in lines if line.startswith("% ")), None)


def check_tag(tag: str) -> str:
    """Return ``tag`` when it is a safe device-side name; TransactionError otherwise."""
    if TAG.fullmatch(tag) is None:
        raise TransactionError("precheck", f"unsafe run/device name for device objects: {tag!r}")
    return tag


def plan_lines(items: Iterable[dict[str, Any]], step: Step = "stage") -> list[tuple[int, str]]:
    """(indent, text) of every configuration line of the plan changes, validated."""
    lines: list[tuple[int, str]] = []
    for change in items:
        commands = change.get("commands")
        if not isinstance(commands, list):
            raise TransactionError(step, "a CLI change has no 'commands' list")
        for raw in commands:
            if not isinstance(raw, str):
                raise TransactionError(step, f"not a command line: {raw!r}")
            if _CONTROL.search(raw) or len(raw) > MAX_LINE:
                raise TransactionError(step, f"refusing plan line {raw[:80]!r}")
            text = " ".join(raw.split())
            if not text or text.startswith("!"):
                continue
            if _EXEC.match(text):
                raise TransactionError(step, f"not a configuration line: {text!r}")
            lines.append((len(raw) - len(raw.lstrip(" ")), text))
    return lines


def mode_script(lines: Sequence[tuple[int, str]]) -> list[str]:
    """The lines to type: ``exit`` inserted where the indentation leaves a mode; the
    script ends in the global configuration mode."""
    out: list[str] = []
    open_: list[int] = []
    for n, (indent, text) in enumerate(lines):
        while open_ and open_[-1] >= indent:
            out.append("exit")
            open_.pop()
        out.append(text)
        if n + 1 < len(lines) and lines[n + 1][0] > indent:
            open_.append(indent)
    out.extend("exit" for _ in open_)
    return out


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

    Refused means: the session reported an error (the CLI's ``%`` line), one of the
    ``failures`` phrases is in the output, or an interactive question is left open (answered
    ``n``). When the ``success`` phrase the device prints on success is missing (a garbled
    or cut output) the state is unknown: :class:`UnreadableOutput`. A broken session raises
    whatever the session raised (state unknown too); the caller reads back what the device
    did (``pending``) on a new session.
    """
    if _CONTROL.search(command) or not command.strip():
        raise TransactionError(step, f"refusing to send {command[:80]!r}")
    out = session.run(command)  # a broken session raises: state unknown, caller recovers
    text = out.text
    del platform  # every EOS/NX-OS CLI error line starts with "% " (cli_errors says the same)
    error = out.error or _percent(text)
    if error is None:
        error = next((f for f in failures if f in text), None)
    if error is None and QUESTION.search(text.rstrip()):
        error = f"interactive question left open: {text.strip().splitlines()[-1][:120]}"
        with contextlib.suppress(Exception):  # answer "no": the step fails anyway
            session.run("n")
    if error is None and success is not None and success not in text:
        raise UnreadableOutput(step, f"no {success!r} in the output of {command!r}", text)
    if error is not None:
        raise TransactionError(step, f"device refused ({command}): {error}", text)
    return text
