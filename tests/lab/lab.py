"""Start the SSH device lab as a subprocess and build inventories that point at it."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.lab.server import AUTH

ROOT = Path(__file__).resolve().parents[2]
LAB_INVENTORY = ROOT / "inventories" / "lab" / "inventory.yaml"
FIXTURES = ROOT / "tests" / "fixtures"
USER, PASSWORD = "admin", "lab-password"
HOST = "127.0.0.1"


@dataclass
class LabServer:
    """A running lab process."""

    proc: subprocess.Popen[str]
    ports: dict[str, int]
    host_key: str
    directory: Path
    record: Path
    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    fabric: Path = LAB_INVENTORY
    """The example fabric's inventory the lab serves (a frozen copy in the test session)."""

    def known_hosts(
        self, path: Path, *, skip: tuple[str, ...] = (), wrong: tuple[str, ...] = ()
    ) -> Path:
        """Write a known_hosts file: every device's key, minus ``skip``, wrong for ``wrong``."""
        other = _other_key() if wrong else ""
        lines = [
            f"[{HOST}]:{port} {other if name in wrong else self.host_key}"
            for name, port in self.ports.items()
            if name not in skip
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def _records(self) -> list[tuple[str, str, str]]:
        if not self.record.is_file():
            return []
        lines = self.record.read_text(encoding="utf-8").splitlines()
        return [(d, c, cmd) for d, c, cmd in (line.split("\t", 2) for line in lines)]

    def sessions(self) -> dict[str, list[list[str]]]:
        """Device -> its SSH connections (in order) -> the commands each received."""
        out: dict[str, dict[str, list[str]]] = {}
        for device, conn, command in self._records():
            commands = out.setdefault(device, {}).setdefault(conn, [])
            if command != AUTH:
                commands.append(command)
        return {d: list(s.values()) for d, s in out.items()}

    def auth_attempts(self, device: str) -> int:
        """How many password authentications ``device`` has seen."""
        return sum(1 for d, _, cmd in self._records() if d == device and cmd == AUTH)

    def perftest_events(self) -> list[tuple[str, str, int, int]]:
        """(event, device, pid, port) of every perftest server start, exit and kill."""
        path = self.directory / "perftest.tsv"
        if not path.is_file():
            return []
        rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
        return [(e, d, int(pid), int(port)) for e, d, pid, port in rows]

    def running_servers(self) -> list[tuple[str, int]]:
        """(device, pid) of the perftest servers still listening (neither exited nor killed)."""
        state: dict[tuple[str, int], str] = {}
        for event, device, pid, _ in self.perftest_events():
            if event != "kill-failed":
                state[(device, pid)] = event
        return sorted(k for k, v in state.items() if v == "start")

    def stop(self) -> None:
        """Terminate the server."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _other_key() -> str:
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519")
    return str(key.export_public_key("openssh").decode().strip())


def start_lab(
    devices: dict[str, dict[str, Any]], directory: Path, timeout: float = 30
) -> LabServer:
    """Start one server process for ``devices`` (name -> DeviceSpec JSON)."""
    directory.mkdir(parents=True, exist_ok=True)
    record = directory / "record.tsv"
    config = {
        "host": HOST,
        "host_key": str(directory / "host_key"),
        "record": str(record),
        "perftest_record": str(directory / "perftest.tsv"),
        "devices": devices,
    }
    cfg = directory / "lab.json"
    cfg.write_text(json.dumps(config), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.lab.server", str(cfg)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=(directory / "server.log").open("w", encoding="utf-8"),
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line:
        proc.kill()
        msg = "the lab server did not start"
        raise RuntimeError(msg)
    data = json.loads(line)
    ports = {name: int(d["port"]) for name, d in data["devices"].items()}
    return LabServer(proc, ports, data["host_key"], directory, record, devices)


def freeze_fabric(directory: Path) -> Path:
    """Copy inventories/lab (so concurrent edits cannot change a run); its inventory path."""
    shutil.copytree(LAB_INVENTORY.parent, directory)
    return directory / LAB_INVENTORY.name


def lab_inventory_devices(inventory: Path = LAB_INVENTORY) -> dict[str, dict[str, Any]]:
    """Name -> {platform, snapshot path} of every device of the example fabric."""
    from rocetune.inventory import load_inventory

    inv = load_inventory(inventory)
    return {d.name: {"platform": d.platform, "snapshot": d.snapshot} for d in inv.devices.values()}


def lab_fabric_devices(inventory: Path = LAB_INVENTORY) -> dict[str, dict[str, Any]]:
    """The devices of the example fabric answering from its snapshots.

    A device whose snapshot is one saved file answers the command that file stands for
    (the driver's ``sniff``, as an offline audit reads it).
    """
    from rocetune.platforms import drivers

    devices: dict[str, dict[str, Any]] = {}
    for name, entry in lab_inventory_devices(inventory).items():
        platform, snap = entry["platform"], entry["snapshot"]
        spec: dict[str, Any] = {"platform": platform}
        if snap.is_dir():
            spec["snapshot"] = str(snap)
        else:
            driver = drivers()[platform]
            text = snap.read_text(encoding="utf-8")
            command = driver.sniff(str(snap), text) or driver.commands()[0]
            spec["files"] = {command.command: str(snap)}
        devices[name] = spec
    return devices


def live_inventory(
    lab: LabServer,
    path: Path,
    source: Path | None = None,
    *,
    extra: dict[str, dict[str, Any]] | None = None,
) -> Path:
    """Copy ``source`` to ``path`` without ``snapshot:``, hosts and ports pointing at ``lab``."""
    yaml = YAML(typ="rt")
    data = yaml.load((source or lab.fabric).read_text(encoding="utf-8"))
    for name, entry in data["devices"].items():
        entry.pop("snapshot", None)
        entry["host"] = HOST
        if name in lab.ports:
            entry["port"] = lab.ports[name]
    for name, entry in (extra or {}).items():
        data["devices"][name] = {"host": HOST, "port": lab.ports[name], **entry}
    with path.open("w", encoding="utf-8") as fh:
        yaml.dump(data, fh)
    return path


@dataclass
class Run:
    """A finished CLI run."""

    code: int
    out: str
    err: str


def run_cli(*args: str | Path, env: dict[str, str] | None = None) -> Run:
    """Run the real CLI in a subprocess (no terminal: plain progress lines)."""
    proc = subprocess.run(
        [sys.executable, "-m", "rocetune", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env if env is not None else lab_env(),
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=180,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def lab_env(**extra: str) -> dict[str, str]:
    """Environment for the CLI: lab credentials, no terminal."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROCETUNE_")}
    env.update({"ROCETUNE_USER": USER, "ROCETUNE_PASSWORD": PASSWORD, **extra})
    return env
