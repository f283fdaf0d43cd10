"""The plan runner: command shapes, cleanup on every failure, and the real perftest binary."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from rocetune import api
from rocetune.checks.registry import all_rules
from rocetune.engine import Selection, run_checks, select_rules
from rocetune.model import Fabric, PerftestResult
from rocetune.session import Output
from rocetune.verify.perftest import parse_perftest
from rocetune.verify.plan import Endpoint, Plan, Settings, build_plan
from rocetune.verify.runner import PlanRunner, RunOptions

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"
PAIR = [(Endpoint("gpu01", "eth2"), Endpoint("gpu02", "eth2"))]
BW = "ib_write_bw -d mlx5_0 -x 3 --tclass=106 -m 4096 -F --report_gbits -q 4 -s 65536 -D 1"


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return api.audit(LAB).fabric


def _plan(fabric: Fabric) -> Plan:
    return build_plan(fabric, PAIR, {"gpu02": "127.0.0.1"}, Settings(tests=("bw",), duration_s=1))


class FakeSession:
    """Answers by the first word(s); records every command."""

    def __init__(self, log: list[str], client: Callable[[], Output] | None = None) -> None:
        self.log, self.client = log, client

    def run(self, command: str) -> Output:
        self.log.append(command)
        if command.startswith("nohup "):
            return Output("4242\n")
        if command == "ss -ltn":
            return Output("LISTEN 0 5 0.0.0.0:18515 0.0.0.0:*\n")
        if command.startswith("timeout ") and self.client is not None:
            return self.client()
        if command.startswith("kill "):
            return Output("", None)
        return Output("")

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        return [self.run(c) for c in commands]

    def close(self) -> None:
        pass


def _run(fabric: Fabric, client: Callable[[], Output]) -> tuple[list[str], list[str]]:
    a: list[str] = []
    b: list[str] = []
    runner = PlanRunner(fabric, {"gpu01": FakeSession(a, client), "gpu02": FakeSession(b)})
    runner.run_id = "0123abcd"
    runner.run(_plan(fabric))
    return a, b


def _interrupt() -> Output:
    raise KeyboardInterrupt


def _broken() -> Output:
    raise OSError("the device closed the connection")


def test_exact_commands_and_kill(fabric: Fabric) -> None:
    client, server = _run(fabric, lambda: Output("", "exit status 1"))
    log = "/tmp/rocetune-perftest-0123abcd-r1-t0.log"
    counters = [
        "ethtool -S eth2",
        "grep -H . /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*",
    ]
    assert server == [
        *counters,
        f"nohup timeout 100 {BW} -p 18515 > {log} 2>&1 < /dev/null & echo $!",
        "ss -ltn",
        f"cat {log}",
        "kill 4242",
        f"rm -f {log}",
        *counters,
    ]
    assert client == [*counters, f"timeout 60 {BW} -p 18515 127.0.0.1 2>&1", *counters]


@pytest.mark.parametrize("failure", [_interrupt, _broken])
def test_server_killed_when_the_client_fails(fabric: Fabric, failure: Callable[[], Output]) -> None:
    server: list[str] = []
    runner = PlanRunner(fabric, {"gpu01": FakeSession([], failure), "gpu02": FakeSession(server)})
    if failure is _interrupt:
        with pytest.raises(KeyboardInterrupt):
            runner.run(_plan(fabric))
    else:
        found = runner.run(_plan(fabric))
        assert [e.text for r in found.perftest for e in r.errors] == [
            "client failed: the device closed the connection"
        ]
    assert "kill 4242" in server


def _real_binary() -> str:
    found = shutil.which("ib_write_bw")
    if found is None and not os.environ.get("CI"):
        pytest.skip("perftest (ib_write_bw) is not installed")
    assert found is not None, "CI must install perftest (.ci/run)"
    return found


def _rt904(result: PerftestResult) -> list[tuple[str, object]]:
    fabric = Fabric(perftest=(result,))
    rules = select_rules(all_rules(), Selection(select=("RT904",)))
    return [(f.code, f.observed) for f in run_checks(fabric, rules)]


def test_real_ib_write_bw_without_rdma_device() -> None:
    binary = _real_binary()
    argv = [binary, *BW.split()[1:], "-p", "18599", "127.0.0.1"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode != 0
    result = parse_perftest(done.stdout + done.stderr, role="client")
    assert result.errors[0].kind == "no-device"
    assert _rt904(result.model_copy(update={"client": "local:eth2"})) == [("RT904", "no-device")]


class LocalSession:
    """Runs commands with ``sh -c`` on this machine (no SSH)."""

    def run(self, command: str) -> Output:
        done = subprocess.run(
            ["sh", "-c", command], capture_output=True, text=True, timeout=30, check=False
        )
        error = None if done.returncode == 0 else f"exit status {done.returncode}"
        return Output(done.stdout, error)

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        return [self.run(c) for c in commands]

    def close(self) -> None:
        pass


def test_runner_with_the_real_binary(fabric: Fabric) -> None:
    """The wrappers are real shell: the server dies (no device), is never waited for long,
    its log names the cause (RT904 no-device on the server end), nothing is left running."""
    _real_binary()
    local = LocalSession()
    runner = PlanRunner(
        fabric, {"gpu01": local, "gpu02": local}, RunOptions(test_timeout_s=5, listen_timeout_s=5)
    )
    found = runner.run(_plan(fabric))
    kinds = [(r.role, [e.kind for e in r.errors]) for r in found.perftest]
    assert kinds == [
        ("client", ["truncated"]),
        ("server", ["no-device", "no-device", "device-not-found"]),
    ]
    assert _rt904(found.perftest[1]) == [("RT904", "no-device")]
    assert not list(Path("/tmp").glob(f"rocetune-perftest-{runner.run_id}-*"))
    # no RDMA device here: the hw counters are unknown (-> RT000 from RT802), never zero
    assert [(c.device, c.port, c.round, c.out_of_sequence) for c in found.counters] == [
        ("gpu01", "eth2", 1, None),
        ("gpu02", "eth2", 1, None),
    ]
