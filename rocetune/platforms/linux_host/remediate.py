"""Linux host (ConnectX) remediation: one command per fixed setting, with the captured old value.

Commands are the ones the rendered ``host.sh`` uses (``mlnx_qos``, the ``ecn/roce_np`` sysfs
files, ``ip link``, ``mlxconfig``). Each change's rollback is the same command with the value
the snapshot captured (the host keeps no history of its own: these are the "before" values).
``mlnx_qos`` and sysfs settings are runtime only; an ``mlxconfig`` value takes effect after a
firmware reset or reboot (NVIDIA MFT ``mlxconfig`` docs), so it is marked disruptive.

Under ``--trust pcp`` ``mlnx_qos`` prints no DSCP map, so a trust fix also sets the intent's
RoCE and CNP DSCPs (their old values cannot be captured; going back to ``pcp`` makes the DSCP
map unused again). :func:`simulate` edits the collected outputs the way the commands change
them, to check a plan and its rollback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import cast

from rocetune.model import Device, NicPort
from rocetune.platforms.changes import Change, Fix, PlatformPlan
from rocetune.snapshot import Snapshot, command_filename

SAFE_APPLY = (
    "capture the current values first (the rollback commands below hold them), apply on a "
    "drained host, verify, and arm a restore timer (e.g. systemd-run --on-active=10m with the "
    "rollback) that is cancelled on success; mlnx_qos/sysfs values do not survive a reboot"
)
_NIC = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def _vector(prios: set[int]) -> str:
    return ",".join("1" if p in prios else "0" for p in range(8))


@dataclass
class _Trust:
    """A trust switch of one NIC plus the DSCP map lines that must follow it."""

    lines: list[str]
    back: str
    port: str
    fixes: set[str] = field(default_factory=set)
    codes: set[str] = field(default_factory=set)
    because: str | None = None

    def note(self, fix: Fix) -> None:
        if fix.fingerprint:
            self.fixes.add(fix.fingerprint)
        self.codes.add(fix.code)
        self.because = self.because or fix.because

    def change(self) -> Change:
        text = "\n".join(self.lines)
        fixes, codes = tuple(sorted(self.fixes)), tuple(sorted(self.codes))
        return Change(text, "trust", self.port, self.back, fixes, codes, self.because)


class _Host:
    def __init__(self, device: Device, snapshot: Snapshot) -> None:
        self.device = device
        self.snapshot = snapshot
        self.changes: dict[str, Change] = {}
        self.trust: dict[str, _Trust] = {}
        self.notes: list[str] = []

    def add(self, fix: Fix, text: str, back: str, kind: str) -> None:
        got = self.changes.get(text)
        fixes = set(got.fixes if got else ()) | ({fix.fingerprint} if fix.fingerprint else set())
        codes = set(got.codes if got else ()) | {fix.code}
        self.changes[text] = Change(
            text, kind, fix.port, back, tuple(sorted(fixes)), tuple(sorted(codes)), fix.because
        )

    def fix(self, fix: Fix, nic: NicPort) -> None:
        name = nic.name
        if fix.setting == "trust" and nic.trust is not None:
            got = self.trust.setdefault(
                name,
                _Trust(
                    [f"mlnx_qos -i {name} --trust {fix.value}"],
                    f"mlnx_qos -i {name} --trust {nic.trust}",
                    name,
                ),
            )
            got.note(fix)
        elif fix.setting == "dscp":
            self._dscp(fix, nic)
        elif fix.setting in ("pfc_add", "pfc_remove") and nic.pfc_priorities is not None:
            current = set(nic.pfc_priorities)
            for c in self.changes.values():  # an earlier PFC change of this NIC
                m = re.match(rf"mlnx_qos -i {re.escape(name)} --pfc ([01,]+)$", c.text)
                if m:
                    current = {i for i, v in enumerate(m[1].split(",")) if v == "1"}
            prios = set(fix.value) if isinstance(fix.value, frozenset) else set()
            new = current | prios if fix.setting == "pfc_add" else current - prios
            old = f"mlnx_qos -i {name} --pfc {_vector(set(nic.pfc_priorities))}"
            self._replace_pfc(fix, name, f"mlnx_qos -i {name} --pfc {_vector(new)}", old)
        elif fix.setting == "cnp_dscp" and nic.cnp_dscp is not None:
            path = f"/sys/class/net/{name}/ecn/roce_np/cnp_dscp"
            self.add(fix, f"echo {fix.value} > {path}", f"echo {nic.cnp_dscp} > {path}", "ecn")
        elif fix.setting == "mtu" and nic.mtu is not None:
            self.add(
                fix,
                f"ip link set dev {name} mtu {fix.value}",
                f"ip link set dev {name} mtu {nic.mtu}",
                "mtu",
            )
        elif fix.setting == "prio_buffer" and nic.priority_to_buffer is not None:
            old = ",".join(str(nic.priority_to_buffer.get(p, 0)) for p in range(8))
            vector = ",".join(str(b) for b in cast("tuple[int, ...]", fix.value))
            if vector != old:
                self.add(
                    fix,
                    f"mlnx_qos -i {name} --prio2buffer {vector}",
                    f"mlnx_qos -i {name} --prio2buffer {old}",
                    "buffers",
                )
        elif fix.setting == "cnp_dscp_firmware":
            self._firmware(fix, nic)
        else:
            self.notes.append(f"{fix.code}: no automatic host remedy for {fix.setting} on {name}")

    def _replace_pfc(self, fix: Fix, name: str, text: str, old: str) -> None:
        prior = [k for k in self.changes if k.startswith(f"mlnx_qos -i {name} --pfc ")]
        merged_fixes: set[str] = set()
        merged_codes: set[str] = set()
        for k in prior:
            merged_fixes.update(self.changes[k].fixes)
            merged_codes.update(self.changes[k].codes)
            del self.changes[k]
        if fix.fingerprint:
            merged_fixes.add(fix.fingerprint)
        merged_codes.add(fix.code)
        if text == old:
            return
        self.changes[text] = Change(
            text, "pfc", fix.port, old, tuple(sorted(merged_fixes)), tuple(sorted(merged_codes))
        )

    def _dscp(self, fix: Fix, nic: NicPort) -> None:
        pairs: tuple[tuple[int, int], ...] = fix.value  # type: ignore[assignment]
        current = nic.dscp_to_priority
        todo = [(d, p) for d, p in pairs if current is None or current.get(d) != p]
        if not todo:
            return
        text = "\n".join(f"mlnx_qos -i {nic.name} --dscp2prio set,{d},{p}" for d, p in todo)
        trust = self.trust.get(nic.name)
        if trust is not None:
            # the map only applies once the trust is DSCP: one change, trust first
            trust.lines.extend(x for x in text.splitlines() if x not in trust.lines)
            trust.note(fix)
            return
        if current is None:
            back = (
                f"# {nic.name}: the previous DSCP map was not readable (trust "
                f"{nic.trust or 'unknown'}); restoring trust leaves it unused"
            )
        else:
            back = "\n".join(
                f"mlnx_qos -i {nic.name} --dscp2prio set,{d},{current[d]}"
                for d, _ in todo
                if d in current
            )
        self.add(fix, text, back, "dscp_map")

    def _firmware(self, fix: Fix, nic: NicPort) -> None:
        pci = _bus_info(self.snapshot, nic.name)
        param = f"CNP_DSCP_P{nic.firmware_port or 1}"
        old = (nic.firmware or {}).get(param)
        if pci is None or old is None:
            self.notes.append(f"{fix.code}: {nic.name}: PCI address or {param} not collected")
            return
        self.add(
            fix,
            f"mlxconfig -d {pci} -y set {param}={fix.value}",
            f"mlxconfig -d {pci} -y set {param}={old}",
            "firmware",
        )


def _bus_info(snapshot: Snapshot, nic: str) -> str | None:
    source = snapshot.files.get(command_filename(f"ethtool -i {nic}", "text"))
    if source is None:
        return None
    m = re.search(r"^bus-info:\s*(\S+)", source.text, re.M)
    return m[1] if m else None


def remediate(fixes: list[Fix], snapshot: Snapshot, device: Device) -> PlatformPlan:
    """Host commands for ``fixes``, rollback = the same commands with the captured values."""
    host = _Host(device, snapshot)
    for fix in fixes:
        nic = device.nics.get(fix.port or "")
        if nic is None or not _NIC.match(nic.name):
            host.notes.append(f"{fix.code}: {fix.port}: not a NIC of this host")
            continue
        host.fix(fix, nic)
    changes = [t.change() for t in host.trust.values()] + list(host.changes.values())
    return PlatformPlan(changes=changes, hint=SAFE_APPLY, notes=host.notes)
