"""Pair selection, round scheduling and the exact perftest command lines."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from rocetune.errors import ConfigError
from rocetune.model import Device, Fabric, Intent, Link, LinkEnd, NicPort
from rocetune.verify.plan import (
    Endpoint,
    Settings,
    build_plan,
    choose_pairs,
    dry_run,
    parse_pairs,
    qps_for,
    tos_byte,
    valid_address,
)
from rocetune.verify.schedule import lower_bound, schedule


def _host(
    name: str, speed: int = 100_000, rdma: str = "mlx5_0", gid: tuple[int, ...] = (3,)
) -> Device:
    nic = NicPort(name="eth2", rdma_device=rdma, speed_mbps=speed, gid_index_v2_ipv4=gid)
    return Device(name=name, kind="host", platform="linux_host", nics={"eth2": nic})


def _fabric(hosts: dict[str, str], **kw: Device) -> Fabric:
    """hosts: host -> leaf."""
    devices = {h: kw.get(h) or _host(h) for h in hosts}
    for leaf in set(hosts.values()):
        devices[leaf] = Device(name=leaf, kind="switch", platform="test")
    links = tuple(
        Link(a=LinkEnd(device=leaf, port=f"swp{i}"), b=LinkEnd(device=h, port="eth2"))
        for i, (h, leaf) in enumerate(sorted(hosts.items()))
    )
    return Fabric(devices=devices, links=links)


FOUR = {"gpu1": "leaf1", "gpu2": "leaf1", "gpu3": "leaf2", "gpu4": "leaf2"}
ADDR = {"gpu1": "10.0.1.1", "gpu2": "10.0.1.2", "gpu3": "10.0.1.3", "gpu4": "10.0.1.4"}


def _e(host: str) -> Endpoint:
    return Endpoint(host, "eth2")


def test_tos_is_dscp_shifted_with_ect0() -> None:
    assert tos_byte(Intent()) == 106
    assert tos_byte(Intent(roce_dscp=(24,))) == 98


@pytest.mark.parametrize(
    ("speed", "qps"), [(25_000, 1), (100_000, 1), (200_000, 4), (400_000, 4), (None, 4)]
)
def test_qps_by_speed(speed: int | None, qps: int) -> None:
    assert qps_for(speed) == qps


def test_cross_leaf_pairs() -> None:
    pairs = choose_pairs(_fabric(FOUR), "cross-leaf")
    assert pairs == [
        (_e("gpu1"), _e("gpu3")),
        (_e("gpu1"), _e("gpu4")),
        (_e("gpu2"), _e("gpu3")),
        (_e("gpu2"), _e("gpu4")),
    ]


def test_all_and_ring_pairs() -> None:
    fabric = _fabric(FOUR)
    assert len(choose_pairs(fabric, "all")) == 6
    assert choose_pairs(fabric, "ring") == [
        (_e("gpu1"), _e("gpu2")),
        (_e("gpu2"), _e("gpu3")),
        (_e("gpu3"), _e("gpu4")),
        (_e("gpu4"), _e("gpu1")),
    ]
    two = _fabric({"gpu1": "leaf1", "gpu2": "leaf2"})
    assert choose_pairs(two, "ring") == [(_e("gpu1"), _e("gpu2"))]


def test_exact_commands_and_rounds() -> None:
    plan = build_plan(_fabric(FOUR), "cross-leaf", ADDR)
    assert plan.lower_bound == 4  # Δ = 2 pair rounds x (bw, lat)
    assert len(plan.rounds) == 4
    first = plan.rounds[0]
    assert [(t.kind, str(t.client), str(t.server), t.tcp_port) for t in first] == [
        ("bw", "gpu1:eth2", "gpu4:eth2", 18515),
        ("bw", "gpu2:eth2", "gpu3:eth2", 18516),
    ]
    assert first[0].server_command == (
        "ib_write_bw -d mlx5_0 -x 3 --tclass=106 -m 4096 -F --report_gbits -q 1 -s 65536"
        " -D 10 -p 18515"
    )
    assert first[0].client_command == first[0].server_command + " 10.0.1.4"
    lat = plan.rounds[1][0]
    assert lat.kind == "lat"
    assert lat.client_command == (
        "ib_send_lat -d mlx5_0 -x 3 --tclass=106 -m 4096 -F -s 8 -n 10000 -p 18515 10.0.1.4"
    )
    assert first[0].line_rate_gbps == 100.0
    for rnd in plan.rounds:
        nics = [e for t in rnd for e in (t.client, t.server)]
        assert len(nics) == len(set(nics))


def test_rdma_cm_mode_and_slower_end() -> None:
    fabric = _fabric(
        {"gpu1": "leaf1", "gpu2": "leaf2"},
        gpu1=_host("gpu1", speed=400_000, rdma="mlx5_4", gid=()),
        gpu2=_host("gpu2", speed=200_000, rdma="rocep3s0", gid=()),
    )
    plan = build_plan(
        fabric,
        "cross-leaf",
        {"gpu2:eth2": "192.168.2.2"},
        Settings(tests=("bw",), tos_mode="rdma_cm"),
    )
    (test,) = plan.rounds[0]
    assert test.server_argv == (
        "ib_write_bw", "-d", "rocep3s0", "-R", "-T", "106", "-m", "4096", "-F",
        "--report_gbits", "-q", "4", "-s", "65536", "-D", "10", "-p", "18515",
    )  # fmt: skip
    assert test.client_argv[:3] == ("ib_write_bw", "-d", "mlx5_4")
    assert test.client_argv[-1] == "192.168.2.2"
    assert test.line_rate_gbps == 200.0
    with pytest.raises(ConfigError, match="rdma_cm needs the NIC's own IP"):
        build_plan(fabric, "cross-leaf", {"gpu2": "10.0.0.2"}, Settings(tos_mode="rdma_cm"))


def test_nics_without_facts_are_skipped() -> None:
    fabric = _fabric(
        {"gpu1": "leaf1", "gpu2": "leaf2", "gpu3": "leaf2"},
        gpu2=_host("gpu2", gid=()),
        gpu3=_host("gpu3", rdma="bad name;rm"),
    )
    plan = build_plan(fabric, "cross-leaf", ADDR)
    assert plan.rounds == ()
    assert plan.skipped == (
        ("gpu2:eth2", "no IPv4-mapped RoCE v2 GID index known"),
        ("gpu3:eth2", "RDMA device unknown or not a valid name"),
    )


@pytest.mark.parametrize(
    "bad", ["10.0.0.1; reboot", "-oProxyCommand=x", "a b", "$(id)", "host\nrm"]
)
def test_addresses_validated(bad: str) -> None:
    with pytest.raises(ConfigError):
        valid_address(bad)
    with pytest.raises(ConfigError):
        build_plan(_fabric(FOUR), "cross-leaf", {**ADDR, "gpu3": bad})


def test_settings_validated() -> None:
    with pytest.raises(ConfigError, match="out of range"):
        build_plan(_fabric(FOUR), "cross-leaf", ADDR, Settings(duration_s=0))


def test_pairs_file_and_dry_run() -> None:
    pairs = parse_pairs("# pairs\ngpu1:eth2 gpu2:eth2\n\ngpu3:eth2 gpu4:eth2  # second\n")
    assert pairs == [(_e("gpu1"), _e("gpu2")), (_e("gpu3"), _e("gpu4"))]
    plan = build_plan(_fabric(FOUR), pairs, ADDR, Settings(tests=("lat",)))
    lat = "ib_send_lat -d mlx5_0 -x 3 --tclass=106 -m 4096 -F -s 8 -n 10000 -p"
    assert dry_run(plan) == [
        [
            ("gpu2", "server", f"{lat} 18515"),
            ("gpu1", "client", f"{lat} 18515 10.0.1.2"),
            ("gpu4", "server", f"{lat} 18516"),
            ("gpu3", "client", f"{lat} 18516 10.0.1.4"),
        ]
    ]


@pytest.mark.parametrize(
    "line", ["gpu1:eth2", "gpu1:eth2 gpu1:eth2", "gpu1:eth2 gpu2:eth2;x", "a b c"]
)
def test_pairs_file_errors(line: str) -> None:
    with pytest.raises(ConfigError, match="line 1"):
        parse_pairs(line)


def _valid(edges: Sequence[tuple[object, object]], rounds: list[list[int]]) -> None:
    assert sorted(i for r in rounds for i in r) == list(range(len(edges)))
    for r in rounds:
        ends = [n for i in r for n in edges[i]]
        assert len(ends) == len(set(ends))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 9])
def test_complete_graph_is_optimal(n: int) -> None:
    edges = list(itertools.combinations(range(n), 2))
    rounds = schedule(edges)
    _valid(edges, rounds)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 3), (4, 4), (3, 7)])
def test_bipartite_uses_max_degree(a: int, b: int) -> None:
    edges = [(f"l{i}", f"r{j}") for i in range(a) for j in range(b)]
    random.Random(a * 10 + b).shuffle(edges)
    rounds = schedule(edges)
    _valid(edges, rounds)
    assert len(rounds) == max(a, b)


def test_general_graphs_within_one_of_optimum() -> None:
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(3, 10)
        edges = [e for e in itertools.combinations(range(n), 2) if rng.random() < 0.5]
        if not edges:
            continue
        rng.shuffle(edges)
        rounds = schedule(edges)
        _valid(edges, rounds)
        assert lower_bound(edges) <= len(rounds) <= lower_bound(edges) + 1


def test_odd_cycle_needs_three() -> None:
    edges = [(0, 1), (1, 2), (2, 0), (2, 3)]
    assert lower_bound(edges) == 3
    assert len(schedule(edges)) == 3
    assert schedule([]) == []
