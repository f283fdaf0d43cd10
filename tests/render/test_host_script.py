"""The Linux host script: exact commands from the target, `bash -n`, rollback capture first."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rocetune import api
from rocetune.render.run import render_fabric
from rocetune.tune.target import device_target

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


@pytest.fixture(scope="module")
def scripts() -> dict[str, str]:
    fab = api.audit(LAB).fabric
    out = {}
    for dev in render_fabric(fab).devices:
        for f in dev.files:
            if f.path.endswith(".host.sh"):
                out[dev.name] = f.text
    return out


def _commands(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln and not ln.startswith("#")]


def test_every_lab_host_has_a_script(scripts: dict[str, str]) -> None:
    assert sorted(scripts) == ["gpu01", "gpu02", "gpu03", "gpu04"]


def test_script_commands_equal_the_target(scripts: dict[str, str]) -> None:
    fab = api.audit(LAB).fabric
    target = device_target(fab.devices["gpu01"], fab.intent, fab.links)
    nic = target.nics["eth2"]
    cmds = _commands(scripts["gpu01"])
    assert cmds[0] == "set -euo pipefail"
    eth2 = cmds[cmds.index("mlnx_qos -i eth2 --trust dscp") :]
    dscp = [c for c in eth2 if c.startswith("mlnx_qos -i eth2 --dscp2prio ")]
    assert len(dscp) == 64
    assert "mlnx_qos -i eth2 --dscp2prio set,26,3" in dscp
    assert "mlnx_qos -i eth2 --dscp2prio set,48,6" in dscp
    assert "mlnx_qos -i eth2 --dscp2prio set,24,0" in dscp
    rest = [c for c in eth2 if c not in dscp][1:13]
    assert rest == [
        "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0 --prio_tc 0,1,2,3,4,5,6,7",
        "mlnx_qos -i eth2 --tsa ets,ets,ets,ets,ets,ets,strict,ets --tcbw 50,0,0,50,0,0,0,0",
        "mlnx_qos -i eth2 --cable_len 5",
        "echo 1 > /sys/class/net/eth2/ecn/roce_rp/enable/3",
        "echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3",
        "echo 48 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp",
        "echo 6 > /sys/class/net/eth2/ecn/roce_np/cnp_802p_prio",
        'cma_roce_tos -d "$(rdma_dev eth2)" -t 106',
        'cma_roce_mode -d "$(rdma_dev eth2)" -p 1 -m 2',
        "ip link set dev eth2 mtu 9000",
        "ethtool -A eth2 autoneg off rx off tx off",
        "mlnx_qos -i eth3 --trust dscp",
    ]
    assert (nic.roce_tos, nic.mtu, nic.cable_m) == (106, 9000, 5.0)


def test_rollback_capture_comes_before_any_change(scripts: dict[str, str]) -> None:
    text = scripts["gpu01"]
    assert text.startswith("#!/usr/bin/env bash\n")
    assert text.index('} > "$ROLLBACK"') < text.index("mlnx_qos -i eth2 --trust")


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_scripts_are_valid_bash(scripts: dict[str, str], tmp_path: Path) -> None:
    for name, text in scripts.items():
        path = tmp_path / f"{name}.sh"
        path.write_text(text, encoding="utf-8")
        done = subprocess.run(
            ["bash", "-n", str(path)], check=False, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
