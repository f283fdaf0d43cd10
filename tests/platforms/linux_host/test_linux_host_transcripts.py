"""Host transcripts as users paste them (issue #11 item 6): the NIC from the ``mlnx_qos -i X``
invocation in show and set forms, with or without a prompt; ``cma_roce_tos -d X -t N`` and
``echo N > .../traffic_class`` as sets; invalid ``mlnx_qos`` values as findings; the host name
from the shell prompt. The base text is the real bash -x trace of att/netarbiter."""

from __future__ import annotations

from pathlib import Path

from rocetune.model import Device
from tests.platforms.linux_host.host_helpers import FIXTURES, parse_file

ATT = FIXTURES / "corpus_mlnx_qos_trust_dscp_pfc3_cma_roce_tos_att.md"


def _variant(tmp_path: Path, name: str, prefix: str) -> Device:
    """The trace with every ``+ `` command marker replaced by ``prefix``."""
    lines = []
    for line in ATT.read_text().splitlines():
        lines.append(prefix + line[2:] if line.startswith("+ ") else line)
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return parse_file(path).device


def _nic_facts(dev: Device) -> tuple[object, ...]:
    nic = dev.nics["eth4"]
    return (nic.rdma_device, nic.trust, nic.pfc_priorities, nic.roce_tos, nic.traffic_class)


def test_trace_reads_set_commands() -> None:
    dev = parse_file(ATT).device
    assert _nic_facts(dev) == ("mlx5_2", "dscp", (3,), 106, 106)
    assert dev.unparsed == ()


def test_commands_pasted_without_prompt(tmp_path: Path) -> None:
    dev = _variant(tmp_path, "bare.txt", "")
    assert _nic_facts(dev) == ("mlx5_2", "dscp", (3,), 106, 106)
    assert dev.unparsed == ()


def test_commands_with_a_root_prompt_name_the_host(tmp_path: Path) -> None:
    dev = _variant(tmp_path, "prompt.txt", "[root@gpu07 ~]# ")
    assert _nic_facts(dev) == ("mlx5_2", "dscp", (3,), 106, 106)
    assert dev.hostname == "gpu07"


def test_set_commands_without_output(tmp_path: Path) -> None:
    path = tmp_path / "sets.txt"
    path.write_text(
        "$ sudo mlnx_qos -i ens1f0 --trust=dscp --pfc=0,0,0,1,0,0,0,0\n"
        "$ sudo cma_roce_tos -d mlx5_0 -t 106\n"
        "$ cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n"
    )
    dev = parse_file(path).device
    nic = dev.nics["ens1f0"]
    assert (nic.trust, nic.pfc_priorities) == ("dscp", (3,))
    assert dev.unparsed == ()  # an empty traffic_class file: no global class set


def test_nine_priorities_are_invalid(tmp_path: Path) -> None:
    path = tmp_path / "nine.txt"
    path.write_text("$ mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0,0\n$ cma_roce_tos -d mlx5_1 -t 300\n")
    dev = parse_file(path).device
    pfc, tos = dev.unparsed
    assert (pfc.line, pfc.ports, pfc.features) == (1, ("eth2",), ("pfc",))
    assert "got 9" in pfc.reason
    assert (tos.line, tos.features) == (2, ("dscp_map",))
    assert dev.nics["eth2"].pfc_priorities is None


def test_nine_column_pfc_table_leaves_pfc_unknown(tmp_path: Path) -> None:
    # no --pfc set in this variant: the PFC state comes from the tables alone
    text = ATT.read_text().replace("--pfc 0,0,0,1,0,0,0,0", "--trust dscp")
    text = text.replace(
        "priority    0   1   2   3   4   5   6   7", "priority    0   1   2   3   4   5   6   7   8"
    ).replace(
        "enabled     0   0   0   1   0   0   0   0", "enabled     0   0   0   1   0   0   0   0   0"
    )
    path = tmp_path / "nine_cols.md"
    path.write_text(text)
    dev = parse_file(path).device
    assert dev.unparsed
    assert all("pfc" in u.features and u.ports == ("eth4",) for u in dev.unparsed)
    assert dev.nics["eth4"].pfc_priorities is None


REALWORLD = Path(__file__).resolve().parents[2] / "realworld" / "configs" / "linux_host"
"""Real files with their rows in tests/realworld/SOURCES.md."""


def test_unindented_provisioning_script_is_a_host_with_its_sets() -> None:
    dev = parse_file(REALWORLD / "imperial_rcs_cx3_configure_roce.sh").device
    nic = dev.nics["eth0"]
    assert (nic.rdma_device, nic.trust, nic.pfc_priorities) == ("mlx5_0", "dscp", (3,))
    assert (nic.roce_tos, nic.traffic_class) == (106, 106)
    assert dev.unparsed == ()  # comments and shebang are not tool output


def test_root_prompt_names_the_nic() -> None:
    dev = parse_file(REALWORLD / "mlnx_qos_show_eth2_pfc_0267_community_doc.txt").device
    assert list(dev.nics) == ["eth2"]
    assert dev.unparsed == ()
