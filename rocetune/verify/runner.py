"""Run a verification plan over SSH: counters, perftest servers and clients, round by round.

Per round (every test of a round at the same time, each NIC in at most one test):

1. snapshot the counters of every NIC of the round (``ethtool -S IF`` and the RDMA
   ``hw_counters`` grep, the linux_host driver's own command lines);
2. start each server in the background on host B, wrapped in ``timeout`` so a lost session
   cannot leave it listening, and record its pid::

       nohup timeout LIMIT ib_write_bw ... -p PORT > /tmp/rocetune-perftest-ID.log 2>&1 \
           < /dev/null & echo $!

3. wait until each server listens (``ss -ltn`` shows its port; ``kill -0 PID`` fails = it
   died, stop waiting; bounded by ``listen_timeout_s``). rdma_cm servers open no TCP port:
   their log's ``Waiting for client`` banner is the sign instead;
4. run the clients on host A (``timeout LIMIT ib_write_bw ... ADDRESS 2>&1``), in parallel;
5. read the server logs, then ALWAYS (``finally``: client failure, timeout, SSH error,
   KeyboardInterrupt) ``kill PID`` every started server and ``rm -f`` its log;
6. snapshot the counters again -> deltas (:func:`rocetune.verify.counters.counter_delta`).

Every command is built from validated values (the plan's argument lists, integers, a hex run
id) and quoted with :func:`shlex.quote`; the session refuses control characters as well.
A server whose start did not return a pid cannot be killed by pid: the ``timeout`` wrapper
ends it after ``LIMIT`` seconds.
"""

from __future__ import annotations

import re
import secrets
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from rocetune.model import Fabric, PerftestError, PerftestResult, PortCounters
from rocetune.platforms.linux_host.commands import HW_COUNTERS, STATS
from rocetune.platforms.linux_host.counters import nic_counters, parse_counter_text
from rocetune.session import Output, Session
from rocetune.verify.counters import counter_delta
from rocetune.verify.perftest import parse_perftest
from rocetune.verify.plan import Endpoint, Plan, Test

LOG_DIR = "/tmp"
"""Where the server's output goes (``rocetune-perftest-<run>-r<round>-t<slot>.log``)."""
_PID = re.compile(r"\s*(\d{1,9})\s*")
TIMED_OUT = 124
"""``timeout``'s exit status when it had to stop the command."""


@dataclass(frozen=True)
class RunOptions:
    """How long to wait for what (seconds)."""

    test_timeout_s: int = 60
    """A client is stopped after this long (``timeout``); more than the test duration."""
    listen_timeout_s: float = 10.0
    """How long a server may take to listen."""
    poll_s: float = 0.2
    margin_s: int = 30
    """The server's own ``timeout`` is test + listen + this (a safety net, not the stop)."""


@dataclass
class Verification:
    """What the run produced: results, counter deltas, and problems met on the way."""

    perftest: list[PerftestResult] = field(default_factory=list)
    counters: list[PortCounters] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    tests: list[tuple[int, Test, PerftestResult]] = field(default_factory=list)
    """(round, test, client result) per test, for the results table."""


@dataclass
class _Server:
    test: Test
    log: str
    pid: int | None = None


Clock = Callable[[], float]
Sleep = Callable[[float], None]


class PlanRunner:
    """Runs a plan over one open session per host (``sessions``: host name -> Session)."""

    def __init__(
        self,
        fabric: Fabric,
        sessions: Mapping[str, Session],
        options: RunOptions | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        self.fabric, self.sessions = fabric, sessions
        self.options = options or RunOptions()
        self.clock, self.sleep = clock, sleep
        self.run_id = secrets.token_hex(4)

    def run(self, plan: Plan) -> Verification:
        """Every round in order; an SSH failure of one test never stops the others."""
        out = Verification()
        for number, tests in enumerate(plan.rounds, start=1):
            self._round(number, tests, out)
        return out

    # --- one round -------------------------------------------------------------------------
    def _round(self, number: int, tests: Sequence[Test], out: Verification) -> None:
        ends = sorted({e for t in tests for e in (t.client, t.server)})
        before = self._counters(ends, out)
        start = self.clock()
        servers: list[_Server] = []
        try:
            for slot, test in enumerate(tests):
                log = f"{LOG_DIR}/rocetune-perftest-{self.run_id}-r{number}-t{slot}.log"
                servers.append(_Server(test, log))
                servers[-1].pid = self._start(servers[-1], out)
            ready = self._wait(servers)
            clients = self._clients([s for s in servers if s.pid in ready])
            for server in servers:
                client = clients.get(id(server.test), None)
                self._record(number, server, ready, client, out)
        finally:
            self._stop(servers, out)
        after = self._counters(ends, out)
        window = self.clock() - start
        for end in ends:
            old, new = before.get(end), after.get(end)
            if old is not None and new is not None:
                out.counters.append(counter_delta(old, new, round(window, 3), number))

    def _run(self, host: str, command: str) -> Output:
        return self.sessions[host].run(command)

    def _start(self, server: _Server, out: Verification) -> int | None:
        test, o = server.test, self.options
        limit = o.test_timeout_s + int(o.listen_timeout_s) + o.margin_s
        line = (
            f"nohup timeout {limit} {test.server_command} > {shlex.quote(server.log)} 2>&1"
            " < /dev/null & echo $!"
        )
        try:
            got = self._run(test.server.host, line)
        except Exception as exc:
            out.problems.append(f"{test.server}: server did not start: {_why(exc)}")
            return None
        found = _PID.fullmatch(got.text)
        if got.error is not None or found is None:
            out.problems.append(f"{test.server}: server did not start: {got.error or got.text!r}")
            return None
        return int(found.group(1))

    def _wait(self, servers: Sequence[_Server]) -> set[int]:
        """Pids of the servers that listen; bounded by listen_timeout_s."""
        waiting = {s.pid: s for s in servers if s.pid is not None}
        ready: set[int] = set()
        deadline = self.clock() + self.options.listen_timeout_s
        while waiting:
            for pid, server in list(waiting.items()):
                state = self._listening(server)
                if state is not None:
                    del waiting[pid]
                    if state:
                        ready.add(pid)
            if not waiting or self.clock() >= deadline:
                break
            self.sleep(self.options.poll_s)
        return ready

    def _listening(self, server: _Server) -> bool | None:
        """True listening, False died, None not yet (or cannot tell)."""
        host, port = server.test.server.host, server.test.tcp_port
        try:
            if "-R" in server.test.server_argv:  # rdma_cm: no TCP listener
                text = self._run(host, f"cat {shlex.quote(server.log)}").text
                up = "Waiting for client" in text
            else:
                text = self._run(host, "ss -ltn").text
                up = re.search(rf"[:\]]{port}\s", text) is not None
            if up:
                return True
            return None if self._run(host, f"kill -0 {server.pid}").error is None else False
        except Exception:
            return None

    def _clients(self, servers: Sequence[_Server]) -> dict[int, tuple[str, str | None]]:
        """id(test) -> (client output, failure or None), the clients run in parallel."""
        if not servers:
            return {}
        pool = ThreadPoolExecutor(max_workers=len(servers), thread_name_prefix="perftest")
        try:
            futures = {id(s.test): pool.submit(self._client, s.test) for s in servers}
            return {key: _outcome(f) for key, f in futures.items()}
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _client(self, test: Test) -> tuple[str, str | None]:
        limit = self.options.test_timeout_s
        got = self._run(test.client.host, f"timeout {limit} {test.client_command} 2>&1")
        if got.error is not None and got.error.endswith(f"exit status {TIMED_OUT}"):
            return got.text, f"timed out after {limit} s (stopped by timeout)"
        return got.text, None

    def _record(
        self,
        number: int,
        server: _Server,
        ready: set[int],
        client: tuple[str, str | None] | None,
        out: Verification,
    ) -> None:
        test = server.test
        log = self._server_log(server)
        if client is None:
            why = "server did not start" if server.pid is None else "server never listened"
            client = ("", f"not run: {why}")
        result = _result(test, "client", number, *client)
        out.perftest.append(result)
        out.tests.append((number, test, result))
        if log is not None:
            served = _result(test, "server", number, log, None)
            if served.errors:
                out.perftest.append(served)

    def _server_log(self, server: _Server) -> str | None:
        if server.pid is None:
            return None
        try:
            got = self._run(server.test.server.host, f"cat {shlex.quote(server.log)}")
        except Exception:
            return None
        return got.text if got.error is None else None

    def _stop(self, servers: Sequence[_Server], out: Verification) -> None:
        """Kill every started server and remove its log; never raises."""
        for server in servers:
            host = server.test.server.host
            try:
                if server.pid is not None:
                    self._run(host, f"kill {server.pid}")  # fails when it already exited
                self._run(host, f"rm -f {shlex.quote(server.log)}")
            except Exception as exc:
                out.problems.append(f"{server.test.server}: could not stop server: {_why(exc)}")

    # --- counters --------------------------------------------------------------------------
    def _counters(
        self, ends: Sequence[Endpoint], out: Verification
    ) -> dict[Endpoint, PortCounters]:
        """Counters of every endpoint, one batch per host; missing on SSH failure."""
        found: dict[Endpoint, PortCounters] = {}
        by_host: dict[str, list[Endpoint]] = {}
        for end in ends:
            by_host.setdefault(end.host, []).append(end)
        for host, mine in by_host.items():
            commands = []
            for end in mine:
                nic = self.fabric.devices[end.host].nics[end.nic]
                commands += [STATS.command(end.nic).command]
                commands += [HW_COUNTERS.command(nic.rdma_device or "").command]
            try:
                outputs = self.sessions[host].run_many(commands)
            except Exception as exc:
                out.problems.append(f"{host}: counters not read: {_why(exc)}")
                continue
            for i, end in enumerate(mine):
                stats, hw = outputs[2 * i], outputs[2 * i + 1]
                ethtool = parse_counter_text(stats.text)[0] if stats.error is None else None
                rdma = parse_counter_text(hw.text)[1] if hw.error is None else None
                found[end] = nic_counters(end.host, end.nic, ethtool, rdma)
        return found


def _outcome(future: Future[tuple[str, str | None]]) -> tuple[str, str | None]:
    try:
        return future.result()
    except Exception as exc:
        return "", f"client failed: {_why(exc)}"


def _why(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    detail = getattr(exc, "detail", None) or str(exc) or type(exc).__name__
    return f"{reason.value}: {detail}" if reason is not None else detail


def _result(test: Test, role: str, number: int, text: str, failure: str | None) -> PerftestResult:
    parsed = parse_perftest(text, role="client" if role == "client" else "server")
    argv = test.client_argv if role == "client" else test.server_argv
    update: dict[str, object] = {
        "client": str(test.client),
        "server": str(test.server),
        "line_rate_gbps": test.line_rate_gbps,
        "command": argv,
        "round": number,
        "kind": parsed.kind or test.kind,
        "tool": parsed.tool or argv[0],
    }
    if failure is not None and not parsed.errors:
        update["errors"] = (PerftestError(kind="truncated", text=failure),)
    return parsed.model_copy(update=update)
