"""Progress of ``rocetune apply`` with rich: the wave, and each device's state and reason.

On a terminal a live table (device, state, reason) under the run's line; otherwise one line
per transition, so a log file or CI output keeps every step.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table

from rocetune.apply.states import DeviceState, RunState

_STYLE = {
    DeviceState.DONE: "green",
    DeviceState.ROLLED_BACK: "yellow",
    DeviceState.ABORTED: "yellow",
    DeviceState.STUCK: "bold red",
    DeviceState.ROLLING_BACK: "red",
}


class RichProgress:
    """An :class:`rocetune.apply.options.Observer` drawing with rich."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.run = ""
        self.rows: dict[str, tuple[DeviceState, str]] = {}
        self.lock = threading.Lock()
        self.live: Live | None = None

    def _table(self) -> Table:
        table = Table(title=self.run, title_justify="left", expand=False)
        table.add_column("device")
        table.add_column("state")
        table.add_column("reason", overflow="fold")
        for name, (state, reason) in self.rows.items():
            style = _STYLE.get(state, "cyan")
            table.add_row(name, f"[{style}]{state.value}[/]", reason[:120])
        return table

    def run_state(self, state: RunState, detail: str) -> None:
        """The run moved."""
        with self.lock:
            self.run = f"{state.value}: {detail}"
            if self.live is not None:
                self.live.update(self._table())
            else:
                self.console.print(f"[bold]{self.run}[/]")

    def device_state(self, device: str, state: DeviceState, reason: str) -> None:
        """A device moved."""
        with self.lock:
            self.rows[device] = (state, reason)
            if self.live is not None:
                self.live.update(self._table())
            else:
                style = _STYLE.get(state, "cyan")
                self.console.print(
                    f"  {device}: [{style}]{state.value}[/] {reason}", highlight=False
                )


@contextlib.contextmanager
def progress(stream: TextIO) -> Iterator[RichProgress]:
    """A progress observer on ``stream`` (live table on a terminal)."""
    console = Console(file=stream)
    observer = RichProgress(console)
    if not console.is_terminal:
        yield observer
        return
    with Live(observer._table(), console=console, refresh_per_second=4) as live:
        observer.live = live
        yield observer
        observer.live = None
