"""A finished CLI run ends its process at once (rocetune.cli.signals.leave): the ``atexit``
handlers run and the output is flushed, but the interpreter's teardown (freeing every object
of a big audit one by one) is skipped, unless a thread is still running or a profiler is
attached."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import atexit, sys, runpy, threading, time
atexit.register(lambda: print("ATEXIT", flush=True))
MODE = {mode!r}
if MODE == "thread":
    threading.Thread(target=time.sleep, args=(0.3,)).start()
if MODE == "profile":
    sys.setprofile(lambda *a: None)
sys.argv = ["rocetune", "--version"]
try:
    runpy.run_module("rocetune", run_name="__main__")
except SystemExit as exc:  # a normal exit: the interpreter tears down after it
    print("RAISED", exc.code, flush=True)
    raise
"""


def _run(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE.format(mode=mode)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_finished_run_skips_the_teardown() -> None:
    done = _run("plain")
    assert done.returncode == 0, done.stderr
    assert "rocetune, version" in done.stdout
    assert "ATEXIT" in done.stdout  # the handlers ran, the output was flushed
    assert "RAISED" not in done.stdout


@pytest.mark.parametrize("mode", ["thread", "profile"])
def test_running_thread_or_profiler_gets_a_normal_exit(mode: str) -> None:
    done = _run(mode)
    assert done.returncode == 0, done.stderr
    assert "ATEXIT" in done.stdout
    assert "RAISED 0" in done.stdout
