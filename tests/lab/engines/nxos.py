"""Cisco NX-OS lab engine: checkpoints, rollback and the command scheduler on the virtual clock.

What it follows (each behaviour has an engine test naming its source,
``tests/lab/engines/test_nxos_engine.py``):

- ``checkpoint NAME`` saves running config under a unique name; at most 10 user
  checkpoints; ``no checkpoint NAME`` deletes one; ``show checkpoint summary`` lists them;
  checkpoints survive a reload (Nexus 3548 guide, *Configuring Rollback*: "up to 10
  checkpoints", "names must be unique", deleted only after ``write erase`` + reload).
- ``rollback running-config checkpoint NAME [atomic]`` restores it (atomic is the default);
  a failed verification prints "Verification failed, Rolling back to previous
  configuration" and changes nothing (N9K 10.5x *Configuring Rollback*;
  napalm-automation/napalm-ansible#168); ``rollback_fails`` plays that failure.
- "Only one user can perform a checkpoint, rollback, or copy the running configuration to
  the startup configuration at the same time" (N3548 guide): the ``foreign_lock`` knob
  refuses those commands as if another user held them.
- ``feature scheduler``; ``scheduler job name J`` (commands, ``end-job``); ``scheduler
  schedule name S`` with ``job name J`` and a one-time ``time start yyyy:mm:dd:HH:MM``
  (device local time); ``show scheduler schedule`` (N9K 10.5x *Configuring the Scheduler*).
  The output layout and what the job's own rollback does to the running schedule are the
  lab's model (**unverified**).
- ``copy running-config startup-config`` saves; a reload brings up startup config.

Extra options: ``max_checkpoints`` (10), ``system_checkpoints`` (names NX-OS made itself),
``checkpoints`` (names of user checkpoints that exist at start), ``foreign_lock`` (bool),
``foreign_schedule`` (a schedule name of another run, pending). Error texts are the lab's
own (**unverified** wording; rocetune matches only the ``%`` marker and the success lines).
"""

from __future__ import annotations

import calendar
import difflib
import re
import time
from dataclasses import dataclass
from typing import Any

from tests.lab.engines.base import Reply
from tests.lab.engines.cli_engine import CliEngine, Conn
from tests.lab.engines.clitree import Dialect, Node, clone, enter, find, render
from tests.lab.engines.counters import nxos_queuing

DIALECT = Dialect(
    indent=2,
    top_openers=re.compile(
        r"^(?:interface|policy-map|class-map|system qos|router|vrf context|vdc|line"
        r"|scheduler (?:job|schedule) name|ip access-list|vlan \d)\b"
    ),
    sub_openers=re.compile(r"^class\b"),
)
ROLLBACK_OK = (
    "Note: Applying config parallelly may fail Rollback verification\n"
    "Collecting Running-Config\n#Generating Rollback Patch\nExecuting Rollback Patch\n"
    "#Generating Running-config for verification\n#Generating Patch for verification\n"
    "Rollback completed successfully.\n"
)
ROLLBACK_FAILED = (
    "Collecting Running-Config\n#Generating Rollback Patch\nExecuting Rollback Patch\n"
    "#Generating Running-config for verification\n#Generating Patch for verification\n"
    "Verification failed, Rolling back to previous configuration\n"
)
COPY_OK = (
    "[########################################] 100%\n"
    "Copy complete, now saving to disk (please wait)...\nCopy complete.\n"
)
LOCKED = "% Another checkpoint/rollback operation is in progress, please try later\n"
_TIME = re.compile(r"^time start (\d{4}):(\d{1,2}):(\d{1,2}):(\d{1,2}):(\d{1,2})$")
_MODES = (
    (r"^interface ", "config-if"),
    (r"^policy-map type queuing ", "config-pmap-que"),
    (r"^policy-map type network-qos ", "config-pmap-nqos"),
    (r"^policy-map ", "config-pmap-qos"),
    (r"^class-map ", "config-cmap-qos"),
    (r"^class type queuing ", "config-pmap-c-que"),
    (r"^class type network-qos ", "config-pmap-nqos-c"),
    (r"^class ", "config-pmap-c-qos"),
    (r"^system qos$", "config-sys-qos"),
    (r"^scheduler job ", "config-job"),
    (r"^scheduler schedule ", "config-schedule"),
)


@dataclass
class Checkpoint:
    """A saved running config."""

    name: str
    tree: Node
    created: float
    description: str | None = None
    user: str = "admin"


def _stamp(epoch: float) -> time.struct_time:
    return time.gmtime(epoch)


class NxosEngine(CliEngine):
    """A Cisco Nexus switch."""

    dialect = DIALECT
    EXTRA_OPTIONS = frozenset(
        {"max_checkpoints", "system_checkpoints", "checkpoints", "foreign_lock", "foreign_schedule"}
    )
    invalid = "                 ^\n% Invalid command at '^' marker."
    prompt_tail = " "

    def __init__(self, device: str, options: dict[str, Any]) -> None:
        super().__init__(device, options)
        self.max_checkpoints = int(options.get("max_checkpoints", 10))
        self.system_checkpoints = list(options.get("system_checkpoints", []))
        self.checkpoints: dict[str, Checkpoint] = {
            name: Checkpoint(name, clone(self.running), self.epoch() - 3600 + n)
            for n, name in enumerate(options.get("checkpoints", []))
        }
        self.foreign_lock = bool(options.get("foreign_lock", False))
        self.executed: dict[str, str] = {}
        """Schedule name -> when it ran (device time text)."""
        if options.get("foreign_schedule"):
            self.extra_fault("foreign_schedule", str(options["foreign_schedule"]))

    def extra_fault(self, name: str, arg: str) -> None:
        """``foreign_lock``; ``foreign_schedule NAME``."""
        if name == "foreign_lock":
            self.foreign_lock = True
        elif name == "foreign_schedule":  # another run armed its revert: it is in the config
            at = time.strftime("%Y:%m:%d:%H:%M", _stamp(self.epoch() + 1800))
            for line in (
                "feature scheduler",
                f"scheduler job name {arg}",
                f"scheduler schedule name {arg}",
            ):
                enter(self.running, line, DIALECT)
            job = find(self.running, f"scheduler job name {arg}")
            schedule = find(self.running, f"scheduler schedule name {arg}")
            assert job is not None
            assert schedule is not None
            job.children.append(Node("show version"))
            schedule.children += [Node(f"job name {arg}"), Node(f"time start {at}")]
        else:
            super().extra_fault(name, arg)

    # --- modes ---------------------------------------------------------------------------
    def mode_name(self, c: Conn) -> str:
        if len(c.modes) == 1:
            return "config"
        text = c.modes[-1].text
        return next((name for pat, name in _MODES if re.match(pat, text)), "config-" + text[:8])

    def mode_command(self, c: Conn, command: str) -> Reply | None:
        top = c.modes[-1]
        if top.text.startswith("scheduler job name "):
            if command in ("end-job", "exit"):
                c.modes.pop()
            else:
                top.children.append(Node(command))
            return Reply()
        if (
            command.startswith(("scheduler ", "no scheduler "))
            and find(self.running, "feature scheduler") is None
        ):
            return Reply(self.invalid + "\n")
        if command == "no feature scheduler" and len(c.modes) == 1:
            # disabling a feature removes its configuration (N9K scheduler guide)
            self.running.children = [
                n for n in self.running.children if not n.text.startswith("scheduler ")
            ]
        return None

    # --- exec ----------------------------------------------------------------------------
    def show_counters(self, command: str) -> Reply | None:
        m = re.fullmatch(r"show queuing interface (\S+) \| json", command)
        if m is None:
            return None
        if m.group(1) not in self.counter_ports():
            return Reply(f"% Invalid interface {m.group(1)}\n")
        counts = self.counter_lab.read([m.group(1)], self.changed())
        return Reply(nxos_queuing(counts[m.group(1)]))

    def exec(self, c: Conn, command: str) -> Reply | None:
        if command == "show running-config":
            return Reply(self.running_text())
        if command == "show startup-config":
            return Reply(render(self.startup, 2))
        if command == "show clock":
            t = _stamp(self.epoch())
            frac = int((self.epoch() % 1) * 1000)
            return Reply(
                time.strftime(f"%H:%M:%S.{frac:03d} UTC %a %b %d %Y", t) + "\nTime source is NTP\n"
            )
        if command in ("configure terminal", "configure", "config t", "conf t"):
            self.enter_config(c, self.running, None)
            return Reply()
        if command == "show checkpoint summary":
            return Reply(self.summary())
        if command == "show scheduler schedule":
            return Reply(self.schedules())
        if command == "copy running-config startup-config":
            if self.foreign_lock:
                return Reply(LOCKED)
            self.startup = clone(self.running)
            self.log.append("save")
            return Reply(COPY_OK)
        m = re.fullmatch(r"checkpoint (\S+)(?: description (.+))?", command)
        if m is not None:
            return self.checkpoint(m.group(1), m.group(2))
        m = re.fullmatch(r"no checkpoint (\S+)", command)
        if m is not None:
            if self.checkpoints.pop(m.group(1), None) is None:
                return Reply(f"% Checkpoint {m.group(1)} does not exist\n")
            return Reply()
        m = re.fullmatch(r"rollback running-config checkpoint (\S+)(?: atomic)?", command)
        if m is not None:
            return self.rollback(m.group(1))
        m = re.fullmatch(r"show diff rollback-patch checkpoint (\S+) running-config", command)
        if m is not None:
            cp = self.checkpoints.get(m.group(1))
            if cp is None:
                return Reply(f"% Checkpoint {m.group(1)} does not exist\n")
            old = render(cp.tree, 2).splitlines(keepends=True)
            new = self.running_text().splitlines(keepends=True)
            return Reply("".join(difflib.unified_diff(old, new, m.group(1), "running-config")))
        return None

    def checkpoint(self, name: str, description: str | None = None) -> Reply:
        """``checkpoint NAME``."""
        if self.foreign_lock:
            return Reply(LOCKED)
        if name in self.checkpoints:
            return Reply(f"% Checkpoint name {name} is in use already\n")
        if len(self.checkpoints) >= self.max_checkpoints:
            return Reply(f"% Maximum number of checkpoints ({self.max_checkpoints}) reached\n")
        cp = Checkpoint(name, clone(self.running), self.epoch(), description)
        self.checkpoints[name] = cp
        return Reply("Done\n")

    def rollback(self, name: str) -> Reply:
        """``rollback running-config checkpoint NAME``."""
        if self.foreign_lock:
            return Reply(LOCKED)
        cp = self.checkpoints.get(name)
        if cp is None:
            return Reply(f"% Checkpoint {name} does not exist\n")
        if self.faults.rollback_fails:
            self.log.append(f"rollback {name} failed")
            return Reply(ROLLBACK_FAILED)
        self.running = clone(cp.tree)
        self.log.append(f"rollback {name}")
        return Reply(ROLLBACK_OK)

    def summary(self) -> str:
        """``show checkpoint summary``: user checkpoints in creation order, then system."""
        out = ["User Checkpoint Summary", "-" * 80]
        for n, cp in enumerate(self.checkpoints.values(), 1):
            when = time.strftime("%a, %H:%M:%S %d %b %Y", _stamp(cp.created))
            out += [
                f"{n}) {cp.name}:",
                f"Created by {cp.user}",
                f"Created at {when}",
                "Size is 26,634 bytes",
                f"Description: {cp.description or 'None'}",
                "",
            ]
        out += ["System Checkpoint Summary", "-" * 80]
        for n, name in enumerate(self.system_checkpoints, 1):
            out += [
                f"{n}) {name}:",
                "Created by admin",
                "Description: Created by Feature Manager.",
                "",
            ]
        return "\n".join(out) + "\n"

    # --- scheduler -----------------------------------------------------------------------
    def _schedule_nodes(self) -> list[Node]:
        return [c for c in self.running.children if c.text.startswith("scheduler schedule name ")]

    @staticmethod
    def _when(node: Node) -> float | None:
        for child in node.children:
            m = _TIME.match(child.text)
            if m is not None:
                y, mo, d, h, mi = (int(x) for x in m.groups())
                return float(calendar.timegm((y, mo, d, h, mi, 0, 0, 0, 0)))
        return None

    def schedules(self) -> str:
        """``show scheduler schedule``."""
        if find(self.running, "feature scheduler") is None:
            return self.invalid + "\n"
        out: list[str] = []
        rows = [(n.text.split()[-1], n) for n in self._schedule_nodes()]
        for name, node in rows:
            when = self._when(node)
            kind = (
                "Run once on " + time.strftime("%a %b %d %H:%M:%S %Y", _stamp(when))
                if when is not None
                else "Not scheduled"
            )
            jobs = [c.text.split()[-1] for c in node.children if c.text.startswith("job name ")]
            out += self._block(name, kind, self.executed.get(name, "Yet to be executed"), jobs)
        return "\n".join(out) + "\n"

    @staticmethod
    def _block(name: str, kind: str, last: str, jobs: list[str]) -> list[str]:
        return [
            f"Schedule Name       : {name}",
            "---------------------------",
            "User Name           : admin",
            f"Schedule Type       : {kind}",
            f"Last Execution Time : {last}",
            "-----------------------------------------------",
            "     Job Name            Last Execution Status",
            "-----------------------------------------------",
            *[f"{j:<30}      -NA-" for j in jobs],
            "=" * 78,
        ]

    def tick(self) -> None:
        """Run the one-time schedules whose start time has come (device clock)."""
        now = self.epoch()
        for node in self._schedule_nodes():
            name = node.text.split()[-1]
            when = self._when(node)
            if name in self.executed or when is None or now < when:
                continue
            self.executed[name] = time.strftime("%a %b %d %H:%M:%S %Y", _stamp(now))
            jobs = [c.text.split()[-1] for c in node.children if c.text.startswith("job name ")]
            for job in jobs:
                body = find(self.running, f"scheduler job name {job}")
                for line in [c.text for c in body.children] if body is not None else []:
                    self.log.append(f"schedule {name} runs {line!r}")
                    self.exec(Conn(), line)

    def reboot(self) -> None:
        """Checkpoints survive; schedules only when saved."""
        super().reboot()
        self.executed.clear()


def make(device: str, spec: dict[str, Any]) -> NxosEngine:
    """The registry's factory."""
    return NxosEngine(device, spec)
