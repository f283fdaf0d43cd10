"""perftest output parser: every corpus fixture with exact expected values, plus robustness."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from rocetune.verify.perftest import command_role, error_kind, parse_perftest
from tests.fuzz.mutations import FUZZ_SETTINGS, mutated

FIXTURES = Path(__file__).parents[1] / "fixtures" / "perftest"
ROCE_HEADER = {"connection": "RC", "transport": "IB", "qps": 1, "rdma_cm": False}
V4 = "00:00:00:00:00:00:00:00:00:00:255:255:"

EXPECTED: dict[str, dict[str, Any]] = {
    "ib_send_lat_port_down.txt": {
        "tool": "ib_send_lat",
        "kind": "lat",
        "role": "server",
        "errors": (
            {"kind": "port-down", "text": "Port number 1 state is Down", "line": 2},
            {"kind": "other", "text": "Couldn't set the link layer", "line": 3},
            {"kind": "other", "text": "Couldn't get context for the device", "line": 4},
        ),
    },
    "ib_send_lat_roce_cpufreq_warnings_truncated.txt": {
        "kind": "lat",
        "header": {
            **ROCE_HEADER,
            "title": "Send Latency Test",
            "device": "mlx5_bond_0",
            "mtu": 1024,
            "link_type": "Ethernet",
            "gid_index": 3,
            "data_exchange": "Ethernet",
            "rx_depth": 512,
            "max_inline_bytes": 236,
        },
        "latency": (
            {
                "size_bytes": 2,
                "iterations": 1000,
                "t_min_us": 5.43,
                "t_max_us": 7.9,
                "t_typical_us": 5.84,
            },
        ),
        "warnings": (
            "Conflicting CPU frequency values detected: 2428.573000 != 3004.218000."
            " CPU Frequency is not max.",
            "Conflicting CPU frequency values detected: 1648.383000 != 2166.102000."
            " CPU Frequency is not max.",
        ),
    },
    "ib_send_lat_ud_unable_to_create_qp.txt": {
        "tool": "ib_send_lat",
        "kind": "lat",
        "role": "server",
        "errors": tuple(
            {"kind": "qp-create", "text": text, "line": line}
            for text, line in (
                ("Unable to create QP.", 11),
                ("Failed to create QP.", 12),
                ("Couldn't create IB resources", 13),
                ("Unable to create QP.", 16),
                ("Failed to create QP.", 17),
                ("Couldn't create IB resources.", 18),
            )
        ),
    },
    "ib_write_bw_bidir_ngc_header_truncated.txt": {
        "tool": "ib_write_bw",
        "kind": "bw",
        "header": {
            "title": "RDMA_Write Bidirectional BW Test",
            "device": "mlx5_3",
            "qps": 2,
            "connection": "RC",
            "transport": "IB",
            "mtu": 4096,
            "tx_depth": 128,
            "bidirectional": True,
        },
        "warnings": ("WARNING: BW peak won't be measured in this run.",),
    },
    "ib_write_bw_client_couldnt_connect.txt": {
        "tool": "ib_write_bw",
        "kind": "bw",
        "role": "client",
        "errors": (
            {"kind": "connect", "text": "Couldn't connect to 192.168.125.211:18515", "line": 2},
            {
                "kind": "socket",
                "text": "Unable to open file descriptor for socket connection"
                " Unable to init the socket connection",
                "line": 3,
            },
        ),
    },
    "ib_write_bw_ib_device_not_found.txt": {
        "tool": "ib_write_bw",
        "kind": "bw",
        "errors": tuple(
            {"kind": "device-not-found", "text": text, "line": line}
            for text, line in (
                ("[0]: IB device 0 not found", 2),
                ("Unable to find the Infiniband/RoCE device", 3),
                ("IB device 0 not found", 4),
                ("Unable to find the Infiniband/RoCE device", 5),
                ("Unable to find the Infiniband/RoCE device", 7),
            )
        ),
    },
    "ib_write_bw_ib_linktype_report_min_bw_header.txt": {
        "kind": "bw",
        "header": {
            **ROCE_HEADER,
            "title": "RDMA_Write BW Test",
            "device": "ibp5",
            "mtu": 4096,
            "link_type": "IB",
            "gid_index": 0,
            "data_exchange": "Ethernet",
            "tx_depth": 128,
            "max_inline_bytes": 0,
            "local_gids": ("254:128:00:00:00:00:00:00:148:109:174:03:00:50:07:120",),
            "remote_gids": ("254:128:00:00:00:00:00:00:148:109:174:03:00:50:24:232",),
        },
    },
    "ib_write_bw_postlist_8B_gbits.txt": {
        "kind": "bw",
        "header": {
            **ROCE_HEADER,
            "title": "RDMA_Write Post List BW Test",
            "device": "ib0",
            "mtu": 4096,
            "link_type": "Ethernet",
            "gid_index": 2,
            "data_exchange": "Ethernet",
            "tx_depth": 256,
            "max_inline_bytes": 0,
        },
        "bandwidth": (
            {
                "size_bytes": 8,
                "iterations": 224958464,
                "peak_gbps": 0.0,
                "average_gbps": 0.48,
                "msg_rate_mpps": 7.498617,
            },
        ),
        "bw_unit": "Gb/sec",
        "complete": True,
    },
    "ib_write_bw_rdmacm_exchange_failure.txt": {
        "errors": (
            {
                "kind": "exchange",
                "text": "ethernet_read_keys: Couldn't read remote address",
                "line": 2,
            },
            {"kind": "exchange", "text": "Unable to read to socket/rdma_cm", "line": 3},
            {
                "kind": "exchange",
                "text": "Failed to exchange data between server and clients",
                "line": 4,
            },
            {"kind": "qp-modify", "text": "Failed to modify QP to RTS", "line": 6},
            {
                "kind": "qp-modify",
                "text": "Unable to Connect the HCA's through the link",
                "line": 7,
            },
        ),
    },
    "ib_write_bw_server_roce_mbsec_truncated.txt": {
        "kind": "bw",
        "role": "server",
        "header": {
            **ROCE_HEADER,
            "title": "RDMA_Write BW Test",
            "device": "mlx5_0",
            "mtu": 4096,
            "link_type": "Ethernet",
            "gid_index": 3,
            "data_exchange": "Ethernet",
            "max_inline_bytes": 0,
            "local_gids": (V4 + "10:255:255:05",),
            "remote_gids": (V4 + "10:255:255:04",),
        },
        "bandwidth": ({"size_bytes": 65536, "iterations": 664644},),
        "bw_unit": "MB/sec",
    },
    "ib_write_bw_server_roce_mlx4_report_gbits.txt": {
        "tool": "ib_write_bw",
        "kind": "bw",
        "role": "server",
        "header": {
            **ROCE_HEADER,
            "title": "RDMA_Write BW Test",
            "device": "mlx4_0",
            "mtu": 1024,
            "link_type": "Ethernet",
            "gid_index": 2,
            "data_exchange": "Ethernet",
            "max_inline_bytes": 0,
            "local_gids": (V4 + "10:10:10:06",),
            "remote_gids": (V4 + "10:10:10:02",),
        },
        "bandwidth": (
            {
                "size_bytes": 65536,
                "iterations": 415500,
                "peak_gbps": 0.0,
                "average_gbps": 36.31,
                "msg_rate_mpps": 0.069247,
            },
        ),
        "bw_unit": "Gb/sec",
        "complete": True,
    },
}


def test_every_fixture_has_expectations() -> None:
    assert {p.name for p in FIXTURES.glob("*.txt")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture(name: str) -> None:
    result = parse_perftest((FIXTURES / name).read_text())
    assert result.model_dump(exclude_defaults=True) == EXPECTED[name]


SYNTHETIC_CLIENT = """\
---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF          Device         : mlx5_0
 Number of qps   : 4            Transport type : IB
 Mtu             : 4096[B]
 Link type       : Ethernet
 rdma_cm QPs     : ON
 Data ex. method : rdma_cm
 TOS             : 106
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      5000             11000.00           10000.00             0.160000
 131072     5000             11500.00           11000.50             0.088004
---------------------------------------------------------------------------------------
"""


def test_mib_per_second_converted_and_rdma_cm_tos() -> None:
    """Written for rocetune (layout of §6.3); MB/sec = 2^20 B/s -> Gb/s."""
    result = parse_perftest(SYNTHETIC_CLIENT, role="client")
    assert result.role == "client"
    assert result.header.tos == 106
    assert result.header.rdma_cm is True
    assert result.header.data_exchange == "rdma_cm"
    assert result.header.qps == 4
    assert [r.average_gbps for r in result.bandwidth] == [83.88608, 92.278882]
    assert [r.peak_gbps for r in result.bandwidth] == [92.274688, 96.468992]
    assert result.complete is True


def test_duration_mode_latency_table() -> None:
    text = (
        " #bytes        #iterations       t_avg[usec]    tps average\n"
        " 2             1536845           1.95           255897.63\n"
        "---------------------------------------------------------------------------------------\n"
    )
    result = parse_perftest(text)
    assert result.kind == "lat"
    assert [r.model_dump(exclude_defaults=True) for r in result.latency] == [
        {"size_bytes": 2, "iterations": 1536845, "t_avg_us": 1.95}
    ]


def test_no_devices_collection_notes() -> None:
    """The exact stderr of collection-notes.md §5."""
    text = (
        " Did not detect devices \n If device exists, check if driver is up\n"
        " Unable to find the Infiniband/RoCE device\n"
    )
    kinds = [e.kind for e in parse_perftest(text).errors]
    assert kinds == ["no-device", "no-device", "device-not-found"]


@pytest.mark.parametrize(
    ("argv", "role"),
    [
        (["ib_write_bw", "-d", "mlx5_0", "-x", "3", "10.0.0.2"], "client"),
        (["ib_write_bw", "-d", "mlx5_0", "-x", "3", "-F", "--report_gbits"], "server"),
        (["./ib_send_lat", "--size=8", "--iters=10000", "-d", "rocep5s0", "host-b"], "client"),
        (["ls", "-l"], None),
    ],
)
def test_command_role(argv: list[str], role: str | None) -> None:
    assert command_role(argv) == role


def test_error_kind_ignores_results() -> None:
    assert error_kind(" 65536      5000   97.00   96.50   0.18") is None
    assert error_kind("Couldn't connect to 10.0.0.2:18515") == "connect"


@FUZZ_SETTINGS
@given(mutated(sorted(p.read_text() for p in FIXTURES.glob("*.txt"))))
def test_parser_never_raises(text: str) -> None:
    result = parse_perftest(text)
    assert all(r.size_bytes >= 0 for r in result.bandwidth)
