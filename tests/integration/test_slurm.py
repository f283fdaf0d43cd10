"""Slurm, for real: contrib/slurm/rocetune-collect.sbatch on a one-node Slurm cluster.

Needs Debian's slurm-wlm and munge running (``.ci/slurm-up.sh``, which ``.ci/run`` calls
before pytest and undoes with ``.ci/slurm-down.sh`` after). The node's host tools are fake
lab tools (tests/fakehost.py: ``ibdev2netdev``, ``mlnx_qos``, ``ethtool`` ... print the
gpu01 fixture) first on ``PATH`` for this job only; the sysfs reads use the real ``cat`` and
``grep`` and fail here (no ConnectX), which meta.json records. Skipped when Slurm is not
installed and CI is not set; under CI a missing or stopped Slurm fails the test.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import fakehost
from tests.paths import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.slurm]

SCRIPT = ROOT / "contrib" / "slurm" / "rocetune-collect.sbatch"
GPU01 = ROOT / "tests" / "fixtures" / "linux_host" / "gpu01"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _need_slurm() -> None:
    """Skip (locally) or fail (CI) unless a Slurm node is idle."""
    why = None
    if shutil.which("sinfo") is None or shutil.which("sbatch") is None:
        why = "Slurm is not installed (no sinfo/sbatch on PATH); .ci/slurm-up.sh installs it"
    else:
        state = subprocess.run(
            ["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, timeout=30, check=False
        )
        if not {"idle", "mix"} & set(state.stdout.split()):
            seen = state.stdout.strip() or state.stderr.strip()
            why = f"no idle Slurm node (sinfo: {seen!r}); run .ci/slurm-up.sh"
    if why is None:
        return
    if IN_CI:
        pytest.fail(f"CI: {why}")
    pytest.skip(why)


def _inventory(path: Path, host: str) -> Path:
    """The lab intent, this node as the expected host (its switches are not in this test)."""
    path.write_text(
        "intent:\n"
        "  lossless_priorities: [3]\n"
        "  roce_dscp: [26]\n"
        "  cnp: {dscp: 48, priority: 6}\n"
        "  mtu: {host: 9000, switch: 9214, roce: 4096}\n"
        "groups:\n"
        "  gpus: {role: host, platform: linux_host}\n"
        "devices:\n"
        f"  {host}: {{groups: [gpus]}}\n",
        encoding="utf-8",
    )
    return path


def test_sbatch_collects_every_node_and_audits(tmp_path: Path) -> None:
    _need_slurm()
    host = socket.gethostname().split(".")[0]
    bin_dir = fakehost.install(tmp_path / "bin", GPU01)
    wrapper = bin_dir / "rocetune"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m rocetune "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    shared = tmp_path / "shared"
    env = {
        **os.environ,
        "PATH": fakehost.path_with(bin_dir),
        "PYTHONPATH": str(ROOT),
        "SHARED": str(shared),
        "RUN": "ci",
        "ROCETUNE": str(wrapper),
        "ROCETUNE_FORMAT": "json",
        "ROCETUNE_TIMEOUT": "20",
    }
    inventory = _inventory(tmp_path / "inventory.yaml", host)
    job_out = tmp_path / "job.out"
    start = time.monotonic()
    done = subprocess.run(
        [
            "sbatch",
            "--wait",
            "--nodes=1",
            "--time=5",
            f"--chdir={tmp_path}",
            f"--output={job_out}",
            str(SCRIPT),
            str(inventory),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    seconds = time.monotonic() - start
    log = job_out.read_text(encoding="utf-8", errors="replace") if job_out.exists() else ""
    assert done.returncode == 0, f"sbatch exit {done.returncode}: {done.stderr}\n{log}"
    print(f"slurm job wall time: {seconds:.1f} s")

    snap = shared / "snapshots" / "ci" / host
    meta = json.loads((snap / "meta.json").read_text(encoding="utf-8"))
    assert meta["platform"] == "linux_host"
    assert meta["device"] == host
    status = {c["command"]: c["status"] for c in meta["commands"]}
    assert status["mlnx_qos -i eth2"] == "ok"
    assert status["cma_roce_tos -d mlx5_1"] == "ok"  # a follow-up of ibdev2netdev
    assert status["cat /sys/class/net/eth2/mtu"] == "error"  # real sysfs: no ConnectX here
    fixture = (GPU01 / "mlnx_qos_i_eth2.txt").read_text(encoding="utf-8")
    assert (snap / "mlnx_qos_i_eth2.txt").read_text(encoding="utf-8") == fixture

    report = json.loads((shared / "snapshots" / "ci.audit.json").read_text(encoding="utf-8"))
    assert report["devices"] == {host: {"platform": "linux_host", "status": "ok", "error": None}}
    assert report["summary"]["error"] == 0
    assert not list((shared / "snapshots" / "ci").glob(".*"))  # no lock or temp left
