"""What the Linux-based lab engines (SONiC, Cumulus NVUE, hosts) share.

A small model of the box around the network OS: files written with ``printf``, ``cat``,
``rm -f``, ``test -f``, ``sh FILE``, transient ``systemd-run --on-active`` timers on the
virtual clock, ``systemctl`` (is-active, stop, list-units, daemon-reload, enable), ``sudo``
and ``|| true``; a reboot (``/run`` and ``/tmp`` are tmpfs: gone; timers: gone).

Control commands (never sent by rocetune; tests send them on any channel):

- ``lab clock advance <seconds>``: move the virtual clock forward (timers fire on next tick);
- ``lab reboot``: reboot the box (each engine says what survives);
- ``lab fault <json>``: inject a fault, ``{"kind": ..., "on": "<command prefix>", "times": 1,
  "seconds": N}``. Kinds: ``drop_before`` (connection lost, command not run),
  ``drop_after`` (command run, connection lost while it prints), ``garble`` (command run,
  output mangled), ``prompt`` (an interactive question; only ``y`` runs the command),
  ``slow`` (command run, then ``seconds`` of virtual time pass: a commit slower than the
  timer), ``fail`` (refused with an error, not run);
- ``lab state``: the engine's state as JSON (for tests).

Faults may also be given up front in the spec (``"faults": [...]``). ``clock_skew_s`` shifts
the box's wall clock (``date +%s``) only: ``--on-active`` timers are monotonic, so skew does
not move them (systemd.timer(5): ``OnActiveSec=`` is relative to the activation).
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from tests.lab.engines.base import Reply, VirtualClock
from tests.lab.engines.counters import CounterLab

WALL_EPOCH = 1_796_000_000.0
"""The box's wall clock at virtual time zero (seconds since 1970)."""


@dataclass
class Timer:
    """A transient timer started by ``systemd-run --on-active``."""

    unit: str
    due: float
    argv: list[str]


@dataclass
class Fault:
    """One injected fault."""

    kind: str
    on: str
    times: int = 1
    seconds: float = 0.0


@dataclass
class Result:
    """What a command did (before faults are applied to how it is reported)."""

    text: str = ""
    error: str = ""
    status: int = 0


def ok(text: str = "") -> Result:
    return Result(text if not text or text.endswith("\n") else text + "\n")


def fail(message: str, status: int = 1) -> Result:
    return Result(message + "\n", message, status)


def parse_duration(text: str) -> float | None:
    """``300``, ``300s``, ``5m``, ``5min``, ``1h`` -> seconds (systemd.time(7); bare = s)."""
    m = re.fullmatch(r"(\d+)(s|sec|m|min|h)?", text)
    if m is None:
        return None
    unit = {"": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}[m[2] or ""]
    return float(m[1]) * unit


@dataclass
class Box:
    """The shared state of a Linux box."""

    files: dict[str, str] = field(default_factory=dict)
    timers: dict[str, Timer] = field(default_factory=dict)
    fired: list[str] = field(default_factory=list)
    enabled: set[str] = field(default_factory=set)
    boots: int = 0


class BoxEngine:
    """Base of the Linux-based engines: subclasses implement :meth:`command`."""

    platform = "linux"

    def __init__(self, device: str, spec: dict[str, Any]) -> None:
        self.device = device
        self.clock = VirtualClock(float(spec.get("rate", 1.0)))
        self.skew = float(spec.get("clock_skew_s", 0.0))
        self.box = Box()
        self.faults = [Fault(**f) for f in spec.get("faults", [])]
        self.questions: dict[int, str] = {}
        self.history: list[str] = []
        """Every command handled (control commands excluded)."""
        self.counter_lab = CounterLab(spec)

    # --- Engine contract -------------------------------------------------------------
    def prompt(self, conn: int) -> str | None:
        """No prompt while a question waits for an answer."""
        return "" if conn in self.questions else None

    def connection_lost(self, conn: int) -> None:
        self.questions.pop(conn, None)

    def tick(self) -> None:
        now = self.clock.now()
        for unit, timer in sorted(self.box.timers.items(), key=lambda kv: kv[1].due):
            if timer.due <= now and unit in self.box.timers:
                del self.box.timers[unit]
                self.box.fired.append(unit)
                self.run_argv(timer.argv)

    def handle(self, conn: int, command: str) -> Reply | None:
        line = command.strip()
        if conn in self.questions:
            waiting = self.questions.pop(conn)
            if line.lower() in ("y", "yes"):
                return self._reply(self.execute(waiting))
            return Reply("Aborted.\n")
        if line.startswith("lab "):
            return self._reply(self.control(line[4:].strip()))
        if not line:
            return None
        fault = self._fault(line)
        if fault is not None:
            return self._faulty(conn, fault, line)
        result = self.execute(line)
        return None if result is None else self._reply(result)

    # --- faults ----------------------------------------------------------------------
    def _fault(self, line: str) -> Fault | None:
        for fault in self.faults:
            if fault.times > 0 and line.startswith(fault.on):
                fault.times -= 1
                return fault
        return None

    def _faulty(self, conn: int, fault: Fault, line: str) -> Reply:
        if fault.kind == "drop_before":
            return Reply("", disconnect=True)
        if fault.kind == "prompt":
            self.questions[conn] = line
            return Reply("Are you sure you want to continue? [y/N] ")
        if fault.kind == "fail":
            return self._reply(fail("Error: injected failure"))
        result = self.execute(line) or fail(f"{line.split(maxsplit=1)[0]}: command not found", 127)
        if fault.kind == "slow":
            self.clock.advance(fault.seconds)
            return self._reply(result)
        if fault.kind == "drop_after":
            return Reply(result.text or "\n\n", disconnect=True)
        if fault.kind == "garble":
            junk = "".join(
                chr(0x21 + (ord(c) * 7) % 90) for c in result.text[: len(result.text) // 2]
            )
            return Reply("\x1b[?2004l" + junk + "\n")
        raise ValueError(f"unknown fault kind {fault.kind!r}")

    # --- control ---------------------------------------------------------------------
    def control(self, line: str) -> Result:
        words = line.split(maxsplit=2)
        if words[:2] == ["clock", "advance"] and len(words) == 3:
            self.clock.advance(float(words[2]))
            self.tick()
            return ok(f"clock {self.clock.now():.1f}")
        if words == ["reboot"]:
            self.reboot()
            return ok("rebooted")
        if words[:1] == ["fault"] and len(words) >= 2:
            self.faults.append(Fault(**json.loads(line.split(maxsplit=1)[1])))
            return ok("fault armed")
        if words == ["state"]:
            return ok(json.dumps(self.state(), sort_keys=True, default=str))
        if words[:1] == ["counters"]:
            return ok(self.counter_lab.control(line.split(), line))
        return fail(f"lab: unknown control {line!r}")

    def reboot(self) -> None:
        """tmpfs and transient timers are gone; subclasses reload their config."""
        self.box.timers.clear()
        self.questions.clear()
        for path in [p for p in self.box.files if p.startswith(("/run/", "/tmp/"))]:
            del self.box.files[path]
        self.box.boots += 1

    def state(self) -> dict[str, Any]:
        return {
            "files": self.box.files,
            "timers": {u: t.due for u, t in self.box.timers.items()},
            "fired": self.box.fired,
            "enabled": sorted(self.box.enabled),
            "boots": self.box.boots,
            "clock": self.clock.now(),
        }

    # --- execution -------------------------------------------------------------------
    def _reply(self, result: Result) -> Reply:
        return Reply(result.text, result.error, result.status)

    def execute(self, line: str) -> Result | None:
        """Run one command line (``&&``/``||`` lists and ``sudo`` understood); None: not mine.

        Lists are split on `` && `` / `` || `` outside ``printf`` lines only (the lab's
        commands never quote those operators elsewhere)."""
        self.history.append(line)
        parts = [line] if line.startswith("printf ") else re.split(r" (&&|\|\|) ", line)
        if len(parts) == 1:
            return self._simple(line)
        result = self._simple(parts[0]) or fail(f"sh: {parts[0].split()[0]}: not found", 127)
        for op, command in zip(parts[1::2], parts[2::2], strict=True):
            if (op == "&&") == (result.status == 0):
                got = self._simple(command) or fail(f"sh: {command.split()[0]}: not found", 127)
                result = Result(result.text + got.text, got.error, got.status)
        return result

    def _simple(self, line: str) -> Result | None:
        if line == "true":
            return ok()
        if m := re.fullmatch(r"test -f (\S+)", line):
            return Result() if m[1] in self.box.files else Result("", "", 1)
        try:
            argv = shlex.split(line)
        except ValueError:
            return fail(f"sh: syntax error: {line[:40]}", 2)
        if argv[:1] == ["sudo"]:
            argv = argv[1:]
        return self.run_argv(argv)

    def run_argv(self, argv: list[str]) -> Result | None:
        """Run a parsed command: the box's own commands, else :meth:`command`."""
        if not argv:
            return ok()
        name = argv[0]
        if name == "printf" and len(argv) >= 4 and argv[-2] in (">", ">>"):
            return self._printf(argv)
        if name == "cat" and len(argv) == 2 and argv[1] in self.box.files:
            return ok(self.box.files[argv[1]]) if self.box.files[argv[1]] else Result()
        if name == "rm" and argv[1:2] == ["-f"]:
            for pattern in argv[2:]:
                for path in fnmatch.filter(list(self.box.files), pattern):
                    del self.box.files[path]
            return ok()
        if name == "mkdir":
            return ok()
        if name == "echo" and ">" not in argv and ">>" not in argv:
            return ok(" ".join(argv[1:]))
        if name in ("sh", "/bin/sh"):
            return self._script(argv[1:])
        if name == "systemd-run":
            return self._systemd_run(argv[1:])
        if name == "systemctl":
            return self._systemctl(argv[1:])
        if name == "date" and argv[1:] == ["+%s"]:
            return ok(str(int(WALL_EPOCH + self.clock.now() + self.skew)))
        return self.command(argv)

    def command(self, argv: list[str]) -> Result | None:
        """The network OS's own commands (subclasses)."""
        del argv
        return None

    def _printf(self, argv: list[str]) -> Result:
        fmt, args, redirect, path = argv[1], argv[2:-2], argv[-2], argv[-1]
        if fmt == "%s":
            text = "".join(args)
        elif fmt == "%s\\n":
            text = "".join(a + "\n" for a in args)
        else:
            return fail(f"printf: unsupported format {fmt!r}")
        before = self.box.files.get(path, "") if redirect == ">>" else ""
        self.box.files[path] = before + text
        return ok()

    def _script(self, args: list[str]) -> Result:
        strict = args[:1] == ["-e"]
        path = args[-1] if args else ""
        if path not in self.box.files:
            return fail(f"sh: 0: cannot open {path}: No such file", 2)
        out = Result()
        for raw in self.box.files[path].splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            got = self.execute(line) or fail(f"sh: {line.split()[0]}: not found", 127)
            out.text += got.text
            if got.status != 0:
                out.error, out.status = got.error, got.status
                if strict:
                    return out
        return out

    def _systemd_run(self, args: list[str]) -> Result:
        unit, delay, rest = None, None, list(args)
        while rest and rest[0].startswith("--"):
            opt = rest.pop(0)
            if opt.startswith("--unit="):
                unit = opt.split("=", 1)[1]
            elif opt.startswith("--on-active="):
                delay = parse_duration(opt.split("=", 1)[1])
        if unit is None or delay is None or not rest:
            return fail("systemd-run: this lab needs --unit=, --on-active= and a command")
        if unit in self.box.timers:
            return fail(f"Failed to start transient timer unit: Unit {unit}.timer already exists.")
        self.box.timers[unit] = Timer(unit, self.clock.now() + delay, rest)
        return ok(f"Running timer as unit: {unit}.timer\nWill run service as unit: {unit}.service")

    def _systemctl(self, args: list[str]) -> Result:
        if args[:1] == ["is-active"] and len(args) == 2:
            unit = args[1]
            active = unit.endswith(".timer") and unit[: -len(".timer")] in self.box.timers
            return ok("active") if active else Result("inactive\n", "", 3)
        if args[:1] == ["stop"] and len(args) == 2:
            base = args[1].rsplit(".", 1)[0]
            if args[1].endswith(".timer") and base in self.box.timers:
                del self.box.timers[base]
                return ok()
            return fail(f"Failed to stop {args[1]}: Unit {args[1]} not loaded.", 5)
        if args[:1] == ["list-units"]:
            pattern = next((a for a in args[1:] if not a.startswith("--")), "*")
            rows = [
                f"{u}.timer loaded active waiting /usr/bin/systemd-run"
                for u in sorted(self.box.timers)
                if fnmatch.fnmatch(f"{u}.timer", pattern)
            ]
            return ok("\n".join(rows))
        if args == ["daemon-reload"]:
            return ok()
        if args[:1] == ["enable"] and len(args) == 2:
            if f"/etc/systemd/system/{args[1]}" not in self.box.files:
                return fail(f"Failed to enable unit: Unit file {args[1]} does not exist.")
            self.box.enabled.add(args[1])
            return ok(f"Created symlink ... -> /etc/systemd/system/{args[1]}.")
        return fail(f"systemctl: unsupported in the lab: {' '.join(args)}")
