"""Every shared-corpus host file: recognised, parsed (or reported unsupported), linted.

The corpus files are copied into tests/fixtures/linux_host/corpus_* (SOURCES.md there), so
these tests run without the shared corpus; a last test checks the copies are complete.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune import api
from rocetune.platforms.linux_host import commands as c
from tests.cli.conftest import run_cli
from tests.platforms.linux_host.host_helpers import CORPUS, DRIVER, FIXTURES, parse_file

FILES = sorted(FIXTURES.glob("corpus_*"))


def _fixture(name: str) -> Path:
    return FIXTURES / f"corpus_{name}"


@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("ethtool_S_prio_counters_and_hw_counters_truncated.txt", c.TRANSCRIPT),
        ("ibv_devinfo_gid_tables_differ_between_nodes.txt", c.DEVINFO.saved()),
        ("mlnx_qos_trust_dscp_pfc3_cma_roce_tos_att.md", c.TRANSCRIPT),
        ("mlxconfig_query_fixture_cx4.txt", c.MLXCONFIG.saved()),
        ("nicop_nicconfigurationtemplate_connectx6dx.yaml", c.OPERATOR_TEMPLATE),
        ("show_gids_cx6_roce_v1_v2.txt", c.TRANSCRIPT),
        ("show_gids_empty_in_pod.txt", c.TRANSCRIPT),
        ("show_gids_qedr_no_version_column.txt", c.SHOW_GIDS.saved()),
    ],
)
def test_sniff(name: str, command: object) -> None:
    path = _fixture(name)
    assert DRIVER.sniff(str(path), path.read_text()) == command


def test_att_bash_trace_mlnx_qos_and_tos() -> None:
    dev = parse_file(_fixture("mlnx_qos_trust_dscp_pfc3_cma_roce_tos_att.md")).device
    assert list(dev.nics) == ["eth4"]
    nic = dev.nics["eth4"]
    assert nic.rdma_device == "mlx5_2"
    assert (nic.trust, nic.pfc_priorities, nic.cable_length_m, nic.dcbx_mode) == (
        "dscp",
        (3,),
        7.0,
        "os",
    )
    assert nic.dscp_to_priority == {d: d >> 3 for d in range(64)}
    assert nic.priority_to_tc == {1: 0, 0: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
    assert {k: s.kind for k, s in (nic.tc_scheduler or {}).items()} == dict.fromkeys(
        range(8), "vendor"
    )
    assert nic.roce_tos == 106
    assert (nic.priority_to_buffer, nic.buffer_sizes_bytes) == (None, None)
    # the trace's `sudo sh -c ' echo 106 > .../mlx5_2/tc/1/traffic_class'` sets it
    assert nic.traffic_class == 106
    assert dev.unparsed == ()
    assert dev.facts["nic.eth4.rdma_device"].startswith("paired:")


def test_att_later_mlnx_qos_output_wins() -> None:
    prov = parse_file(_fixture("mlnx_qos_trust_dscp_pfc3_cma_roce_tos_att.md")).provenance
    ref = prov.lookup("nics.eth4.pfc_priorities")
    assert ref is not None
    assert ref.line == 57  # the second output (line 20 is the first)


def test_show_gids_cx6() -> None:
    dev = parse_file(_fixture("show_gids_cx6_roce_v1_v2.txt")).device
    assert list(dev.nics) == ["ens1f0"]
    assert dev.nics["ens1f0"].rdma_device == "mlx5_0"
    assert dev.nics["ens1f0"].gid_index_v2_ipv4 == (5,)


def test_show_gids_empty_in_pod_means_no_roce_v2_gid() -> None:
    dev = parse_file(_fixture("show_gids_empty_in_pod.txt")).device
    assert list(dev.nics) == ["eth0"]
    nic = dev.nics["eth0"]
    assert (nic.speed_mbps, nic.gid_index_v2_ipv4, nic.rdma_device) == (10_000, (), None)
    assert dev.facts["nic.eth0.driver"] == "veth"


def test_show_gids_without_version_column() -> None:
    dev = parse_file(_fixture("show_gids_qedr_no_version_column.txt")).device
    assert list(dev.nics) == ["qedr0"]
    assert dev.nics["qedr0"].rdma_device == "qedr0"
    assert dev.nics["qedr0"].gid_index_v2_ipv4 is None
    assert dev.unparsed == ()


def test_ibv_devinfo_of_two_hosts_is_reported() -> None:
    dev = parse_file(_fixture("ibv_devinfo_gid_tables_differ_between_nodes.txt")).device
    assert dev.nics == {}
    assert [u.line for u in dev.unparsed] == [8, 9]
    assert all("GID index repeated" in u.reason for u in dev.unparsed)


def test_mlxconfig_extended_query() -> None:
    dev = parse_file(_fixture("mlxconfig_query_fixture_cx4.txt")).device
    assert list(dev.nics) == ["unnamed"]
    firmware = dev.nics["unnamed"].firmware or {}
    assert firmware["KEEP_IB_LINK_UP_P2"] == "1"
    assert firmware["MEMIC_SIZE_LIMIT"] == "1"
    assert firmware["ESWITCH_HAIRPIN_DESCRIPTORS"] == "Array[0..7]"
    assert firmware["ESWITCH_HAIRPIN_DESCRIPTORS[7]"] == "128"
    assert dev.facts["nic.unnamed.mlxconfig_next_boot.MEMIC_SIZE_LIMIT"] == "0"
    assert [u.line for u in dev.unparsed] == [13]


def test_ethtool_stats_transcript() -> None:
    dev = parse_file(_fixture("ethtool_S_prio_counters_and_hw_counters_truncated.txt")).device
    assert list(dev.nics) == ["enp178s0f0"]
    assert dev.nics["enp178s0f0"].rdma_device == "mlx5_0"
    assert dev.unparsed == ()


def test_operator_template_is_unsupported() -> None:
    dev = parse_file(_fixture("nicop_nicconfigurationtemplate_connectx6dx.yaml")).device
    assert dev.nics == {}
    (item,) = dev.unparsed
    assert (item.item, item.line) == ("kind: NicConfigurationTemplate", 19)
    assert "desired-state template, not a host output" in item.reason


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_corpus_file_lints_as_linux_host(path: Path) -> None:
    for platform in ("linux_host", None):
        result = api.lint([path], platform=platform)
        assert not result.errors, [str(e) for e in result.errors]
        assert result.exit_code() in {0, 1}
        (dev,) = result.fabric.devices.values()
        assert dev.platform == "linux_host"


def test_corpus_via_the_real_cli() -> None:
    res = run_cli("lint", *FILES, "--platform", "linux_host", "--format", "json")
    assert res.code in {0, 1}, res.err
    assert "Traceback" not in res.err
    # Host outputs given together without a hostname are read as one host (issue 11 item 6);
    # outputs of the same command (the three show_gids files) cannot be one host's.
    devices = json.loads(res.out)["devices"]
    assert 1 < len(devices) < len(FILES)
    assert all(d["status"] == "ok" for d in devices.values())


def test_fixtures_are_unchanged_copies_of_the_corpus() -> None:
    assert CORPUS.is_dir(), CORPUS
    for path in sorted(p for p in CORPUS.iterdir() if p.is_file()):  # scripts/: own tests
        assert _fixture(path.name).read_bytes() == path.read_bytes(), path.name
