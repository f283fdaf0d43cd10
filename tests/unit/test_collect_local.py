"""``rocetune collect --local``: the linux_host commands run on this machine, no SSH."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rocetune.cli import cli
from rocetune.collect import CollectOptions, Timeouts
from rocetune.collect.local import (
    _CHUNK,
    LocalSession,
    _read_capped,
    argv,
    collect_local,
    discover_nics,
)
from rocetune.outputs import OutputError
from tests import fakehost
from tests.paths import ROOT

GPU01 = ROOT / "tests" / "fixtures" / "linux_host" / "gpu01"


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The lab host's tools first on PATH (this test only)."""
    bin_dir = fakehost.install(tmp_path / "bin", GPU01)
    monkeypatch.setenv("PATH", fakehost.path_with(bin_dir))
    return bin_dir


def _options(read: float = 10.0) -> CollectOptions:
    return CollectOptions(timeouts=Timeouts(read=read), durable=False)


def _meta(directory: Path) -> dict[str, dict[str, object]]:
    data = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    return {str(c["command"]): c for c in data["commands"]}


def test_argv_uses_a_shell_only_for_shell_syntax() -> None:
    assert argv("mlnx_qos -i eth2") == ["mlnx_qos", "-i", "eth2"]
    glob = "grep -H . /sys/class/net/eth2/ecn/roce_*p/enable/*"
    assert argv(glob) == ["sh", "-c", glob]


def test_collects_commands_and_followups(tools: Path, tmp_path: Path) -> None:
    out = tmp_path / "snap"
    outcome = collect_local(out, _options(), nics=["eth2", "eth3"], name="gpu01")
    assert outcome.ok, outcome.failure
    host = out / "gpu01"
    assert outcome.path == host
    assert (host / "mlnx_qos_i_eth2.txt").read_text() == (GPU01 / "mlnx_qos_i_eth2.txt").read_text()
    # follow-ups found through ibdev2netdev and ethtool -i
    assert (host / "cma_roce_tos_d_mlx5_0.txt").is_file()
    assert (host / "mlxconfig_d_0000_3d_00_0_q.txt").is_file()
    meta = _meta(host)
    assert meta["mlnx_qos -i eth3"]["status"] == "ok"
    # no lock file is left behind, none in the host directory
    assert not list(out.glob(".*lock*"))
    assert json.loads((host / "meta.json").read_text())["platform"] == "linux_host"


def test_missing_tool_is_recorded_not_fatal(tools: Path, tmp_path: Path) -> None:
    (tools / "mlnx_qos").unlink()
    outcome = collect_local(tmp_path, _options(), nics=["eth2"], name="gpu01")
    assert outcome.ok
    record = _meta(tmp_path / "gpu01")["mlnx_qos -i eth2"]
    assert record["status"] == "error"
    assert "not found" in str(record["error"])
    assert not (tmp_path / "gpu01" / "mlnx_qos_i_eth2.txt").exists()


def test_a_hung_command_times_out_alone(tools: Path, tmp_path: Path) -> None:
    (tools / "ethtool").write_text("#!/bin/sh\nsleep 30\n")
    start = time.monotonic()
    outcome = collect_local(tmp_path, _options(read=0.5), nics=["eth2"], name="gpu01")
    assert time.monotonic() - start < 15
    assert outcome.ok
    meta = _meta(tmp_path / "gpu01")
    assert "timed out" in str(meta["ethtool eth2"]["error"])
    assert meta["mlnx_qos -i eth2"]["status"] == "ok"


def test_a_flooding_command_is_cut_at_the_cap_and_marked(tools: Path, tmp_path: Path) -> None:
    """A local tool that never stops printing is stopped at the output cap: the output is
    kept up to the cap (whole lines), marked truncated in meta.json, the other commands run."""
    (tools / "ethtool").write_text("#!/bin/sh\nwhile :; do echo 'rx_prio3_pause: 1'; done\n")
    cap = 1 << 20
    options = CollectOptions(timeouts=Timeouts(read=300.0, max_output_bytes=cap), durable=False)
    outcome = collect_local(tmp_path, options, nics=["eth2"], name="gpu01")
    assert outcome.ok, outcome.failure
    meta = _meta(tmp_path / "gpu01")
    # stopped by the cap: a command stopped by its timeout is an error, not truncated
    assert meta["ethtool eth2"]["status"] == "truncated"
    assert meta["ethtool eth2"]["cap_bytes"] == cap
    kept = (tmp_path / "gpu01" / "ethtool_eth2.txt").read_bytes()
    assert 0 < len(kept) <= cap
    assert kept.endswith(b"rx_prio3_pause: 1\n"), "cut after its last complete line"
    assert meta["mlnx_qos -i eth2"]["status"] == "ok"


def test_a_flood_is_held_up_to_the_cap_plus_one_chunk() -> None:
    """The flood is never read whole: at most the cap plus one read chunk is held, and the
    session's output is whole lines within the cap."""
    proc = subprocess.Popen(["yes", "rocetune"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = _read_capped(proc, 20.0, 4096)
    assert got.cut
    assert not got.timed_out
    assert 4096 < len(got.out) <= 4096 + _CHUNK
    assert proc.returncode is not None, "the flooding process was stopped"
    out = LocalSession(20.0, max_output_bytes=4096).run("sh -c 'yes rocetune'")
    assert out.truncated_at == 4096
    assert out.error is None
    assert set(out.text.splitlines()) == {"rocetune"}
    assert len(out.text.encode()) <= 4096


def test_nics_discovered_from_ibdev2netdev(tools: Path) -> None:
    assert discover_nics(LocalSession(5.0)) == ["eth2", "eth3", "ens5f0np0"]


def test_nics_from_sysfs_without_ibdev2netdev(
    tools: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tools / "ibdev2netdev").unlink()
    sysfs = tmp_path / "infiniband"
    (sysfs / "mlx5_0" / "device" / "net" / "eth7").mkdir(parents=True)
    monkeypatch.setattr("rocetune.collect.local.SYSFS_NET", sysfs)
    assert discover_nics(LocalSession(5.0)) == ["eth7"]


def test_lock_is_per_host(tools: Path, tmp_path: Path) -> None:
    (tmp_path / ".gpu01.rocetune.lock").write_text(
        json.dumps({"pid": 1, "host": "elsewhere", "user": "x"})
    )
    with pytest.raises(OutputError, match="in use"):
        collect_local(tmp_path, _options(), nics=["eth2"], name="gpu01")
    # another node's lock in the same shared directory does not block this one
    assert collect_local(tmp_path, _options(), nics=["eth2"], name="gpu02").ok


def test_invalid_host_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="invalid host name"):
        collect_local(tmp_path, _options(), nics=[], name="../x")


def test_cli_local_needs_no_inventory(tools: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["collect", "--local", "--nics", "eth2", "--name", "gpu01", "-o", str(tmp_path)]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "gpu01" / "mlnx_qos_i_eth2.txt").is_file()
    bad = runner.invoke(cli, ["collect", "-o", str(tmp_path)])
    assert bad.exit_code == 2
    assert "INVENTORY is required" in bad.output
    both = runner.invoke(cli, ["collect", "--local", "--shard", "0/2", "-o", str(tmp_path)])
    assert both.exit_code == 2
