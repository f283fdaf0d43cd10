"""Host setup scripts read as intended NIC state (issue 19 item 3): nothing is run."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from rocetune import api
from rocetune.model import Device
from rocetune.platforms.linux_host import commands as c
from rocetune.platforms.linux_host.script import apply_scripts
from rocetune.platforms.linux_host.script_sniff import is_script
from rocetune.snapshot import SourceFile
from tests.cli.conftest import run_cli
from tests.paths import CORPUS as CORPUS_ROOT
from tests.platforms.linux_host.host_helpers import DRIVER, FIXTURES

SCRIPTS = CORPUS_ROOT / "host" / "scripts"


def read(text: str, name: str = "setup.sh") -> Device:
    body = textwrap.dedent(text).lstrip("\n")
    return apply_scripts(None, [SourceFile(name, body)], "h", None).device


def rt001(dev: Device) -> list[tuple[int | None, str]]:
    return [(u.line, u.reason) for u in dev.unparsed]


def test_literal_loop_variables_sudo_tee_and_continuations() -> None:
    dev = read(
        """
        #!/bin/bash
        # two rails
        PRIO=3
        for IF in ens1f0 ens1f1; do
          sudo mlnx_qos -i "${IF}" --trust dscp \\
              --pfc 0,0,0,1,0,0,0,0
          echo 1 | sudo tee /sys/class/net/$IF/ecn/roce_np/enable/$PRIO
          echo 1 > /sys/class/net/${IF}/ecn/roce_rp/enable/${PRIO}
          D=/sys/class/net/$IF/ecn/roce_np
          echo 48 > $D/cnp_dscp; echo 6 > "$D"/cnp_802p_prio
          ip link set dev $IF mtu 9000 && ethtool -A $IF rx off tx off
          echo 11 > /sys/class/net/$IF/ecn/roce_rp/rpg_gd
        done
        """
    )
    assert list(dev.nics) == ["ens1f0", "ens1f1"]
    for nic in dev.nics.values():
        assert (nic.trust, nic.pfc_priorities) == ("dscp", (3,))
        assert (nic.dcqcn_np, nic.dcqcn_rp) == ({3: True}, {3: True})
        assert (nic.cnp_dscp, nic.cnp_priority, nic.mtu) == (48, 6, 9000)
        assert (nic.global_pause_rx, nic.global_pause_tx) == (False, False)
        assert nic.dcqcn_params == {"rpg_gd": 11}
        assert nic.dscp_to_priority is None  # --trust alone does not tell the map
    assert dev.unparsed == ()


def test_rdma_values_pair_with_the_only_netdev_and_lines_are_kept() -> None:
    result = apply_scripts(
        None,
        [
            SourceFile(
                "s.sh",
                "mlnx_qos -i eth0 --trust dscp\n"
                "cma_roce_tos -d mlx5_0 -t 106\n"
                "sh -c 'echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class'\n"
                "cma_roce_mode -d mlx5_0 -p 1 -m 2\n",
            )
        ],
        "h",
        None,
    )
    nic = result.device.nics["eth0"]
    assert (nic.rdma_device, nic.roce_tos, nic.traffic_class, nic.roce_mode) == (
        "mlx5_0",
        106,
        106,
        "v2",
    )
    assert result.provenance.lookup("nics.eth0.roce_tos") is not None
    ref = result.provenance.lookup("nics.eth0.traffic_class")
    assert ref is not None
    assert (ref.file, ref.line) == ("s.sh", 3)
    assert "paired" in result.device.facts["nic.eth0.rdma_device"]


def test_functions_heredoc_bash_and_arithmetic() -> None:
    dev = read(
        """
        setup() {
            local dev=$1
            mlnx_qos -i "$dev" --pfc 0,0,0,1,0,0,0,0 --dscp2prio set,26,3 --prio_tc 0,1,2,3,4,5,6,7
            mlnx_qos -i $dev --tsa ets,ets,ets,ets,ets,ets,strict,strict --tcbw 50,0,0,50,0,0,0,0
        }
        setup eth2
        DSCP=26
        sudo bash <<EOF
        echo $((DSCP << 2)) > /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos
        EOF
        """
    )
    nic = dev.nics["eth2"]
    assert nic.pfc_priorities == (3,)
    assert nic.dscp_to_priority is not None
    assert nic.dscp_to_priority[26] == 3
    assert nic.dscp_to_priority[48] == 6  # the driver default for the rest, noted
    assert "default" in dev.facts["nic.eth2.dscp_to_priority"]
    assert nic.priority_to_tc == {p: p for p in range(8)}
    assert nic.tc_scheduler is not None
    assert (nic.tc_scheduler[3].kind, nic.tc_scheduler[3].weight) == ("ets", 50.0)
    assert nic.tc_scheduler[6].kind == "strict"
    assert nic.roce_tos == 104


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        ("IF=$(ibdev2netdev | awk '{print $5}')\nmlnx_qos -i $IF --pfc 0,0,0,1,0,0,0,0\n", "$IF"),
        ("for IF in /sys/class/net/ens*; do\n mlnx_qos -i $IF --trust dscp\ndone\n", "loop"),
        ("for d in $(ls /sys/class/infiniband); do\n cma_roce_tos -d $d -t 106\ndone\n", "loop"),
        ("mlnx_qos -i $NIC --trust dscp\n", "environment"),
        ("while read IF; do\n mlnx_qos -i $IF --trust dscp\ndone < nics\n", "while"),
    ],
)
def test_what_cannot_be_resolved_is_rt001_with_its_line(script: str, reason: str) -> None:
    dev = read("mlnx_qos -i eth0 --trust pcp --pfc 0,0,0,1,0,0,0,0\n" + script)
    assert dev.unparsed, script
    line, why = rt001(dev)[0]
    assert line is not None
    assert line >= 2
    assert reason in why
    # the command may have changed eth0 too: the rules depending on it say RT000
    nic = dev.nics["eth0"]
    assert None in (nic.trust, nic.pfc_priorities, nic.roce_tos) or nic.rdma_device is None


def test_undecided_branch_forgets_the_value_decided_branch_keeps_it() -> None:
    dev = read(
        """
        MODE=dscp
        mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0
        if [ "$MODE" = dscp ]; then T=dscp; else T=pcp; fi
        mlnx_qos -i eth0 --trust $T
        if [ -e /sys/class/net/eth0/ecn ]; then
          mlnx_qos -i eth0 --pfc 0,0,0,0,1,0,0,0
        fi
        """
    )
    nic = dev.nics["eth0"]
    assert nic.trust == "dscp"
    assert nic.pfc_priorities is None  # may be {3} or {4}: RT000, not a guess
    ((line, why),) = rt001(dev)
    assert line == 6
    assert "inside an if at line 5" in why


def test_unknown_nic_commands_are_rt001_other_commands_are_not_nic_state() -> None:
    dev = read(
        """
        apt-get install -y mlnx-tools
        sysctl -w net.ipv4.tcp_ecn=1
        nvidia-smi -pm 1
        systemctl restart openibd
        mlnx_qos -i eth0
        lldptool -T -i eth0 -V PFC enabled=3
        tc qdisc add dev eth0 root mqprio num_tc 8
        echo auto > /sys/class/net/eth0/settings/pfc_stall_prevention
        mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0,0
        """
    )
    assert [line for line, _ in rt001(dev)] == [6, 7, 8, 9]


def test_syntax_error_is_rt001_and_the_lines_before_are_read() -> None:
    dev = read("mlnx_qos -i eth0 --trust dscp\nif [ x ]; then\n echo 'open\n")
    assert dev.nics["eth0"].trust == "dscp"
    ((line, why),) = rt001(dev)
    assert line is not None
    assert "shell syntax" in why


def test_ansible_playbook_and_cloud_init_lines_map_back() -> None:
    playbook = """\
        - hosts: gpu
          tasks:
            - name: trust and pfc
              ansible.builtin.shell: |
                mlnx_qos -i {{ item }} --trust dscp
                mlnx_qos -i {{ item }} --pfc 0,0,0,1,0,0,0,0
              loop: [ens1f0, ens1f1]
            - name: tos
              command: cma_roce_tos -d {{ rdma_dev }} -t 106
        """
    dev = read(playbook, "site.yml")
    assert sorted(dev.nics) == ["ens1f0", "ens1f1"]
    assert all(n.pfc_priorities == (3,) for n in dev.nics.values())
    ((line, why),) = rt001(dev)
    assert line == 9
    assert "rdma_dev" in why
    cloud = """\
        #cloud-config
        runcmd:
          - mlnx_qos -i eth2 --trust dscp
          - [ip, link, set, eth2, mtu, "9000"]
          - echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3
        """
    nic = read(cloud, "user-data").nics["eth2"]
    assert (nic.trust, nic.mtu, nic.dcqcn_np) == ("dscp", 9000, {3: True})
    assert is_script(textwrap.dedent(cloud))
    assert is_script(textwrap.dedent(playbook))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#!/bin/bash\nmlnx_qos -i eth0 --trust dscp\n", True),
        ("mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0\ncma_roce_tos -d mlx5_0 -t 106\n", True),
        ("#!/bin/sh\nmlnx_qos -i eth0\nshow_gids\n", False),  # reads only: no state set
        ("# mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0\nPFC configuration:\n", False),  # session
        ("$ mlnx_qos -i eth2 --trust dscp\nPriority trust state: dscp\n", False),
        ("+ mlnx_qos -i eth4 --trust dscp\n", False),  # bash -x trace
        ("nv set qos roce mode lossless\n", False),
    ],
)
def test_detection(text: str, expected: bool) -> None:
    assert is_script(text) is expected
    assert (DRIVER.sniff("f", text) == c.SCRIPT) is expected


def test_collected_outputs_are_not_read_as_scripts() -> None:
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in (".txt", ".md", ".yaml", ".json"):
            text = path.read_text(errors="replace")
            assert DRIVER.sniff(str(path), text) != c.SCRIPT, path


def test_real_scripts() -> None:
    imperial = api.lint([SCRIPTS / "imperial_rcs_cx3_configure_roce.sh"])
    (dev,) = imperial.fabric.devices.values()
    nic = dev.nics["eth0"]
    assert (nic.trust, nic.pfc_priorities, nic.roce_tos, nic.traffic_class) == (
        "dscp",
        (3,),
        106,
        106,
    )
    assert dev.unparsed == ()
    # everything in these is computed on the host: nothing is asserted, all of it is RT001
    expected = {
        "spiderpool_rdma_qos_generated_service.sh": {195, 199, 202, 205, 216, 217, 220},
        "opencsd_roce_v2_configfs_glob_loop.sh": {20, 33},
        "oci_hpc_rdma_nic_tuning_mlxconfig_loop.sh": {17},
    }
    for name, lines in expected.items():
        result = api.lint([SCRIPTS / name])
        (dev,) = result.fabric.devices.values()
        assert (dev.platform, dev.nics) == ("linux_host", {}), name
        assert {u.line for u in dev.unparsed} == lines, name
        assert not result.errors


def test_lint_and_diff_over_a_collected_host(tmp_path: Path) -> None:
    script = tmp_path / "fix.sh"
    script.write_text(
        "#!/bin/bash\nfor IF in eth2 eth3; do\n  mlnx_qos -i $IF --pfc 0,0,0,1,0,0,0,0\ndone\n"
        "ip link set eth2 mtu 1500\n"
    )
    res = run_cli("lint", str(script), "--format", "json")
    assert res.code in {0, 1}, res.err
    snap = FIXTURES / "gpu01"
    res = run_cli("diff", str(snap), str(script), "--format", "json")
    data = json.loads(res.out)
    changes = {(c["port"], c["field"], c["after"]) for c in data["changes"]}
    assert ("eth2", "MTU", "1500") in changes
    assert all(c["port"] in {"eth2", "eth3"} for c in data["changes"])
    new = {(f["code"], f["port"]) for f in data["findings"]["new"]}
    assert ("RT602", "eth2") in new
    assert res.code == 1
