"""Progress on stderr: a rich progress bar on a terminal, plain per-device lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from rocetune.collect.job import Outcome


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

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = self.ok = self.failed = 0
        self.started = time.monotonic()

    def _say(self, text: str) -> None:
        self.stream.write(f"rocetune: {text}\n")
        self.stream.flush()

    def start(self, total: int) -> None:
        """Announce the run."""
        self.total, self.started = total, time.monotonic()
        self._say(f"collecting {total} device(s) over SSH")

    def done(self, outcome: Outcome) -> None:
        """One line per device."""
        if outcome.ok:
            self.ok += 1
        else:
            self.failed += 1
        self._say(describe(outcome))

    def finish(self) -> None:
        """The summary line."""
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
            console=self.console,
            transient=True,
        )
        self.task: Any = None

    def start(self, total: int) -> None:
        """Show the bar."""
        self.total, self.started = total, time.monotonic()
        self.bar.start()
        self.task = self.bar.add_task("collect", total=total, failed=0)

    def done(self, outcome: Outcome) -> None:
        """Advance the bar; print failures."""
        if outcome.ok:
            self.ok += 1
        else:
            self.failed += 1
            self.console.print(f"rocetune: {describe(outcome)}", markup=False, highlight=False)
        self.bar.update(self.task, advance=1, failed=self.failed)

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
