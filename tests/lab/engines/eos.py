"""Arista EOS lab engine: configuration sessions with commit timers, on the virtual clock.

What it follows (each behaviour has an engine test naming its source,
``tests/lab/engines/test_eos_engine.py``):

- ``configure session NAME`` copies running config into the session; lines edit the copy;
  ``commit`` makes running config the session's ("overwriting any other configuration
  changes made since it creates the session": last writer wins) (Arista EOS manual,
  *Configure session*, arista.com/um-eos/eos-configure-session).
- ``show session-config diffs`` (in the session) / ``show session-config named NAME diffs``:
  a unified diff of running config against the session (null.53bits.co.uk example).
- ``commit timer hh:mm:ss`` (in the session, or ``configure session NAME commit timer ...``):
  commit, and restore the config from before the commit unless the session is committed a
  second time in time (Arista commit-timer TOI; the revert is a config replace to a
  checkpoint, syslog in SUNET/cnaas-nms#395). ``configure session NAME abort`` while the
  timer runs rolls back at once.
- ``show configuration sessions detail | json`` in two shapes (``json_shape``): ``4.31``
  (per session ``state: pendingCommitTimer`` and ``commitBy``) and ``4.32`` (sessions say
  ``committed`` and the top-level ``commitTimerSessionName``/``commitTimerExpireTime`` name
  the pending one), both from napalm-automation/napalm#2166. ``commit_time_base``: the
  ``commitBy`` clock, ``epoch`` (the #2166 sample) or ``uptime`` (what NAPALM's comment says;
  ``show version | json`` gives both ``uptime`` and ``bootupTimestamp``).
- ``maxOpenSessions`` (default 5) open sessions; a commit in another session is refused
  while a commit timer is pending (gcotone, napalm PR #1266). The error texts are the lab's
  own (**unverified** wording; rocetune matches only the ``%`` error marker).
- an uncommitted or timer-pending session is lost on reboot and running config comes up
  from startup config; ``write memory`` / ``copy running-config startup-config`` save.
- ``copy running-config flash:F`` and ``configure replace flash:F`` (Arista Warrior ch. 9).

Extra options: ``json_shape`` (``4.31``/``4.32``, default ``4.32``), ``commit_time_base``,
``max_sessions``, ``foreign_session`` (``{"name", "state": "pending"|"timer", "user"}``: a
session another user holds open, or committed with a pending timer).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from tests.lab.engines.base import Reply
from tests.lab.engines.cli_engine import CliEngine, Conn
from tests.lab.engines.clitree import Dialect, Node, clone, parse, render
from tests.lab.engines.counters import eos_watchdog

DIALECT = Dialect(
    indent=3,
    top_openers=re.compile(
        r"^(?:interface|qos profile|policy-map|class-map|router|management|ip access-list"
        r"|vlan \d|spanning-tree mst configuration|monitor session)\b"
    ),
    sub_openers=re.compile(r"^(?:(?:uc-|mc-)?tx-queue \d+|class \S+)$"),
    shows_no_form=True,
)
_TIMER = re.compile(r"^commit timer (\d{1,2}):([0-5]\d):([0-5]\d)$")
_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
OK = "Copy completed successfully.\n"


@dataclass
class Session:
    """One configuration session."""

    name: str
    tree: Node
    user: str = "admin"
    state: str = "pending"
    """pending (open) | pendingCommitTimer | completed | aborted."""
    checkpoint: Node | None = None
    expires: float | None = None
    completed: float | None = None
    foreign: bool = False


class EosEngine(CliEngine):
    """An Arista EOS switch."""

    dialect = DIALECT
    EXTRA_OPTIONS = frozenset({"json_shape", "commit_time_base", "max_sessions", "foreign_session"})

    def __init__(self, device: str, options: dict[str, Any]) -> None:
        super().__init__(device, options)
        self.shape = str(options.get("json_shape", "4.32"))
        self.time_base = str(options.get("commit_time_base", "epoch"))
        self.max_sessions = int(options.get("max_sessions", 5))
        self.sessions: dict[str, Session] = {}
        self.files: dict[str, str] = {}
        foreign = options.get("foreign_session")
        if foreign:
            self.extra_fault("foreign_session", f"{foreign['name']} {foreign.get('state', '')}")

    # --- faults --------------------------------------------------------------------------
    def extra_fault(self, name: str, arg: str) -> None:
        """``foreign_session NAME [timer]``: another user's session, open or timer-pending."""
        if name != "foreign_session":
            super().extra_fault(name, arg)
        words = arg.split()
        s = Session(words[0], clone(self.running), user="netops", foreign=True)
        if words[1:] == ["timer"]:
            s.state, s.checkpoint = "pendingCommitTimer", clone(self.running)
            s.expires, s.completed = self.clock.now() + 3600, self.epoch()
        self.sessions[s.name] = s

    # --- modes ---------------------------------------------------------------------------
    def mode_name(self, c: Conn) -> str:
        base = "config" if c.target is None else f"config-s-{c.target}"
        if len(c.modes) == 1:
            return base
        words = c.modes[-1].text.split()
        if words[0] == "interface" and len(words) > 1:
            short = re.sub(r"^([A-Z][a-z])[a-z-]*", r"\1", words[1])
            return f"{base}-if-{short}"
        return f"{base}-{words[0]}"

    def mode_command(self, c: Conn, command: str) -> Reply | None:
        if c.target is None:
            return None
        if command == "show session-config diffs":
            return Reply(self.diffs(c.target))
        if command == "abort":
            reply = self.abort(c.target)
            c.modes, c.target = [], None
            return reply
        if command == "commit":
            reply = self.commit(c.target, None)
            c.modes, c.target = [], None
            return reply
        timer = _TIMER.match(command)
        if timer is not None:
            h, m, s = (int(x) for x in timer.groups())
            reply = self.commit(c.target, h * 3600 + m * 60 + s)
            c.modes, c.target = [], None
            return reply
        if command.startswith("commit"):
            return Reply(self.invalid + "\n")
        return None

    # --- exec ----------------------------------------------------------------------------
    def show_counters(self, command: str) -> Reply | None:
        if command == "show priority-flow-control counters watchdog | json":
            counts = self.counter_lab.read(self.counter_ports(), self.changed())
            return Reply(eos_watchdog(counts))
        return None

    def exec(self, c: Conn, command: str) -> Reply | None:
        words = command.split()
        if command == "show running-config":
            return Reply(self.running_text())
        if command == "show startup-config":
            return Reply(render(self.startup, 3))
        if command == "show version | json":
            return Reply(json.dumps(self.version()))
        if command in (
            "show configuration sessions detail | json",
            "show configuration sessions | json",
        ):
            return Reply(json.dumps(self.sessions_json(), indent=2))
        m = re.fullmatch(r"show session-config named (\S+) diffs", command)
        if m is not None:
            if m.group(1) not in self.sessions:
                return Reply(f"% Session {m.group(1)} does not exist\n")
            return Reply(self.diffs(m.group(1)))
        if command in ("configure", "configure terminal"):
            self.enter_config(c, self.running, None)
            return Reply()
        if words[:2] == ["configure", "session"] and len(words) >= 3:
            return self.session_command(c, words[2], words[3:])
        if command in ("write memory", "write", "copy running-config startup-config"):
            self.startup = clone(self.running)
            self.log.append("save")
            return Reply(OK)
        m = re.fullmatch(r"copy running-config flash:(\S+)", command)
        if m is not None:
            self.files[m.group(1)] = self.running_text()
            return Reply(OK)
        m = re.fullmatch(r"configure replace flash:(\S+)", command)
        if m is not None:
            return self.replace(m.group(1))
        m = re.fullmatch(r"delete flash:(\S+)", command)
        if m is not None:
            self.files.pop(m.group(1), None)
            return Reply()
        return None

    def session_command(self, c: Conn, name: str, rest: list[str]) -> Reply:
        """``configure session NAME [commit [timer T] | abort]``."""
        if not _NAME.match(name):
            return Reply(self.invalid + "\n")
        if not rest:
            s = self.sessions.get(name)
            if s is None:
                open_ = [x for x in self.sessions.values() if x.state == "pending"]
                if len(open_) >= self.max_sessions:
                    return Reply("% Maximum number of pending sessions has been reached\n")
                s = self.sessions[name] = Session(name, clone(self.running))
            elif s.state != "pending":
                return Reply(f"% Cannot enter session {name} (session is {s.state})\n")
            self.enter_config(c, s.tree, name)
            return Reply()
        if name not in self.sessions:
            return Reply(f"% Session {name} does not exist\n")
        if rest == ["commit"]:
            return self.commit(name, None)
        if rest == ["abort"]:
            return self.abort(name)
        timer = _TIMER.match(" ".join(rest))
        if timer is not None:
            h, m, s_ = (int(x) for x in timer.groups())
            return self.commit(name, h * 3600 + m * 60 + s_)
        return Reply(self.invalid + "\n")

    # --- sessions ------------------------------------------------------------------------
    def _other_timer(self, name: str) -> Session | None:
        return next(
            (
                s
                for s in self.sessions.values()
                if s.state == "pendingCommitTimer" and s.name != name
            ),
            None,
        )

    def commit(self, name: str, timer: int | None) -> Reply:
        """Commit (optionally with a timer), or confirm a timer-pending session."""
        s = self.sessions[name]
        if s.state == "pendingCommitTimer":
            if timer is not None:
                return Reply("% Session already has a pending commit timer\n")
            s.state, s.expires, s.checkpoint = "completed", None, None
            s.completed = self.epoch()
            self.log.append(f"confirm {name}")
            self._trim()
            return Reply()
        if s.state != "pending":
            return Reply(f"% Session {name} is {s.state}\n")
        other = self._other_timer(name)
        if other is not None:
            return Reply(f"% Cannot commit: session {other.name} has a pending commit timer\n")
        if timer is not None and timer <= 0:
            return Reply(self.invalid + "\n")
        before = clone(self.running)
        self.running = clone(s.tree)
        s.completed = self.epoch()
        if timer is None:
            s.state = "completed"
            self.log.append(f"commit {name}")
            self._trim()
        else:
            s.state, s.checkpoint, s.expires = (
                "pendingCommitTimer",
                before,
                self.clock.now() + timer,
            )
            self.log.append(f"commit {name} timer {timer}")
        return Reply()

    def abort(self, name: str) -> Reply:
        """Abort: drop an open session, or roll back a timer-pending one."""
        s = self.sessions[name]
        if s.state == "pendingCommitTimer":
            if self.faults.rollback_fails:
                return Reply("% Error: configuration replace failed (rollback_fails)\n")
            assert s.checkpoint is not None
            self.running = s.checkpoint
            self.log.append(f"abort {name} (rolled back)")
        elif s.state != "pending":
            return Reply(f"% Session {name} is {s.state}\n")
        else:
            self.log.append(f"abort {name}")
        s.state, s.checkpoint, s.expires = "aborted", None, None
        self._trim()
        return Reply()

    def _trim(self) -> None:
        """Keep ``maxSavedSessions`` (1) finished sessions, as the #2166 sample says."""
        done = [n for n, s in self.sessions.items() if s.state in ("completed", "aborted")]
        for name in done[:-1]:
            del self.sessions[name]

    def replace(self, name: str) -> Reply:
        """``configure replace flash:NAME``."""
        if name not in self.files:
            return Reply(f"% Error: file flash:{name} does not exist\n")
        if self.faults.rollback_fails:
            return Reply("% Error: configuration replace failed (rollback_fails)\n")
        self.running = parse(self.files[name])
        self.log.append(f"replace {name}")
        return Reply()

    def diffs(self, name: str) -> str:
        """Unified diff running -> session."""
        new = render(self.sessions[name].tree, 3).splitlines(keepends=True)
        old = self.running_text().splitlines(keepends=True)
        return "".join(
            difflib.unified_diff(
                old, new, "system:/running-config", f"session:/{name}-session-config"
            )
        )

    def tick(self) -> None:
        """Revert timer-pending sessions whose timer ran out."""
        now = self.clock.now()
        for s in self.sessions.values():
            if s.state == "pendingCommitTimer" and s.expires is not None and now >= s.expires:
                if not s.foreign:
                    assert s.checkpoint is not None
                    self.running = s.checkpoint
                s.state, s.checkpoint, s.expires = "aborted", None, None
                self.log.append(f"timer expired {s.name} (rolled back)")

    def reboot(self) -> None:
        """Uncommitted and timer-pending sessions are lost."""
        super().reboot()
        self.sessions = {n: s for n, s in self.sessions.items() if s.state == "completed"}

    # --- JSON ----------------------------------------------------------------------------
    def _clock_value(self, expires: float) -> float:
        left = expires - self.clock.now()
        return (self.uptime() if self.time_base == "uptime" else self.epoch()) + left

    def version(self) -> dict[str, Any]:
        """``show version | json`` (the keys NAPALM reads)."""
        return {
            "modelName": "DCS-7060DX5-64S",
            "version": "4.32.1F" if self.shape == "4.32" else "4.31.2F",
            "uptime": round(self.uptime(), 3),
            "bootupTimestamp": round(self.epoch() - self.uptime(), 3),
        }

    def sessions_json(self) -> dict[str, Any]:
        """``show configuration sessions detail | json`` in the configured shape."""
        out: dict[str, Any] = {}
        pending: Session | None = None
        for s in self.sessions.values():
            entry: dict[str, Any] = {
                "state": s.state,
                "commitUser": s.user if s.state != "pending" else "",
                "description": "",
                "instances": {},
            }
            if s.completed is not None:
                entry["completedTime"] = s.completed
            if s.state == "pendingCommitTimer":
                pending = s
                if self.shape == "4.31":
                    assert s.expires is not None
                    entry["commitBy"] = self._clock_value(s.expires)
                else:
                    entry["state"] = "committed"
            elif s.state == "completed" and self.shape == "4.32":
                entry["state"] = "committed"
            out[s.name] = entry
        data: dict[str, Any] = {
            "sessions": out,
            "maxSavedSessions": 1,
            "maxOpenSessions": self.max_sessions,
            "mergeOnCommit": False,
            "saveToStartupConfigOnCommit": False,
        }
        if self.shape == "4.32" and pending is not None and pending.expires is not None:
            data["commitTimerSessionName"] = pending.name
            data["commitTimerExpireTime"] = self._clock_value(pending.expires)
        return data


def make(device: str, spec: dict[str, Any]) -> EosEngine:
    """The registry's factory."""
    return EosEngine(device, spec)
