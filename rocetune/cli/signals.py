"""Signals of a CLI run: SIGTERM stops like Ctrl-C (cleanups run), exit 130 or 143.

Kept apart from :mod:`rocetune.cli.common` so that the entry point installs the handlers
without importing the checking code (``rocetune --help`` stays fast).
"""

from __future__ import annotations

import os
import sys

import click

EXIT_SIGINT = 130
EXIT_SIGTERM = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that cleanups (``finally``) run as on Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def install_signal_handlers() -> None:
    """SIGTERM stops a run like Ctrl-C does (cleanups run), with exit code 143."""
    import signal

    signal.signal(signal.SIGTERM, _on_sigterm)


def interrupted(exc: KeyboardInterrupt) -> None:
    """Say how the run was stopped and leave at once, exit 130 (SIGINT) or 143 (SIGTERM).

    The cleanups have run on the way here (servers stopped, workers told to stop, snapshots
    already written are complete: each is renamed into place whole). Worker threads still
    waiting on a slow device are not waited for: the process ends now.
    """
    code, name = (
        (EXIT_SIGTERM, "SIGTERM") if isinstance(exc, Terminated) else (EXIT_SIGINT, "SIGINT")
    )
    click.echo(f"rocetune: stopped by {name}; completed work was kept", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
