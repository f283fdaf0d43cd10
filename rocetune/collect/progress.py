"""Progress on stderr: a rich progress bar on a terminal, plain per-device lines otherwise."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from rocetune.collect.job import Outcome

WAIT_NOTE_S = 30.0
"""Plain progress: after this long without a device finishing, name the devices outstanding."""
SHOWN = 5


def waiting_for(pending: Sequence[str], shown: int = SHOWN) -> str:
    """``"leaf1, leaf2 and 3 more"``: the devices still outstanding."""
    names = ", ".join(pending[:shown])
    return names + (f" and {len(pending) - shown} more" if len(pending) > shown else "")


def describe(outcome: Outcome) -> str:
    """One line about a device."""
    if outcome.failure is not None:
        return f"FAILED {outcome.name}: {outcome.failure}"
    extra = f", {outcome.rejected} optional rejected" if outcome.rejected else ""
    return (
        f"collected {outcome.name} ({outcome.platform}, {outcome.commands} commands{extra}, "
        f"{outcome.seconds:.2f} s)"
    )


class PlainProgress:
    """``rocetune: collected leaf1 (...)`` lines, then a summary."""

    def __init__(self, stream: IO[str] | None = None, wait_note_s: float = WAIT_NOTE_S) -> None:
        self.stream = stream or sys.stderr
        self.total = self.ok = self.failed = 0
        self.started = self.last = time.monotonic()
        self.pending: dict[str, None] = {}
        self.wait_note_s = wait_note_s
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.watch: threading.Thread | None = None

    def _say(self, text: str) -> None:
        self.stream.write(f"rocetune: {text}\n")
        self.stream.flush()

    def start(self, total: int, names: Sequence[str] = ()) -> None:
        """Announce the run; with ``names``, name the outstanding devices when it stalls."""
        self.total, self.started = total, time.monotonic()
        self.last = self.started
        self.pending = dict.fromkeys(names)
        self._say(f"collecting {total} device(s) over SSH")
        if self.pending and self.wait_note_s > 0:
            self.watch = threading.Thread(target=self._watch, name="progress", daemon=True)
            self.watch.start()

    def _watch(self) -> None:
        """Every ``wait_note_s`` without a device finishing: say which are outstanding."""
        while not self.stop.wait(min(1.0, self.wait_note_s)):
            with self.lock:
                quiet = time.monotonic() - self.last
                pending = list(self.pending)
                if quiet < self.wait_note_s or not pending:
                    continue
                self.last = time.monotonic()
                self._say(f"waiting for {len(pending)} device(s): {waiting_for(pending)}")

    def _finished(self, outcome: Outcome) -> None:
        with self.lock:
            self.pending.pop(outcome.name, None)
            self.last = time.monotonic()
            if outcome.ok:
                self.ok += 1
            else:
                self.failed += 1

    def done(self, outcome: Outcome) -> None:
        """One line per device."""
        self._finished(outcome)
        with self.lock:
            self._say(describe(outcome))

    def finish(self) -> None:
        """The summary line."""
        self.stop.set()
        took = time.monotonic() - self.started
        self._say(
            f"collected {self.ok}/{self.total} device(s) in {took:.1f} s"
            + (f"; {self.failed} failed" if self.failed else "")
        )


class RichProgress(PlainProgress):
    """A live bar (devices done/failed, ETA); failures are printed above it as they happen."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        super().__init__(stream)
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.console = Console(file=self.stream, stderr=stream is None)
        self.bar = Progress(
            TextColumn("collecting"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[waiting]}", markup=False),
            console=self.console,
            transient=True,
        )
        self.task: Any = None

    def start(self, total: int, names: Sequence[str] = ()) -> None:
        """Show the bar (the outstanding devices at its end once few are left)."""
        self.total, self.started = total, time.monotonic()
        self.pending = dict.fromkeys(names)
        self.bar.start()
        self.task = self.bar.add_task("collect", total=total, failed=0, waiting=self._waiting())

    def _waiting(self) -> str:
        pending = list(self.pending)
        return f"waiting: {waiting_for(pending, 3)}" if 0 < len(pending) <= 3 else ""

    def done(self, outcome: Outcome) -> None:
        """Advance the bar; print failures."""
        self._finished(outcome)
        if not outcome.ok:
            self.console.print(f"rocetune: {describe(outcome)}", markup=False, highlight=False)
        self.bar.update(self.task, advance=1, failed=self.failed, waiting=self._waiting())

    def finish(self) -> None:
        """Remove the bar, print the summary."""
        self.bar.stop()
        super().finish()


def progress_for(stream: IO[str] | None = None, interactive: bool | None = None) -> PlainProgress:
    """A rich bar when ``stream`` (default stderr) is a terminal, else plain lines."""
    stream = stream or sys.stderr
    if interactive is None:
        interactive = stream.isatty()
    return RichProgress(stream) if interactive else PlainProgress(stream)
