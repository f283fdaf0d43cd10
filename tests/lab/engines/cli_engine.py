"""What the EOS and NX-OS lab engines share: config modes, the virtual clock, fault knobs.

Options (the device spec's ``engine`` object, besides ``kind``):

- ``running_config``: the file of the initial running config (a snapshot's
  ``show_running_config.txt``), or ``snapshot``: the snapshot directory holding it. Startup
  config starts equal to it.
- ``rate``: virtual seconds per real second (default 1).
- ``clock_skew_s``: the device's wall clock minus true time (epoch values it prints).
- ``faults``: knobs, each also settable at run time with ``lab fault NAME ARG``:

  - ``drop_before`` / ``drop_after``: command prefixes; the connection drops before the
    command runs (nothing changes) or after it ran (its output cut half-way). Each entry
    fires once.
  - ``delay``: prefix -> virtual seconds the command takes (the clock jumps by that much
    after it ran, so a commit can take longer than its own timer).
  - ``prompt``: prefix -> a question the command asks first; ``y``/``yes`` runs it, any
    other line cancels it (``Aborted``).
  - ``garble``: prefixes whose output comes back garbled (cut and mixed with noise).
  - ``reject``: prefixes the CLI refuses (``% Invalid input``).
  - ``rollback_fails``: the platform's revert commands fail (device timers still fire).

The Linux-based engines' fault form is understood too (``tests/lab/engines/box.py``), so one
test can inject faults into every platform: ``faults`` given as a list, or ``lab fault
{"kind": ..., "on": "<command prefix>", "times": 1, "seconds": N}`` with kinds
``drop_before``, ``drop_after``, ``garble``, ``prompt``, ``slow`` (run, then ``seconds`` of
virtual time pass) and ``fail`` (refused with a ``%`` error, not run).

Control commands (never sent by rocetune): ``lab clock advance SECONDS``, ``lab reboot``
(running := startup; sessions, timers and pending commits are lost; the connection drops),
``lab fault NAME [ARG]``, ``lab fault {json}``, ``lab fault clear``, ``lab state`` (JSON).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.lab.engines.base import Reply, VirtualClock
from tests.lab.engines.clitree import Dialect, Node, enter, find, opens, parse, render
from tests.lab.engines.counters import CounterLab

BOOT_EPOCH = 1_796_300_000.0
"""The device's wall clock (UTC epoch seconds) when the lab starts: 2026-12-03."""


def initial_config(options: dict[str, Any]) -> str:
    """The initial running config named by the options."""
    if "running_config" in options:
        return Path(options["running_config"]).read_text(encoding="utf-8")
    if "snapshot" in options:
        return (Path(options["snapshot"]) / "show_running_config.txt").read_text(encoding="utf-8")
    msg = "engine options need 'running_config' or 'snapshot'"
    raise ValueError(msg)


@dataclass
class Conn:
    """One connection's CLI state."""

    modes: list[Node] = field(default_factory=list)
    """Config mode stack; empty: exec mode. ``modes[0]`` is the root of the edited tree."""
    target: str | None = None
    """``None``: editing running config; else the session/candidate name."""
    question: tuple[str, str] | None = None
    """(command, question) waiting for an answer."""


@dataclass
class Faults:
    """The fault knobs (see the module docstring)."""

    drop_before: list[str] = field(default_factory=list)
    drop_after: list[str] = field(default_factory=list)
    delay: dict[str, float] = field(default_factory=dict)
    prompt: dict[str, str] = field(default_factory=dict)
    garble: list[str] = field(default_factory=list)
    reject: list[str] = field(default_factory=list)
    rollback_fails: bool = False

    @classmethod
    def from_options(cls, data: dict[str, Any]) -> Faults:
        """Build from the ``faults`` option."""
        known = set(cls.__dataclass_fields__)
        extra = set(data) - known
        if extra:
            msg = f"unknown engine faults {sorted(extra)}"
            raise ValueError(msg)
        return cls(**data)


@dataclass
class OneShot:
    """A fault in the Linux engines' form (see the module docstring)."""

    kind: str
    on: str
    times: int = 1
    seconds: float = 0.0

    def __post_init__(self) -> None:
        kinds = ("drop_before", "drop_after", "garble", "prompt", "slow", "fail")
        if self.kind not in kinds:
            msg = f"unknown fault kind {self.kind!r} (known: {kinds})"
            raise ValueError(msg)


def _first(prefixes: list[str], command: str) -> str | None:
    return next((p for p in prefixes if command.startswith(p)), None)


def garbled(text: str) -> str:
    """``text`` cut at a third and followed by line noise (a broken terminal)."""
    return text[: len(text) // 3] + "\x1b[?2004h#@!~~ \ufffd\ufffd\n"


class CliEngine:
    """A modal network CLI on a virtual clock (subclasses: EOS, NX-OS)."""

    dialect: Dialect
    invalid = "% Invalid input"
    OPTIONS: frozenset[str] = frozenset(
        {
            "kind",
            "running_config",
            "snapshot",
            "rate",
            "clock_skew_s",
            "faults",
            "counter_fault",
            "pause_step",
        }
    )
    EXTRA_OPTIONS: frozenset[str] = frozenset()

    def __init__(self, device: str, options: dict[str, Any]) -> None:
        unknown = set(options) - self.OPTIONS - self.EXTRA_OPTIONS
        if unknown:
            msg = f"device {device}: unknown engine options {sorted(unknown)}"
            raise ValueError(msg)
        self.device = device
        self.clock = VirtualClock(float(options.get("rate", 1.0)))
        self.skew = float(options.get("clock_skew_s", 0.0))
        self.running = parse(initial_config(options))
        self.startup = parse(render(self.running, self.dialect.indent))
        given = options.get("faults", {})
        self.oneshots = [OneShot(**f) for f in given] if isinstance(given, list) else []
        self.faults = Faults.from_options(given if isinstance(given, dict) else {})
        self.conns: dict[int, Conn] = {}
        self.booted_at = 0.0
        self.log: list[str] = []
        """Events (commits, reverts, reboots) for tests to read."""
        self.counter_lab = CounterLab(options)
        self.initial_text = self.running_text()

    # --- clock ---------------------------------------------------------------------------
    def epoch(self) -> float:
        """The device's wall clock (skewed)."""
        return BOOT_EPOCH + self.clock.now() + self.skew

    def uptime(self) -> float:
        """Seconds since the device booted."""
        return self.clock.now() - self.booted_at

    # --- the Engine contract -------------------------------------------------------------
    def prompt(self, conn: int) -> str | None:
        """Exec ``name#``, config ``name(config)#`` and sub-mode prompts."""
        c = self.conns.get(conn)
        if c is None or not c.modes:
            return self.exec_prompt()
        return f"{self.device}({self.mode_name(c)})#" + self.prompt_tail

    prompt_tail = ""

    def exec_prompt(self) -> str:
        """The exec-mode prompt."""
        return f"{self.device}#" + self.prompt_tail

    def connection_lost(self, conn: int) -> None:
        """Forget the connection's modes (sessions and checkpoints stay)."""
        self.conns.pop(conn, None)

    def handle(self, conn: int, command: str) -> Reply | None:
        """Run ``command`` with the fault knobs around it."""
        c = self.conns.setdefault(conn, Conn())
        command = " ".join(command.split())
        if command.startswith("lab "):
            return self.control(conn, command)
        if c.question is not None:
            held, c.question = c.question[0], None
            if command.lower() not in ("y", "yes"):
                return Reply("Aborted\n" if command.lower() in ("n", "no") else "% Aborted\n")
            return self._run(c, held)
        shot = next((f for f in self.oneshots if f.times > 0 and command.startswith(f.on)), None)
        if shot is not None:
            shot.times -= 1
            return self._oneshot(c, shot, command)
        dropped = _first(self.faults.drop_before, command)
        if dropped is not None:
            self.faults.drop_before.remove(dropped)
            self.log.append(f"drop before {command}")
            return Reply("", disconnect=True)
        asked = _first(list(self.faults.prompt), command)
        if asked is not None:
            c.question = (command, self.faults.prompt[asked])
            return Reply(self.faults.prompt[asked])
        return self._run(c, command)

    def _oneshot(self, c: Conn, shot: OneShot, command: str) -> Reply | None:
        self.log.append(f"fault {shot.kind} on {command}")
        if shot.kind == "drop_before":
            return Reply("", disconnect=True)
        if shot.kind == "prompt":
            c.question = (command, "Proceed? [confirm]")
            return Reply("Proceed? [confirm]")
        if shot.kind == "fail":
            return Reply("% Error: injected failure\n")
        reply = self._run(c, command) or Reply(self.invalid + "\n")
        if shot.kind == "slow":
            self.clock.advance(shot.seconds)
            self.tick()
            return reply
        if shot.kind == "garble":
            return Reply(garbled(reply.text))
        return Reply(reply.text or "x\n", disconnect=True)  # drop_after

    def _run(self, c: Conn, command: str) -> Reply | None:
        if _first(self.faults.reject, command) is not None:
            return Reply(self.invalid + "\n")
        if c.modes:
            reply = self.in_mode(c, command)
        else:
            reply = self.show_counters(command) or self.exec(c, command)
        if reply is None:
            return None
        slow = _first(list(self.faults.delay), command)
        if slow is not None:
            self.clock.advance(self.faults.delay[slow])
            self.tick()
        if _first(self.faults.garble, command) is not None:
            reply = Reply(garbled(reply.text))
        dropped = _first(self.faults.drop_after, command)
        if dropped is not None:
            self.faults.drop_after.remove(dropped)
            self.log.append(f"drop after {command}")
            return Reply(reply.text or "x\n", disconnect=True)
        return reply

    def control(self, conn: int, command: str) -> Reply:
        """The lab's own commands (clock, reboot, faults)."""
        words = command.split()
        if words[1:3] == ["clock", "advance"] and len(words) == 4:
            self.clock.advance(float(words[3]))
            self.tick()
            return Reply(f"clock {self.clock.now():.1f}\n")
        if words[1:] == ["reboot"]:
            self.reboot()
            return Reply("rebooting\n", disconnect=True)
        if words[1:] == ["fault", "clear"]:
            self.faults, self.oneshots = Faults(), []
            return Reply("ok\n")
        if words[1:] == ["state"]:
            return Reply(json.dumps(self.state(), sort_keys=True, default=str) + "\n")
        if words[1:2] == ["counters"]:
            return Reply(self.counter_lab.control(words[1:], command) + "\n")
        if len(words) >= 3 and words[1] == "fault" and words[2].startswith("{"):
            self.oneshots.append(OneShot(**json.loads(command.split(maxsplit=2)[2])))
            return Reply("fault armed\n")
        if len(words) >= 3 and words[1] == "fault":
            self.set_fault(words[2], " ".join(words[3:]))
            return Reply("ok\n")
        return Reply(f"% lab: unknown control command {command!r}\n")

    def show_counters(self, command: str) -> Reply | None:
        """A counter command of the platform (tests/lab/engines/counters.py), or None."""
        del command
        return None

    def counter_ports(self) -> list[str]:
        """The ``interface Ethernet...`` ports of the running config."""
        text = self.running_text()
        return re.findall(r"^interface (Ethernet\S+)$", text, flags=re.MULTILINE)

    def changed(self) -> bool:
        """The running config is no longer the one the engine started with."""
        return self.running_text() != self.initial_text

    def set_fault(self, name: str, arg: str) -> None:
        """``lab fault NAME ARG``: add a prefix (``prompt``: ``PREFIX|QUESTION``; ``delay``:
        ``SECONDS PREFIX``; ``rollback_fails``: no argument)."""
        f = self.faults
        if name in ("drop_before", "drop_after", "garble", "reject"):
            getattr(f, name).append(arg)
        elif name == "prompt":
            prefix, _, question = arg.partition("|")
            f.prompt[prefix] = question
        elif name == "delay":
            seconds, _, prefix = arg.partition(" ")
            f.delay[prefix] = float(seconds)
        elif name == "rollback_fails":
            f.rollback_fails = True
        else:
            self.extra_fault(name, arg)

    def extra_fault(self, name: str, arg: str) -> None:
        """Platform faults (foreign sessions, locks); ValueError for an unknown one."""
        msg = f"unknown fault {name!r}"
        raise ValueError(msg)

    def state(self) -> dict[str, object]:
        """``lab state``: what tests may want to see."""
        return {
            "running": self.running_text(),
            "startup": render(self.startup, self.dialect.indent),
            "faults": asdict(self.faults),
            "oneshots": [asdict(f) for f in self.oneshots],
            "log": self.log,
        }

    def reboot(self) -> None:
        """Running := startup; modes, sessions, timers are lost."""
        self.running = parse(render(self.startup, self.dialect.indent))
        self.conns.clear()
        self.booted_at = self.clock.now()
        self.log.append("reboot")

    # --- modes ---------------------------------------------------------------------------
    def enter_config(self, c: Conn, root: Node, target: str | None) -> None:
        """Enter global configuration mode editing ``root``."""
        c.modes, c.target = [root], target

    def in_mode(self, c: Conn, command: str) -> Reply | None:
        """A line typed in a configuration mode."""
        if command == "end":
            c.modes, c.target = [], None
            return Reply()
        if command == "exit":
            c.modes.pop()
            if not c.modes:
                c.target = None
            return Reply()
        own = self.mode_command(c, command)
        if own is not None:
            return own
        if command.startswith("do "):
            return self.exec(c, command[3:]) or Reply(self.invalid + "\n")
        if command.startswith("show "):
            return self.exec(c, command) or Reply(self.invalid + "\n")
        self.config_line(c, command)
        return Reply()

    def config_line(self, c: Conn, line: str) -> None:
        """Enter one configuration line in the connection's current mode."""
        depth = len(c.modes) - 1
        if depth > 0 and self.dialect.top_openers.match(line):
            del c.modes[1:]
            depth = 0
        parent = c.modes[-1]
        existing = find(parent, line)
        node = enter(parent, line, self.dialect)
        if not line.startswith("no ") and opens(line, depth, existing, self.dialect):
            c.modes.append(node)

    def mode_name(self, c: Conn) -> str:
        """``config``, ``config-if`` ... for the prompt."""
        raise NotImplementedError

    def mode_command(self, c: Conn, command: str) -> Reply | None:
        """A command the platform takes in config modes (``commit``), or None."""
        del c, command
        return None

    def exec(self, c: Conn, command: str) -> Reply | None:
        """An exec-mode command, or None (canned answers)."""
        raise NotImplementedError

    def tick(self) -> None:
        """Fire due timers."""
        raise NotImplementedError

    def running_text(self) -> str:
        """``show running-config``."""
        return render(self.running, self.dialect.indent)
