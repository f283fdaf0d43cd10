"""Signals of a CLI run: SIGTERM stops like Ctrl-C (cleanups run), exit 130 or 143; and the
end of a finished run (:func:`leave`).

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


def leave(done: SystemExit) -> None:
    """End a finished run with ``done``'s exit code at once, without the interpreter's
    teardown: it frees every object still held one by one and runs a last full collection
    over them (about a second after a 10,000-host audit, for nothing: the process ends).
    The ``atexit`` handlers run first and the standard streams are flushed, as at a normal
    exit. Raises ``done`` (a normal exit) when another thread is still running (it would be
    cut off), a profiler or tracer is attached (``python -m cProfile`` writes its output
    after the run), the code is not a number, or a stream cannot be flushed (Python then
    reports it)."""
    import atexit
    import threading

    code = 0 if done.code is None else done.code
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    if not isinstance(code, int) or threading.active_count() > 1 or watched:
        raise done
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise done from None
    os._exit(code)
