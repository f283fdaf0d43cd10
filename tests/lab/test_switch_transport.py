"""The asyncio shell transport for switches (:mod:`rocetune.collect.aio_shell`) against
netmiko (:class:`rocetune.collect.transport.NetmikoTransport`), over real SSH to the lab:

- the same snapshot files, byte for byte, for every switch of the lab fabric, EOS with a
  pager until ``terminal length 0``, NX-OS, SONiC with a banner and with tty echo, and two
  switches whose output floods past the cap (truncated outputs spilled and written);
- the switch fault matrix over both: each fault gives the same reason and the same number
  of attempts, the other switches being collected meanwhile; a dripping peer ends at the
  read timeout and at the device deadline;
- what the asyncio shell does not serve goes to netmiko: Onyx (``enable`` first), a device
  type named in the inventory, a ProxyCommand; ``collect`` picks the transport by option.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from rocetune.collect.aio_shell import AioShellSession, AioShellTransport
from rocetune.collect.credentials import Credentials, CredentialSource
from rocetune.collect.job import Job, run_job
from rocetune.collect.options import CollectOptions
from rocetune.collect.runner import plan
from rocetune.collect.target import Target, Timeouts, Trust
from rocetune.collect.transport import NetmikoSession, NetmikoTransport, Transport
from rocetune.inventory import load_inventory
from rocetune.platforms import get_driver
from tests.lab.conftest import FAULTS
from tests.lab.faults import (
    assert_device_deadline,
    assert_faults,
    assert_same_snapshot,
    collect,
    deadline_options,
    fault_options,
    meta,
)
from tests.lab.lab import HOST, PASSWORD, USER, LabServer, lab_env, live_inventory

KINDS: dict[str, type[NetmikoTransport] | type[AioShellTransport]] = {
    "netmiko": NetmikoTransport,
    "asyncio": AioShellTransport,
}
EXTRA = {
    "x-eos": "eos",
    "x-nxos": "nxos",
    "x-sonic-tty": "sonic",
    "h-flood-switch": "sonic",
    "h-flood-eos": "eos",
}


def _target(lab: LabServer, name: str, platform: str, device_type: str | None = None) -> Target:
    driver = get_driver(platform)
    assert driver is not None
    cred = Credentials(USER, PASSWORD)
    kind = device_type or driver.device_type
    return Target(name, HOST, lab.ports[name], platform, kind, cred)


def _job(lab: LabServer, name: str, platform: str, transport: Transport) -> Job:
    driver = get_driver(platform)
    assert driver is not None
    target = _target(lab, name, platform)
    return Job(target, driver, (), transport, target.credentials.secrets)


def _lab_switches(lab: LabServer) -> dict[str, str]:
    inv = load_inventory(lab.fabric)
    found = {
        d.name: str(d.platform)
        for d in inv.devices.values()
        if d.platform is not None and d.name in lab.ports
    }
    return {n: p for n, p in found.items() if get_driver(p).kind == "switch"}  # type: ignore[union-attr]


def test_same_snapshots_as_netmiko(lab: LabServer, tmp_path: Path) -> None:
    switches = {**_lab_switches(lab), **EXTRA}
    assert {"sonic", "cumulus", "eos", "nxos"} <= set(switches.values()), switches
    known = lab.known_hosts(tmp_path / "known_hosts")
    options = CollectOptions(
        timeouts=Timeouts(read=30, max_output_bytes=2 * 2**20), trust=Trust(known), retries=1
    )
    shell = AioShellTransport(options.timeouts, options.trust)
    assert all(shell.serves(_target(lab, n, p)) for n, p in switches.items())
    outs: dict[str, Path] = {}
    for kind, cls in KINDS.items():
        transport = cls(options.timeouts, options.trust)
        jobs = [_job(lab, name, platform, transport) for name, platform in switches.items()]
        outs[kind] = tmp_path / kind
        outcomes = collect(jobs, outs[kind], options)
        failed = {n: o.failure for n, o in outcomes.items() if not o.ok}
        assert not failed, (kind, failed)
    for name in switches:
        assert_same_snapshot(outs["netmiko"] / name, outs["asyncio"] / name, 2)
    for name in ("h-flood-switch", "h-flood-eos"):
        records = meta(outs["asyncio"] / name / "meta.json")["commands"]
        assert isinstance(records, list)
        assert [r["status"] for r in records].count("truncated") == 1, (name, records)
    eos = (outs["asyncio"] / "x-eos" / "show_running_config.txt").read_text(encoding="utf-8")
    assert "--More--" not in eos, "paging was turned off before the first command"


SWITCH_FAULTS = {
    "f-auth": ("auth failed", 1),
    "f-authdelay": ("auth timeout", 1),
    "f-slow": ("command timeout", 1),
    "f-drop": ("disconnected", 2),
    "f-tarpit": ("banner timeout", 2),
    "f-hkunknown": ("host key unknown", 1),
    "f-hkmismatch": ("host key mismatch", 1),
    "f-refused": ("TCP refused", 2),
    "f-unknown": ("command rejected", 1),
    "h-drip-switch": ("command timeout", 1),
}
"""Switch fault -> (the reason reported, attempts: transient faults are retried once)."""


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_switch_fault_matrix(lab: LabServer, tmp_path: Path, kind: str) -> None:
    assert set(FAULTS) <= set(SWITCH_FAULTS)
    options = fault_options(lab, tmp_path, "f-hkunknown", "f-hkmismatch")
    transport = KINDS[kind](options.timeouts, options.trust)
    before = lab.sessions()
    auth_before = lab.auth_attempts("f-auth")
    jobs = [_job(lab, name, "sonic", transport) for name in [*SWITCH_FAULTS, "x-sonic-tty"]]
    outcomes = collect(jobs, tmp_path / "out", options)
    assert outcomes["x-sonic-tty"].ok, outcomes["x-sonic-tty"].failure
    assert_faults(outcomes, SWITCH_FAULTS, tmp_path / "out")
    rejected = outcomes["f-unknown"].failure
    assert rejected is not None
    assert rejected.command == "show runningconfiguration all", str(rejected)
    assert lab.auth_attempts("f-auth") - auth_before == 1, "an auth failure is not retried"
    drops = lab.sessions()["f-drop"][len(before.get("f-drop", [])) :]
    assert drops == [["show runningconfiguration all"]] * 2, "retried once, then given up"


def test_device_deadline_ends_a_dripping_switch(lab: LabServer, tmp_path: Path) -> None:
    options = deadline_options(lab, tmp_path)
    transport = AioShellTransport(options.timeouts, options.trust)
    outcome = run_job(
        _job(lab, "h-drip-switch", "sonic", transport), tmp_path / "out", options, threading.Event()
    )
    assert_device_deadline(outcome)


def test_sessions_and_what_goes_to_netmiko(lab: LabServer, tmp_path: Path) -> None:
    """A served switch gets an asyncio session (a rejected command is an error, the
    session goes on); a named device type and a ProxyCommand go to netmiko, as does a
    platform entering ``enable`` first (Onyx)."""
    known = lab.known_hosts(tmp_path / "known_hosts")
    transport = AioShellTransport(Timeouts(read=30), Trust(known))
    target = _target(lab, "x-eos", "eos")
    session = transport.open(target)
    try:
        assert isinstance(session, AioShellSession)
        assert session.pattern.search("\nx-eos#")
        config = session.run("show running-config")
        rejected = session.run("show no-such-thing")
        again = session.run("show running-config")
    finally:
        session.close()
    assert config.error is None
    assert "interface" in config.text
    assert rejected.error is not None
    assert again.text == config.text
    named = _target(lab, "x-eos", "eos", device_type="arista_eos_ssh")
    assert not transport.serves(named)
    session = transport.open(named)
    try:
        assert isinstance(session, NetmikoSession)
        assert session.run("show running-config").text == config.text
    finally:
        session.close()
    onyx = Target("sw", HOST, 22, "onyx", "mellanox_mlnxos", target.credentials)
    assert not transport.serves(onyx), "Onyx enters enable mode: netmiko's"
    ssh_config = tmp_path / "ssh_config"
    proxy = Path(__file__).with_name("proxy.py")
    ssh_config.write_text(
        f"Host proxied\n  HostName {HOST}\n  Port {lab.ports['x-eos']}\n"
        f"  ProxyCommand {sys.executable} {proxy} %h %p\n",
        encoding="utf-8",
    )
    proxied = Target(
        "proxied", "proxied", None, "eos", "arista_eos", target.credentials, ssh_config
    )
    session = transport.open(proxied)
    try:
        assert isinstance(session, NetmikoSession)
    finally:
        session.close()


@pytest.mark.parametrize(
    ("option", "kind"), [("asyncio", AioShellTransport), ("netmiko", NetmikoTransport)]
)
def test_collect_picks_the_switch_transport(
    lab: LabServer, tmp_path: Path, option: str, kind: type
) -> None:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml")
    known = lab.known_hosts(tmp_path / "known_hosts")
    options = CollectOptions(trust=Trust(known), switch_transport=option)  # type: ignore[arg-type]
    inv = load_inventory(inventory)
    jobs, _ = plan(inv, list(inv.devices), options, CredentialSource(lab_env()))
    switches = [j for j in jobs if j.driver.kind == "switch"]
    assert switches
    assert all(isinstance(j.transport, kind) for j in switches)
