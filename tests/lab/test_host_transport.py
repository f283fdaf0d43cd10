"""The asyncio exec transport for hosts (:mod:`rocetune.collect.aio_exec`) against the
paramiko one (:mod:`rocetune.collect.exec_channel`), over real SSH to the lab:

- the same snapshot files, byte for byte, for every host of the lab fabric plus a host
  whose output floods past the cap (truncated outputs spilled and written);
- a host fault matrix run over both: each fault gives the same reason and the same number
  of attempts (transient ones retried once), the other hosts being collected meanwhile;
- ``collect`` chooses the asyncio transport for hosts, the paramiko one behind a
  ProxyCommand.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from rocetune.collect.aio_exec import AioExecSession, AioExecTransport
from rocetune.collect.credentials import Credentials
from rocetune.collect.exec_channel import ExecSession, ExecTransport
from rocetune.collect.job import Job, run_job
from rocetune.collect.options import CollectOptions
from rocetune.collect.target import Target, Timeouts, Trust
from rocetune.collect.transport import Transport
from rocetune.inventory import load_inventory
from rocetune.platforms import get_driver
from tests.lab.conftest import HOST_FAULTS
from tests.lab.faults import (
    assert_device_deadline,
    assert_faults,
    assert_same_snapshot,
    collect,
    deadline_options,
    fault_options,
    meta,
)
from tests.lab.lab import HOST, PASSWORD, USER, LabServer

KINDS: dict[str, type[ExecTransport] | type[AioExecTransport]] = {
    "paramiko": ExecTransport,
    "asyncio": AioExecTransport,
}
NICS = ("eth2", "eth3")


def _job(lab: LabServer, name: str, transport: Transport, nics: tuple[str, ...] = NICS) -> Job:
    driver = get_driver("linux_host")
    assert driver is not None
    cred = Credentials(USER, PASSWORD)
    target = Target(name, HOST, lab.ports[name], "linux_host", driver.device_type, cred)
    return Job(target, driver, nics, transport, cred.secrets)


def _lab_hosts(lab: LabServer) -> dict[str, tuple[str, ...]]:
    inv = load_inventory(lab.fabric)
    return {
        d.name: tuple(d.nics or ())
        for d in inv.devices.values()
        if d.platform == "linux_host" and d.name in lab.ports
    }


def test_same_snapshots_as_the_paramiko_transport(lab: LabServer, tmp_path: Path) -> None:
    hosts = {**_lab_hosts(lab), "x-host-exec": NICS, "h-flood-host": NICS}
    assert len(hosts) >= 4, hosts
    known = lab.known_hosts(tmp_path / "known_hosts")
    cap = 2 * 2**20
    options = CollectOptions(
        timeouts=Timeouts(read=30, max_output_bytes=cap), trust=Trust(known), retries=1
    )  # a transient failure is retried, as collect does (the lab is shared with other tests)
    outs: dict[str, Path] = {}
    for kind, cls in KINDS.items():
        transport = cls(options.timeouts, options.trust)
        jobs = [_job(lab, name, transport, nics) for name, nics in hosts.items()]
        outs[kind] = tmp_path / kind
        outcomes = collect(jobs, outs[kind], options)
        failed = {n: o.failure for n, o in outcomes.items() if not o.ok}
        assert not failed, (kind, failed)
    for name in hosts:
        assert_same_snapshot(outs["paramiko"] / name, outs["asyncio"] / name, 21)
    flood = meta(outs["asyncio"] / "h-flood-host" / "meta.json")["commands"]
    assert isinstance(flood, list)
    assert [r["status"] for r in flood].count("truncated") == 1, flood


FAULTS = {
    "fh-auth": ("auth failed", 1),
    "fh-authdelay": ("auth timeout", 1),
    "fh-slow": ("command timeout", 1),
    "fh-drop": ("disconnected", 2),
    "fh-tarpit": ("banner timeout", 2),
    "fh-hkunknown": ("host key unknown", 1),
    "fh-hkmismatch": ("host key mismatch", 1),
    "fh-refused": ("TCP refused", 2),
    "h-nosh-host": ("command rejected", 1),
    "h-drip-host": ("command timeout", 1),
}
"""Host fault -> (the reason reported, attempts: transient faults are retried once)."""


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_host_fault_matrix(lab: LabServer, tmp_path: Path, kind: str) -> None:
    assert set(HOST_FAULTS) <= set(FAULTS)
    options = fault_options(lab, tmp_path, "fh-hkunknown", "fh-hkmismatch")
    transport = KINDS[kind](options.timeouts, options.trust)
    before = lab.sessions()
    auth_before = lab.auth_attempts("fh-auth")
    jobs = [_job(lab, name, transport) for name in [*FAULTS, "x-host-exec"]]
    outcomes = collect(jobs, tmp_path / "out", options)
    assert outcomes["x-host-exec"].ok, outcomes["x-host-exec"].failure
    assert_faults(outcomes, FAULTS, tmp_path / "out")
    assert "no POSIX sh" in outcomes["h-nosh-host"].failure.detail  # type: ignore[union-attr]
    assert "deadline" in outcomes["h-drip-host"].failure.detail  # type: ignore[union-attr]
    assert lab.auth_attempts("fh-auth") - auth_before == 1, "an auth failure is not retried"
    drops = lab.sessions()["fh-drop"][len(before.get("fh-drop", [])) :]
    assert len(drops) == 2, "retried once, then given up"
    assert all(any("mlnx_qos -i eth2" in c for c in conn) for conn in drops)


def test_device_deadline_over_the_asyncio_transport(lab: LabServer, tmp_path: Path) -> None:
    """The device deadline ends a dripping host's lanes even when each lane has time."""
    options = deadline_options(lab, tmp_path)
    job = _job(lab, "h-drip-host", AioExecTransport(options.timeouts, options.trust))
    outcome = run_job(job, tmp_path / "out", options, threading.Event())
    assert_device_deadline(outcome)


def test_sessions_and_choice_of_transport(lab: LabServer, tmp_path: Path) -> None:
    """A host opens an asyncio session (run, run_many, several lanes); behind a
    ProxyCommand the paramiko session serves it."""
    known = lab.known_hosts(tmp_path / "known_hosts")
    transport = AioExecTransport(Timeouts(read=30), Trust(known))
    target = _job(lab, "x-host-exec", transport).target
    session = transport.open(target)
    try:
        assert isinstance(session, AioExecSession)
        one = session.run("ethtool -i eth2")
        many = session.run_many(["ethtool -i eth2", "no-such-tool --x", "ethtool -i eth3"] * 4)
    finally:
        session.close()
    assert one.error is None
    assert one.text
    assert many[0].text == one.text
    assert many[1].error is not None
    assert [m.text for m in many[:3]] * 4 == [m.text for m in many]
    config = tmp_path / "ssh_config"
    proxy = Path(__file__).with_name("proxy.py")
    config.write_text(
        f"Host proxied\n  HostName {HOST}\n  Port {lab.ports['x-host-exec']}\n"
        f"  ProxyCommand {sys.executable} {proxy} %h %p\n",
        encoding="utf-8",
    )
    proxied = Target("proxied", "proxied", None, "linux_host", "linux", target.credentials, config)
    session = transport.open(proxied)
    try:
        assert isinstance(session, ExecSession)
        assert session.run("ethtool -i eth2").text == one.text
    finally:
        session.close()
