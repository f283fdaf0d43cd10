"""Linux host (ConnectX) apply driver: captured values, an on-box restore timer, a boot unit.

A host has no transaction of its own: ``mlnx_qos`` and ``/sys/class/net/<if>/ecn`` values
are runtime only (NVIDIA NIC Configuration Operator README: "Non-persistent (need to be
applied after each boot)"), and ``mlxconfig`` values are next-boot values ("For changes ...
to take effect, reboot the system", NVIDIA MFT ``mlxconfig`` docs). So this driver:

- :meth:`stage` validates every line against a fixed grammar (the commands
  :mod:`rocetune.platforms.linux_host.remediate` writes), reads the *current* value of
  everything a line touches from the host itself (not from the plan's snapshot), and writes
  a restore script with those values to ``/var/lib/rocetune/<tag>.restore.sh`` (kept until
  the run is rolled back, so a later ``--rollback RUN`` still has the captured values);
- :meth:`arm` reads the values again (abort when they changed since stage: nothing locks a
  host either), starts ``systemd-run --unit=<tag>-restore --on-active=<T>s /bin/sh <script>``
  *before* running the lines, so a lost session still restores on the box;
- :meth:`confirm` stops the timer; :meth:`save` installs the applied lines as
  ``/etc/rocetune/boot.d/<stamp>-<tag>.sh`` and enables ``rocetune-boot.service``, which
  runs them in name order at boot (only after confirm: an unconfirmed change never persists).

``mlxconfig`` lines change nothing until a reboot or firmware reset: they are refused unless
the change set is allowed to be disruptive (:attr:`DeviceChanges.disruptive`, from
``--allow-disruptive``), and listed in :attr:`HostTransaction.needs_reboot`. Whether
``mlxfwreset`` would activate them without a reboot is unverified. The restore script sets
the captured next-boot value back, which again needs a reboot to take effect.

Commands run as given (the plan's host lines have no ``sudo``): the session user must be
allowed to run them (root).

The steps, their sources and how to finish or undo a run by hand: ``docs/apply-platforms-linux.md``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rocetune.platforms.common.txsafe import (
    check_tag,
    check_text,
    run,
    timer_active,
    write_lines,
)
from rocetune.platforms.linux_host.names import check_netdev, check_pci
from rocetune.platforms.transaction import (
    DeviceChanges,
    Pending,
    Step,
    TransactionError,
    TxContext,
)
from rocetune.session import Session

PLATFORM = "linux_host"
NIC = r"(?P<nic>[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,14})"
VEC = r"[0-9](?:,[0-9]){7}"
QOS = re.compile(
    rf"mlnx_qos -i {NIC} --(?:(?P<trust>trust) (?P<t>pcp|dscp)"
    rf"|(?P<map>dscp2prio) set,(?P<d>\d{{1,2}}),(?P<p>[0-7])"
    rf"|(?P<pfc>pfc) (?P<pv>{VEC})|(?P<buf>prio2buffer) (?P<bv>{VEC}))"
)
SYSFS = re.compile(
    rf"echo (?P<v>\d{{1,6}}) > (?P<path>/sys/class/net/{NIC}/ecn/roce_(?:np|rp)/"
    r"(?:enable/[0-7]|cnp_dscp|cnp_802p_prio|params/[a-z0-9_]{1,40}))"
)
MTU = re.compile(rf"ip link set dev {NIC} mtu (?P<v>\d{{3,5}})")
FW = re.compile(
    r"mlxconfig -d (?P<pci>[0-9A-Fa-f:.]{7,12}) -y set (?P<param>[A-Z][A-Z0-9_]{0,63})="
    r"(?P<v>[A-Za-z0-9_]{1,32})"
)
BOOT_DIR = "/etc/rocetune/boot.d"
STATE_DIR = "/var/lib/rocetune"
"""Restore scripts: persistent, so a new driver instance (recovery, ``--rollback RUN``) can
restore the captured values even after a reboot."""
BOOT_UNIT = "rocetune-boot.service"
UNIT_FILE = (
    "[Unit]",
    "Description=rocetune: re-apply confirmed RoCE NIC settings at boot",
    "After=network-online.target openibd.service",
    "Wants=network-online.target",
    "[Service]",
    "Type=oneshot",
    "RemainAfterExit=yes",
    f'ExecStart=/bin/sh -c \'for f in {BOOT_DIR}/*.sh; do [ -f "$f" ] && /bin/sh "$f"; done\'',
    "[Install]",
    "WantedBy=multi-user.target",
)


@dataclass(frozen=True)
class Line:
    """One validated host command: what it writes, how to read the current value."""

    text: str
    target: tuple[str, ...]
    """What it changes (one restore per target)."""
    read: str
    """The command whose output holds the current value."""
    new: str
    firmware: bool = False


def parse_line(text: str, step: Step = "stage") -> Line:
    """A validated :class:`Line`; TransactionError for anything outside the grammar."""
    check_text(step, text, "host command")
    if m := QOS.fullmatch(text):
        nic = check_netdev(m["nic"])
        read = f"mlnx_qos -i {nic}"
        if m["trust"]:
            return Line(text, ("trust", nic), read, m["t"])
        if m["map"]:
            if int(m["d"]) > 63:
                raise TransactionError(step, f"DSCP out of range: {text!r}")
            return Line(text, ("dscp", nic, m["d"]), read, m["p"])
        if m["pfc"]:
            return Line(text, ("pfc", nic), read, m["pv"])
        return Line(text, ("buffer", nic), read, m["bv"])
    if m := SYSFS.fullmatch(text):
        check_netdev(m["nic"])
        return Line(text, ("sysfs", m["path"]), f"cat {m['path']}", m["v"])
    if m := MTU.fullmatch(text):
        nic = check_netdev(m["nic"])
        return Line(text, ("mtu", nic), f"cat /sys/class/net/{nic}/mtu", m["v"])
    if m := FW.fullmatch(text):
        try:
            pci = check_pci(m["pci"])
        except ValueError as exc:
            raise TransactionError(step, str(exc)) from exc
        return Line(text, ("fw", pci, m["param"]), f"mlxconfig -d {pci} q", m["v"], True)
    raise TransactionError(step, f"not a host command rocetune applies: {text!r}")


def _lines(changes: DeviceChanges | dict[str, object], step: Step) -> list[Line]:
    items = changes.changes if isinstance(changes, DeviceChanges) else (changes,)
    out: list[Line] = []
    for change in items:
        commands = change.get("commands")
        if not isinstance(commands, list):
            raise TransactionError(step, "a host change has no 'commands' list")
        for block in commands:
            for raw in str(block).splitlines():
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                try:
                    parsed = parse_line(line, step)
                except ValueError as exc:
                    raise TransactionError(step, str(exc)) from exc
                if parsed.firmware and change.get("disruptive") is False:
                    msg = f"mlxconfig needs a reboot but the plan marks it hitless: {line!r}"
                    raise TransactionError(step, msg)
                out.append(parsed)
    return out


# --- reading current values ------------------------------------------------------------
def _qos_value(text: str, target: tuple[str, ...]) -> str | None:
    kind = target[0]
    if kind == "trust":
        m = re.search(r"^\s*Priority trust state:\s*(\w+)", text, re.M)
        return m[1] if m else None
    if kind == "dscp":
        for m in re.finditer(r"^\s*prio:(\d) dscp:([\d,]*)", text, re.M):
            if target[2].zfill(2) in m[2].split(",") or target[2] in m[2].split(","):
                return m[1]
        return None  # no map printed (trust pcp): nothing to restore, the map is unused
    row = "enabled" if kind == "pfc" else "buffer"
    m = re.search(rf"^\s*{row}\s+((?:\d+\s+){{7}}\d+)\s*$", text, re.M)
    return ",".join(m[1].split()) if m else None


def _fw_value(text: str, param: str) -> str | None:
    m = re.search(rf"^\s*{re.escape(param)}\s+(\S+)\s*$", text, re.M)
    if m is None:
        return None
    value = re.fullmatch(r".*\((\d+)\)", m[1])
    return value[1] if value else m[1]


def _current(line: Line, output: str) -> str | None:
    kind = line.target[0]
    if kind in ("trust", "dscp", "pfc", "buffer"):
        return _qos_value(output, line.target)
    if kind == "fw":
        return _fw_value(output, line.target[2])
    value = output.strip()
    return value if re.fullmatch(r"\d{1,6}", value) else None


RESTORE: dict[str, Callable[[tuple[str, ...], str], str]] = {
    "trust": lambda t, v: f"mlnx_qos -i {t[1]} --trust {v}",
    "dscp": lambda t, v: f"mlnx_qos -i {t[1]} --dscp2prio set,{t[2]},{v}",
    "pfc": lambda t, v: f"mlnx_qos -i {t[1]} --pfc {v}",
    "buffer": lambda t, v: f"mlnx_qos -i {t[1]} --prio2buffer {v}",
    "sysfs": lambda t, v: f"echo {v} > {t[1]}",
    "mtu": lambda t, v: f"ip link set dev {t[1]} mtu {v}",
    "fw": lambda t, v: f"mlxconfig -d {t[1]} -y set {t[2]}={v}",
}


class HostTransaction:
    """One Linux host's transaction (see the module docstring)."""

    platform: ClassVar[str] = PLATFORM

    def __init__(self, context: TxContext) -> None:
        self.context = context
        self.tag = check_tag(context.tag)
        self.unit = f"{self.tag}-restore"
        self.restore_file = f"{STATE_DIR}/{self.tag}.restore.sh"
        self.apply_file = f"{STATE_DIR}/{self.tag}.apply.sh"
        """The validated lines of this run (what :meth:`save` persists, also from a new
        instance)."""
        self.lines: list[Line] = []
        self.captured: dict[tuple[str, ...], str | None] = {}
        self.restore: list[str] = []
        self.rollback_lines: list[str] = []
        self.needs_reboot: list[str] = []
        """``mlxconfig`` lines applied: effective only after a reboot or firmware reset."""
        self.boot_file: str | None = None
        self.staged = False

    def _armed(self, session: Session, step: Step) -> bool:
        return timer_active(session, step, self.unit, PLATFORM)

    def precheck(self, session: Session) -> Pending:
        """Other runs' restore timers are foreign; ours means armed."""
        text = run(
            session,
            "precheck",
            "systemctl list-units --all --plain --no-legend --type=timer 'rocetune-*' || true",
            PLATFORM,
        )
        units = [ln.split()[0] for ln in text.splitlines() if ln.split()]
        own = f"{self.unit}.timer"
        foreign = tuple(f"timer {u}" for u in units if u.startswith("rocetune-") and u != own)
        armed = own in units and self._armed(session, "precheck")
        return Pending(armed=armed, name=self.tag if armed else None, foreign=foreign)

    def stage(self, session: Session, changes: DeviceChanges) -> None:
        """Validate, capture the current values on the host, write the restore script."""
        self.lines = _lines(changes, "stage")
        firmware = [ln.text for ln in self.lines if ln.firmware]
        if firmware and not changes.disruptive:
            raise TransactionError(
                "stage",
                "mlxconfig changes need a reboot (disruptive); refused without "
                f"--allow-disruptive: {firmware}",
            )
        if changes.rollback:
            self.rollback_lines = [ln.text for ln in _lines(changes.rollback, "stage")]
        self.captured = self._capture(session, "stage")
        missing = [t for t, v in self.captured.items() if v is None and t[0] not in ("dscp",)]
        if missing:
            raise TransactionError("stage", f"could not read the current value of {missing}")
        restore: list[str] = []
        for line in reversed(self.lines):
            value = self.captured.get(line.target)
            text = None if value is None else RESTORE[line.target[0]](line.target, value)
            if text is not None and text not in restore:
                restore.append(text)
        self.restore = restore
        for text in restore:  # the restore lines obey the same grammar
            parse_line(text, "stage")
        run(session, "stage", f"mkdir -p {STATE_DIR}", PLATFORM)
        run(session, "stage", write_lines(self.restore_file, ["#!/bin/sh", *restore]), PLATFORM)
        back = run(session, "stage", f"cat {self.restore_file}", PLATFORM)
        if back.splitlines() != ["#!/bin/sh", *restore]:
            raise TransactionError("stage", "the restore script on the host differs", back)
        applied = [ln.text for ln in self.lines]
        run(session, "stage", write_lines(self.apply_file, ["#!/bin/sh", *applied]), PLATFORM)
        self.staged = True

    def _capture(self, session: Session, step: Step) -> dict[tuple[str, ...], str | None]:
        """The current value of every target of the lines, read from the host."""
        outputs: dict[str, str] = {}
        values: dict[tuple[str, ...], str | None] = {}
        for line in self.lines:
            if line.read not in outputs:
                outputs[line.read] = run(session, step, line.read, PLATFORM)
            if line.target not in values:
                values[line.target] = _current(line, outputs[line.read])
        return values

    def diff(self, session: Session) -> str:
        """The lines whose target value differs from the captured one ('' = no change)."""
        del session
        out = [ln.text for ln in self.lines if self.captured.get(ln.target) != ln.new]
        return "".join(f"{text}\n" for text in out)

    def arm(self, session: Session, revert_in_s: int) -> None:
        """Start the restore timer, then run the lines."""
        if not self.staged:
            raise TransactionError("arm", "nothing staged")
        if revert_in_s <= 0:
            raise TransactionError("arm", f"revert timer must be positive, got {revert_in_s}")
        if self._capture(session, "arm") != self.captured:  # no lock on a host either
            raise TransactionError("arm", "NIC values changed since stage (another writer)")
        run(
            session,
            "arm",
            f"systemd-run --unit={self.unit} --on-active={int(revert_in_s)}s "
            f"/bin/sh {self.restore_file}",
            PLATFORM,
        )
        for line in self.lines:
            run(session, "arm", line.text, PLATFORM)
            if line.firmware:
                self.needs_reboot.append(line.text)

    def pending(self, session: Session) -> Pending:
        """Armed while the restore timer is active."""
        armed = self._armed(session, "pending")
        return Pending(armed=armed, name=self.tag if armed else None)

    def confirm(self, session: Session) -> None:
        """Stop the restore timer; fail when it already fired."""
        if not self._armed(session, "confirm"):
            raise TransactionError("confirm", f"{self.unit}.timer is not active: it fired")
        run(session, "confirm", f"systemctl stop {self.unit}.timer", PLATFORM)
        if self._armed(session, "confirm"):
            raise TransactionError("confirm", f"{self.unit}.timer is still active")

    def rollback(self, session: Session) -> None:
        """Stop the timer, run the restore script (or the plan's rollback), drop the boot file."""
        run(session, "rollback", f"systemctl stop {self.unit}.timer || true", PLATFORM)
        there = run(
            session, "rollback", f"test -f {self.restore_file} && echo yes || echo no", PLATFORM
        )
        if there.strip().splitlines()[-1:] == ["yes"]:
            run(session, "rollback", f"/bin/sh -e {self.restore_file}", PLATFORM)
        elif self.rollback_lines:
            for text in self.rollback_lines:
                run(session, "rollback", text, PLATFORM)
        else:
            raise TransactionError("rollback", "no restore script on the host and no plan rollback")
        rm = f"rm -f {BOOT_DIR}/*-{self.tag}.sh {self.restore_file} {self.apply_file}"
        run(session, "rollback", rm, PLATFORM)

    def discard(self, session: Session) -> None:
        """Nothing was applied: remove the restore script."""
        run(session, "discard", f"rm -f {self.restore_file} {self.apply_file}", PLATFORM)
        self.staged = False

    def save(self, session: Session) -> None:
        """Install the applied lines as a boot script run by ``rocetune-boot.service``."""
        if self._armed(session, "save"):
            raise TransactionError("save", "still armed: confirm first")
        lines = self.lines or self._recall(session)
        runtime = [ln.text for ln in lines if not ln.firmware]
        if not runtime:
            return  # nothing of this run is applied (rolled back) or only next-boot values
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.boot_file = f"{BOOT_DIR}/{stamp}-{self.tag}.sh"
        run(session, "save", f"mkdir -p {BOOT_DIR}", PLATFORM)
        run(session, "save", write_lines(self.boot_file, ["#!/bin/sh", *runtime]), PLATFORM)
        unit = f"/etc/systemd/system/{BOOT_UNIT}"
        run(session, "save", write_lines(unit, UNIT_FILE), PLATFORM)
        run(session, "save", "systemctl daemon-reload", PLATFORM)
        run(session, "save", f"systemctl enable {BOOT_UNIT}", PLATFORM)
        # the restore script stays: a later rollback of this run needs the captured values

    def _recall(self, session: Session) -> list[Line]:
        """This run's lines from the host (a new instance), validated again; [] if none."""
        probe = f"test -f {self.apply_file} && cat {self.apply_file} || true"
        text = run(session, "save", probe, PLATFORM)
        lines = [ln.strip() for ln in text.splitlines()]
        return [parse_line(ln, "save") for ln in lines if ln and not ln.startswith("#")]
