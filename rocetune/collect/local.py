"""Host-local collection: run a host driver's commands on this machine, no SSH.

``rocetune collect --local`` (one task per node under Slurm, or a DaemonSet pod) collects
the machine it runs on with the same code as SSH collection: :class:`LocalTransport` opens
a :class:`LocalSession` that satisfies :class:`rocetune.session.Session`, so
:func:`rocetune.collect.device.collect_device` runs the driver's commands and follow-ups,
redacts and records them exactly as it does over an exec channel, and
:func:`rocetune.collect.job.run_job` writes the snapshot atomically.

Commands come only from the driver's command list (every NIC, RDMA device and PCI address
in them was validated by :mod:`rocetune.platforms.linux_host.names`). A command with no
shell syntax is split with :func:`shlex.split` and executed directly (no shell); one that
needs a shell (the sysfs globs ``/sys/class/net/eth2/ecn/roce_*p/*``) runs under
``sh -c``. Each command has its own timeout (its process group is killed when it expires)
and the output cap of ``--max-output-mib`` (past it the command is stopped and its output
kept up to the cap, marked truncated, as over SSH); a missing tool, a non-zero exit or a
timeout is the command's error, recorded in ``meta.json`` (status ``error``) and never fatal
for an optional command.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shlex
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from rocetune.collect.credentials import Credentials
from rocetune.collect.job import Job, Outcome, run_job
from rocetune.collect.options import CollectOptions
from rocetune.collect.shell_batch import cut_at_line
from rocetune.collect.target import Target
from rocetune.collect.transport import check_command, finish_text
from rocetune.outputs import LOCK_FILE, DirectoryLock
from rocetune.platforms import drivers
from rocetune.platforms.linux_host.followups import ibdev2netdev_netdevs
from rocetune.session import Output, Session

LANES = 4
"""Commands run at the same time (they are short reads; more would only compete)."""
_SHELL_SYNTAX = re.compile(r"[*?\[\]|&;<>()$`\\\"'~{}]")
SYSFS_NET = Path("/sys/class/infiniband")


def needs_shell(command: str) -> bool:
    """True when ``command`` uses shell syntax (a glob, a pipe, quoting)."""
    return bool(_SHELL_SYNTAX.search(command))


def argv(command: str) -> list[str]:
    """How ``command`` is executed: its words, or ``sh -c`` when it needs a shell."""
    return ["sh", "-c", command] if needs_shell(command) else shlex.split(command)


def _first_line(text: str, fallback: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return (lines[0] if lines else fallback)[:200]


class LocalSession:
    """Runs commands on this machine as child processes; ``lanes`` at a time."""

    batch = 256

    def __init__(
        self,
        timeout: float,
        lanes: int = LANES,
        max_output_bytes: int = 64 * 2**20,
        env: dict[str, str] | None = None,
    ) -> None:
        self.timeout, self.lanes, self.max_output = timeout, lanes, max_output_bytes
        self.env = env

    def run(self, command: str) -> Output:
        """Run one command with its timeout; never raises for the command's own failure."""
        check_command(command)
        start = time.monotonic()
        words = argv(command)
        try:
            proc = subprocess.Popen(
                words,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group: a timeout kills all of it
                env=self.env,
            )
        except FileNotFoundError:
            return Output("", f"{words[0]}: command not found", time.monotonic() - start)
        except OSError as exc:
            return Output("", f"{words[0]}: {exc.strerror or exc}", time.monotonic() - start)
        got = _read_capped(proc, self.timeout, self.max_output)
        seconds = time.monotonic() - start
        if got.timed_out:
            return Output("", f"timed out after {self.timeout:g} s", seconds)
        if got.cut:
            text = cut_at_line(got.out, self.max_output).decode("utf-8", "replace")
            return Output(finish_text(text), None, seconds, truncated_at=self.max_output)
        text = got.out.decode("utf-8", "replace")
        if proc.returncode != 0:
            fallback = f"exit status {proc.returncode}"
            error = _first_line(got.err.decode("utf-8", "replace"), fallback)
            if proc.returncode == 127 and words[0] == "sh":
                error = f"{error} (command not found)" if "not found" not in error else error
            return Output(finish_text(text), error, seconds)
        return Output(finish_text(text), None, seconds)

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        """Run independent commands, ``lanes`` at a time; outputs in order."""
        for command in commands:
            check_command(command)
        if len(commands) <= 1 or self.lanes <= 1:
            return [self.run(c) for c in commands]
        with ThreadPoolExecutor(max_workers=min(self.lanes, len(commands))) as pool:
            return list(pool.map(self.run, commands))

    def close(self) -> None:
        """Nothing to close."""


_CHUNK = 1 << 16
_ERR_KEPT = 1 << 16
"""Bytes of a command's stderr kept (its first line is the error; the rest is drained)."""


@dataclass
class _Read:
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)
    cut: bool = False
    """stdout went past the cap: the command was stopped, what followed was not read."""
    timed_out: bool = False


def _read_capped(proc: subprocess.Popen[bytes], timeout: float, cap: int) -> _Read:
    """Read a child's stdout and stderr as they arrive, within ``timeout`` seconds in all.

    Holds at most ``cap`` bytes of stdout plus one chunk (the output cap of
    ``--max-output-mib``, as over SSH): past the cap the process group is killed and the
    output is marked cut; stderr keeps its first 64 KiB and is drained after that.
    """
    got = _Read()
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    assert proc.stderr is not None
    streams = {proc.stdout.fileno(): got.out, proc.stderr.fileno(): got.err}
    with selectors.DefaultSelector() as sel:
        for fd in streams:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                got.timed_out = True
                break
            for key, _ in sel.select(min(left, 1.0)):
                fd = int(key.fd)
                try:
                    chunk = os.read(fd, _CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(fd)
                    continue
                kept = streams[fd]
                if kept is got.err:
                    kept += chunk[: max(0, _ERR_KEPT - len(kept))]
                    continue
                kept += chunk
                if len(kept) > cap:
                    got.cut = True
                    break
            if got.cut:
                break
    if got.cut or got.timed_out:
        _kill_group(proc)
    proc.stdout.close()
    proc.stderr.close()
    proc.wait()
    return got


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()


class LocalTransport:
    """Opens :class:`LocalSession` s: the target is this machine, whatever its name."""

    def __init__(
        self, timeout: float, lanes: int = LANES, max_output_bytes: int = 64 * 2**20
    ) -> None:
        self.timeout, self.lanes, self.max_output = timeout, lanes, max_output_bytes

    def open(self, target: Target) -> Session:
        """A session on this machine (``target`` only names the snapshot)."""
        return LocalSession(self.timeout, self.lanes, self.max_output)


def sysfs_netdevs(root: Path | None = None) -> list[str]:
    """Netdevs of the RDMA devices, from ``/sys/class/infiniband/*/device/net/*``."""
    root = SYSFS_NET if root is None else root
    found: set[str] = set()
    with contextlib.suppress(OSError):
        for dev in root.iterdir():
            with contextlib.suppress(OSError):
                found.update(p.name for p in (dev / "device" / "net").iterdir())
    return sorted(found)


def this_host() -> str:
    """This machine's short host name (the snapshot directory's name)."""
    return socket.gethostname().split(".")[0] or "localhost"


def discover_nics(session: Session) -> list[str]:
    """The RoCE netdevs of this machine: ``ibdev2netdev``, else sysfs."""
    out = session.run("ibdev2netdev")
    found = ibdev2netdev_netdevs(out.text) if out.error is None else []
    return found or sysfs_netdevs()


def collect_local(
    out_dir: Path,
    options: CollectOptions,
    *,
    nics: Sequence[str] | None = None,
    name: str | None = None,
) -> Outcome:
    """Collect this machine as a ``linux_host`` into ``out_dir/<name>/`` (default: hostname).

    Takes the lock ``out_dir/.<name>.rocetune.lock`` (not the shared parent's), so every node
    of a job can write its own directory of one shared ``out_dir`` at the same time; a
    second run for the same host fails with OutputError (exit 2).
    """
    name = name or this_host()
    check_name(name)
    transport = LocalTransport(
        options.timeouts.read, max_output_bytes=options.timeouts.max_output_bytes
    )
    target = Target(name, "localhost", None, "linux_host", "local", Credentials(""))
    if nics is None:
        nics = discover_nics(transport.open(target))
    driver = drivers()["linux_host"]
    lock = DirectoryLock(out_dir, f".{name}{LOCK_FILE}")
    lock.acquire()
    try:
        return run_job(
            Job(target, driver, tuple(nics), transport), out_dir, options, threading.Event()
        )
    finally:
        lock.release()


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,252}")


def check_name(name: str) -> str:
    """A host name usable as a directory name; ValueError otherwise."""
    if not _NAME.fullmatch(name) or name in {".", ".."}:
        raise ValueError(f"invalid host name {name!r} for a snapshot directory")
    return name
