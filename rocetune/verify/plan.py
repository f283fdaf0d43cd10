"""The verification plan: which NIC pairs run perftest, in which round, with which command.

Pairs (``--pairs``):

- ``cross-leaf`` (default): every two NICs of different hosts whose leaves differ (the leaf
  is the switch at the other end of the NIC's link; a NIC without a known leaf pairs with
  every NIC, since it cannot be shown to share a leaf);
- ``all``: every two NICs of different hosts;
- ``ring``: NICs sorted by host and name, each paired with the next one (the last with the
  first), skipping neighbours on the same host;
- a file: one ``hostA:nicA hostB:nicB`` pair per line (``#`` comments); A is the client.

Rounds: :mod:`rocetune.verify.schedule` (each NIC in at most one test per round, optimal or
one round above) on the pair graph; the bandwidth and the latency tests of a round's pairs run
in two consecutive rounds, so a latency test never shares the wire with a bandwidth test.
Every test of a round gets its own TCP port (18515 + its index).

Commands (roce-knowledge.md §6.1, §6.2): identical options on both sides, the client adds
the server's address. Bandwidth: ``ib_write_bw -d DEV -x GID --tclass=TOS -m MTU -F
--report_gbits -q QPS -s 65536 -D SECONDS -p PORT``; latency: ``ib_send_lat -d DEV -x GID
--tclass=TOS -m MTU -F -s 8 -n 10000 -p PORT`` (iterations, not duration: duration mode
drops t_typical and the percentiles). With ``tos_mode="rdma_cm"``: ``-R -T TOS`` instead of
``-x GID --tclass=TOS`` (rdma_cm picks the GID from the address, which must then be the
server NIC's own IP). ToS = DSCP << 2 | ECT(0) (106 for DSCP 26). QPs: 1 below 200G, 4 at
200G and above (or when the speed is unknown). Every value is validated before it reaches an
argument list; the display form is :func:`shlex.join`.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from rocetune.errors import ConfigError
from rocetune.model import Fabric, Intent, NicPort
from rocetune.verify.schedule import lower_bound, schedule

PairMode = Literal["all", "ring", "cross-leaf"]
TestKind = Literal["bw", "lat"]
TosMode = Literal["tclass", "rdma_cm"]
BASE_PORT = 18515
ECT0 = 0b10
_RDMA_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_HOSTNAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*")
_ENDPOINT = re.compile(r"([A-Za-z0-9_][\w.-]{0,127}):([A-Za-z0-9_][\w.:@-]{0,31})")
TOOLS: dict[TestKind, str] = {"bw": "ib_write_bw", "lat": "ib_send_lat"}


@dataclass(frozen=True, order=True)
class Endpoint:
    """One NIC port of a host: ``host:nic``."""

    host: str
    nic: str

    def __str__(self) -> str:
        return f"{self.host}:{self.nic}"


@dataclass(frozen=True)
class Settings:
    """Test settings (from the intent and the CLI)."""

    tests: tuple[TestKind, ...] = ("bw", "lat")
    tos_mode: TosMode = "tclass"
    bw_size: int = 65536
    lat_size: int = 8
    lat_iterations: int = 10000
    duration_s: int = 10
    qps: int | None = None
    """Force a QP count; None = by line rate."""


@dataclass(frozen=True)
class Test:
    """One perftest run: a server and a client with identical options."""

    kind: TestKind
    client: Endpoint
    server: Endpoint
    tcp_port: int
    server_argv: tuple[str, ...]
    client_argv: tuple[str, ...]
    line_rate_gbps: float | None

    @property
    def server_command(self) -> str:
        """The server command line, shell-quoted."""
        return shlex.join(self.server_argv)

    @property
    def client_command(self) -> str:
        """The client command line, shell-quoted."""
        return shlex.join(self.client_argv)


@dataclass(frozen=True)
class Plan:
    """Rounds of tests, and the NICs left out with the reason."""

    rounds: tuple[tuple[Test, ...], ...]
    skipped: tuple[tuple[str, str], ...] = ()
    lower_bound: int = 0
    """No schedule of these pairs has fewer rounds (see schedule.lower_bound)."""


def tos_byte(intent: Intent) -> int:
    """The ToS for perftest: the first intent RoCE DSCP << 2 | ECT(0) (106 for DSCP 26)."""
    return intent.roce_dscp[0] << 2 | ECT0


def qps_for(speed_mbps: int | None) -> int:
    """QPs per test: 1 below 200G, 4 at 200G and above or when the speed is unknown."""
    return 1 if speed_mbps is not None and speed_mbps < 200_000 else 4


def parse_pairs(text: str) -> list[tuple[Endpoint, Endpoint]]:
    """A pairs file: ``hostA:nicA hostB:nicB`` per line; ConfigError names the bad line."""
    pairs = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        cells = line.split()
        ends = [_ENDPOINT.fullmatch(c) for c in cells]
        if len(cells) != 2 or any(m is None for m in ends) or cells[0] == cells[1]:
            msg = f"pairs file line {number}: expected 'hostA:nicA hostB:nicB', got {raw!r}"
            raise ConfigError(msg)
        a, b = (Endpoint(m.group(1), m.group(2)) for m in ends if m is not None)
        pairs.append((a, b))
    return pairs


def leaf_of(fabric: Fabric, end: Endpoint) -> str | None:
    """The switch at the other end of the NIC's link, or None."""
    for link in fabric.links:
        for mine, other in ((link.a, link.b), (link.b, link.a)):
            if (mine.device, mine.port) == (end.host, end.nic):
                dev = fabric.devices.get(other.device)
                if dev is not None and dev.kind == "switch":
                    return other.device
    return None


def endpoints(fabric: Fabric) -> list[Endpoint]:
    """Every NIC port of every host, sorted."""
    return sorted(
        Endpoint(d.name, n) for d in fabric.devices.values() if d.kind == "host" for n in d.nics
    )


def choose_pairs(fabric: Fabric, mode: PairMode) -> list[tuple[Endpoint, Endpoint]]:
    """Pairs for ``mode`` (see the module docstring), client first, in a stable order."""
    ends = endpoints(fabric)
    if mode == "ring":
        ring = [(ends[i], ends[(i + 1) % len(ends)]) for i in range(len(ends))]
        seen: set[frozenset[Endpoint]] = set()
        out = []
        for a, b in ring:
            if a.host != b.host and frozenset((a, b)) not in seen:
                seen.add(frozenset((a, b)))
                out.append((a, b))
        return out
    leaves = {e: leaf_of(fabric, e) for e in ends}
    out = []
    for i, a in enumerate(ends):
        for b in ends[i + 1 :]:
            if a.host == b.host:
                continue
            same = leaves[a] is not None and leaves[a] == leaves[b]
            if mode == "all" or not same:
                out.append((a, b))
    return out


def _nic(fabric: Fabric, end: Endpoint) -> NicPort | None:
    dev = fabric.devices.get(end.host)
    return None if dev is None else dev.nics.get(end.nic)


def _side_problem(nic: NicPort | None, settings: Settings) -> str | None:
    """Why this NIC cannot run perftest, or None."""
    if nic is None:
        return "not in the model"
    if nic.rdma_device is None or not _RDMA_NAME.fullmatch(nic.rdma_device):
        return "RDMA device unknown or not a valid name"
    if settings.tos_mode == "tclass" and not nic.gid_index_v2_ipv4:
        return "no IPv4-mapped RoCE v2 GID index known"
    return None


def valid_address(text: str) -> str:
    """An IP address or a host name; ConfigError otherwise (never an option or two words)."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    if _HOSTNAME.fullmatch(text) and not text.startswith("-"):
        return text
    msg = f"not an IP address or host name: {text!r}"
    raise ConfigError(msg)


def perftest_argv(
    kind: TestKind, nic: NicPort, *, tcp_port: int, qps: int, intent: Intent, settings: Settings
) -> list[str]:
    """The options of one side (identical on both sides except device and GID index)."""
    assert nic.rdma_device is not None
    argv = [TOOLS[kind], "-d", nic.rdma_device]
    tos = str(tos_byte(intent))
    if settings.tos_mode == "rdma_cm":
        argv += ["-R", "-T", tos]
    else:
        assert nic.gid_index_v2_ipv4
        argv += ["-x", str(nic.gid_index_v2_ipv4[0]), f"--tclass={tos}"]
    argv += ["-m", str(intent.mtu.roce), "-F"]
    if kind == "bw":
        argv += ["--report_gbits", "-q", str(qps), "-s", str(settings.bw_size)]
        argv += ["-D", str(settings.duration_s)]
    else:
        argv += ["-s", str(settings.lat_size), "-n", str(settings.lat_iterations)]
    return [*argv, "-p", str(tcp_port)]


def _check_settings(settings: Settings) -> None:
    ok = (
        1 <= settings.bw_size <= 1 << 23
        and 1 <= settings.lat_size <= 1 << 23
        and 1 <= settings.lat_iterations <= 10_000_000
        and 1 <= settings.duration_s <= 3600
        and (settings.qps is None or 1 <= settings.qps <= 256)
        and settings.tests
        and set(settings.tests) <= {"bw", "lat"}
    )
    if not ok:
        msg = f"verify settings out of range: {settings}"
        raise ConfigError(msg)


def _line_rate(a: NicPort, b: NicPort) -> float | None:
    if a.speed_mbps is None or b.speed_mbps is None:
        return None
    return min(a.speed_mbps, b.speed_mbps) / 1000


def _test(
    kind: TestKind,
    pair: tuple[Endpoint, Endpoint],
    fabric: Fabric,
    *,
    tcp_port: int,
    address: str,
    settings: Settings,
) -> Test:
    client, server = pair
    a, b = _nic(fabric, client), _nic(fabric, server)
    assert a is not None
    assert b is not None
    rate = _line_rate(a, b)
    speed = None if rate is None else int(rate * 1000)
    qps = settings.qps or qps_for(speed)
    intent = fabric.intent
    return Test(
        kind=kind,
        client=client,
        server=server,
        tcp_port=tcp_port,
        server_argv=tuple(
            perftest_argv(kind, b, tcp_port=tcp_port, qps=qps, intent=intent, settings=settings)
        ),
        client_argv=(
            *perftest_argv(kind, a, tcp_port=tcp_port, qps=qps, intent=intent, settings=settings),
            address,
        ),
        line_rate_gbps=rate,
    )


def build_plan(
    fabric: Fabric,
    pairs: PairMode | list[tuple[Endpoint, Endpoint]] = "cross-leaf",
    addresses: Mapping[str, str] | None = None,
    settings: Settings | None = None,
) -> Plan:
    """Pairs, rounds and commands. ``addresses``: ``host:nic`` or ``host`` -> server address.

    With ``tclass`` the address only carries perftest's TCP exchange (the management address
    is fine); with ``rdma_cm`` it must be the server NIC's own IP (``host:nic`` key).
    """
    settings = settings or Settings()
    _check_settings(settings)
    chosen = choose_pairs(fabric, pairs) if isinstance(pairs, str) else list(pairs)
    skipped: dict[str, str] = {}
    usable = []
    for pair in chosen:
        problems = [(e, _side_problem(_nic(fabric, e), settings)) for e in pair]
        bad = [(str(e), p) for e, p in problems if p is not None]
        skipped.update(bad)
        if not bad:
            usable.append(pair)
    usable = list({frozenset(p): p for p in reversed(usable)}.values())[::-1]
    rounds = []
    for indices in schedule(usable):
        for kind in settings.tests:  # bw and lat of the same pairs in separate rounds
            rounds.append(
                tuple(
                    _test(
                        kind,
                        usable[index],
                        fabric,
                        tcp_port=BASE_PORT + slot,
                        address=_address(usable[index][1], addresses or {}, settings),
                        settings=settings,
                    )
                    for slot, index in enumerate(indices)
                )
            )
    bound = lower_bound(usable) * len(settings.tests)
    return Plan(tuple(rounds), tuple(sorted(skipped.items())), bound)


def _address(server: Endpoint, addresses: Mapping[str, str], settings: Settings) -> str:
    found = addresses.get(str(server))
    if found is None and settings.tos_mode == "tclass":
        found = addresses.get(server.host)
    if found is None:
        msg = f"no address for {server} (rdma_cm needs the NIC's own IP)"
        raise ConfigError(msg)
    return valid_address(found)


def dry_run(plan: Plan) -> list[list[tuple[str, str, str]]]:
    """Per round, per test: (host, role, command) for the server then the client."""
    out = []
    for rnd in plan.rounds:
        lines = []
        for test in rnd:
            lines.append((test.server.host, "server", test.server_command))
            lines.append((test.client.host, "client", test.client_command))
        out.append(lines)
    return out
