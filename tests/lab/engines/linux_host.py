"""Linux host engine: ConnectX runtime QoS state (lost on reboot) and mlxconfig next-boot values.

Spec: ``{"kind": "linux_host", "snapshot": DIR, "rate": 1, "faults": [...]}``. Every output
of the snapshot directory is the host's state at boot; the commands rocetune applies edit
it the way :mod:`rocetune.platforms.linux_host.simulate` replays them (``mlnx_qos -i X
--trust/--pfc/--dscp2prio/--prio2buffer``, ``echo V > /sys/class/net/X/ecn/...``, ``ip link
set dev X mtu N``, ``mlxconfig -d PCI -y set P=V``) and the collection commands read it back
(``mlnx_qos -i X``, ``cat /sys/...``, ``mlxconfig -d PCI q``). An output that comes back to
its boot content prints the boot text exactly.

Behaviours (sources in ``docs/apply-platforms-linux.md``):

- ``mlnx_qos``/sysfs values are runtime only: a reboot brings back the boot state (NVIDIA NIC
  Configuration Operator README, "Non-persistent (need to be applied after each boot)"),
  then runs the enabled boot units (``rocetune-boot.service`` runs ``/etc/rocetune/boot.d``);
- ``mlxconfig ... set`` changes the next-boot value (what ``mlxconfig q`` shows) and keeps it
  across reboots; it takes effect only after a reboot (NVIDIA MFT ``mlxconfig`` docs):
  :meth:`state` lists ``fw_pending`` until then.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rocetune.platforms.linux_host.simulate import simulate
from rocetune.snapshot import Snapshot, SourceFile, command_filename
from tests.lab.engines.box import BoxEngine, Result, fail, ok

WRITES = re.compile(
    r"^(mlnx_qos -i \S+ --(trust|pfc|dscp2prio|prio2buffer) \S+"
    r"|echo \S+ > /sys/class/net/\S+|ip link set dev \S+ mtu \d+|mlxconfig -d \S+ -y set \S+)$"
)
READS = re.compile(r"^(mlnx_qos -i \S+|cat /sys/\S+|mlxconfig -d \S+ q)$")
MAP_LINE = re.compile(r"^\s*prio:(\d) dscp:([\d,]*)\s*$")


def _canon(text: str) -> tuple[Any, ...]:
    """An output's content with the DSCP map as a set (line grouping is cosmetic)."""
    pairs: set[tuple[int, int]] = set()
    other: list[str] = []
    for line in text.splitlines():
        m = MAP_LINE.match(line)
        if m:
            pairs.update((int(d), int(m[1])) for d in m[2].split(",") if d)
        else:
            other.append(line.rstrip())
    return tuple(other), tuple(sorted(pairs))


class HostEngine(BoxEngine):
    """A Linux host with ConnectX NICs behind the lab's SSH listener."""

    platform = "linux_host"

    def __init__(self, device: str, spec: dict[str, Any]) -> None:
        super().__init__(device, spec)
        snap = Path(spec["snapshot"])
        self.boot = {
            p.name: p.read_text(encoding="utf-8")
            for p in sorted(snap.iterdir())
            if p.is_file() and p.name != "meta.json"
        }
        self.outputs = dict(self.boot)
        self.fw_pending: list[str] = []

    def reboot(self) -> None:
        super().reboot()
        firmware = {k: v for k, v in self.outputs.items() if k.startswith("mlxconfig_")}
        self.outputs = {**self.boot, **firmware}
        self.fw_pending = []
        for unit in sorted(self.box.enabled):
            body = self.box.files.get(f"/etc/systemd/system/{unit}", "")
            m = re.search(r"for f in (\S+)/\*\.sh", body)
            if m:
                for path in sorted(p for p in self.box.files if p.startswith(m[1] + "/")):
                    if path.endswith(".sh"):
                        self.run_argv(["/bin/sh", path])

    def state(self) -> dict[str, Any]:
        return {**super().state(), "fw_pending": self.fw_pending}

    def _file(self, command: str) -> str | None:
        try:
            stem = command_filename(command, "text").removesuffix(".txt")
        except ValueError:
            return None
        return next(
            (stem + e for e in (".txt", ".json", ".yaml") if stem + e in self.outputs), None
        )

    def _stats(self, netdev: str) -> Result:
        """``ethtool -S <if>``: the snapshot's counters plus the counter lab's growth (PFC
        frames, priority discards and pause-storm events move with the state)."""
        text = self.outputs.get(f"ethtool_s_{netdev}.txt")
        if text is None:
            return fail(f"Cannot get stats strings information: No such device {netdev}", 1)
        changed = any(v != self.boot.get(k) for k, v in self.outputs.items())
        c = self.counter_lab.read([netdev], changed)[netdev]
        add = {f"rx_prio{p}_pause": c.pfc_rx[p] for p in range(8)}
        add |= {f"tx_prio{p}_pause": c.pfc_tx[p] for p in range(8)}
        add |= {f"rx_prio{p}_discards": c.drops[p] for p in range(8)}
        add["tx_pause_storm_warning_events"] = sum(c.storms)
        lines = []
        for line in text.splitlines():
            m = re.fullmatch(r"(\s*)(\w+): (\d+)", line)
            grown = f"{m[1]}{m[2]}: {int(m[3]) + add[m[2]]}" if m and m[2] in add else line
            lines.append(grown)
        return ok("\n".join(lines))

    def command(self, argv: list[str]) -> Result | None:
        if argv[:2] == ["ethtool", "-S"] and len(argv) == 3:
            return self._stats(argv[2])
        line = " ".join(argv)
        if argv[:1] == ["echo"] and len(argv) == 4 and argv[2] == ">":
            line = f"echo {argv[1]} > {argv[3]}"
        if WRITES.match(line):
            return self._write(line)
        if READS.match(line):
            name = self._file(line)
            if name is None:
                return fail(f"{argv[0]}: {argv[-1]}: No such file or directory")
            return Result(self.outputs[name])
        return None

    def _write(self, line: str) -> Result:
        files = {k: SourceFile(k, v) for k, v in self.outputs.items()}
        try:
            after = simulate(Snapshot(files=files), [line]).files
        except ValueError as exc:
            return fail(f"{line.split(maxsplit=1)[0]}: {exc}")
        for name, source in after.items():
            if source.text == self.outputs.get(name):
                continue
            boot = self.boot.get(name)
            same = boot is not None and _canon(boot) == _canon(source.text)
            self.outputs[name] = boot if same and boot is not None else source.text
        if line.startswith("mlxconfig "):
            self.fw_pending.append(line)
            return ok("Applying... Done!\n-I- Please reboot machine to load new configurations.")
        return Result()
