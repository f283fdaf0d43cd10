"""A small stateful test device ("kv") with fault injection, its driver, and a test fleet.

The orchestrator's own tests and the property test run against this platform in process:
its engine keeps running/startup config as ``port.key=value`` lines, one staged session,
a commit armed with a revert timer on a :class:`~tests.lab.engines.base.VirtualClock`, and
injects the faults of issue 14 item 6 at any step (SSH drop before/after the step, refusal,
a commit slower than the timer, a reboot while armed, a rollback that fails, garbled output,
a foreign session). Real platforms' engines and drivers plug into the same tests through
:class:`EngineSession`.

It models the contract, not a vendor: vendor behaviour is tested with the platform engines.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rocetune.apply.fleet import Node, Topology, Unreachable
from rocetune.fingerprint import fingerprint
from rocetune.model import Device, Finding, Intent, Port, PortCounters, Severity
from rocetune.platforms.transaction import DeviceChanges, Pending, TransactionError, TxContext
from rocetune.session import Output, Session
from rocetune.snapshot import Snapshot, SourceFile
from tests.lab.engines.base import Reply, VirtualClock

EPOCH = 1_900_000_000.0
GOOD_MTU = "9214"

FAULTS = (
    "none",
    "drop-before-stage",
    "drop-after-stage",
    "refuse-stage",
    "drop-before-arm",
    "drop-after-arm",
    "refuse-arm",
    "slow-commit",
    "reboot-armed",
    "drop-before-confirm",
    "drop-after-confirm",
    "refuse-confirm",
    "rollback-fails",
    "rollback-fails-forever",
    "garbled-diff",
    "foreign-session",
    "bad-change",
    "unreachable",
    "refuse-save",
)


def parse_kv(text: str) -> dict[str, str]:
    """``k=v`` lines -> dict."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        k, sep, v = line.strip().partition("=")
        if sep:
            out[k] = v
    return out


def show_kv(conf: dict[str, str]) -> str:
    """dict -> sorted ``k=v`` lines."""
    return "".join(f"{k}={v}\n" for k, v in sorted(conf.items()))


def edit(conf: dict[str, str], command: str) -> None:
    """Apply one config line: ``set k v`` or ``unset k``."""
    parts = command.split()
    if len(parts) == 3 and parts[0] == "set":
        conf[parts[1]] = parts[2]
    elif len(parts) == 2 and parts[0] == "unset":
        conf.pop(parts[1], None)
    else:
        raise ValueError(command)


@dataclass
class KvEngine:
    """The device (an :class:`tests.lab.engines.base.Engine`)."""

    name: str
    clock: VirtualClock
    running: dict[str, str]
    fault: str = "none"
    startup: dict[str, str] = field(default_factory=dict)
    staged: dict[str, list[str]] = field(default_factory=dict)
    armed: tuple[str, dict[str, str], float] | None = None
    """(session, config before the commit, virtual deadline)."""
    checkpoint: dict[str, str] | None = None
    down: bool = False
    fired: int = 0
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.startup = dict(self.running)
        if self.has("foreign-session"):
            self.staged["someone-else"] = ["set x.y 1"]

    # Engine protocol
    def prompt(self, conn: int) -> str | None:
        return None

    def connection_lost(self, conn: int) -> None:
        return None

    def tick(self) -> None:
        if self.armed is not None and self.clock.now() >= self.armed[2]:
            self.running = dict(self.armed[1])
            self.armed = None
            self.fired += 1

    def _once(self, fault: str) -> bool:
        """Whether ``fault`` is injected now (each fires once; ``a+b`` combines two)."""
        faults = self.fault.split("+")
        if fault in faults:
            faults.remove(fault)
            self.fault = "+".join(faults) or "none"
            return True
        return False

    def has(self, fault: str) -> bool:
        """Whether ``fault`` is (still) injected."""
        return fault in self.fault.split("+")

    def handle(self, conn: int, command: str) -> Reply | None:
        self.log.append(command)
        word = command.split()
        if not word:
            return Reply("")
        op, rest = word[0], word[1:]
        if op == "show" and rest == ["running"]:
            return Reply(show_kv(self.running))
        if op == "show" and rest == ["pending"]:
            lines = [f"staged {s}" for s in sorted(self.staged)]
            if self.armed is not None:
                left = self.armed[2] - self.clock.now()
                lines.append(f"armed {self.armed[0]} {left:.0f}")
            return Reply("\n".join(lines) + "\n" if lines else "none\n")
        if op == "stage" and len(rest) >= 2:
            if self._once("drop-before-stage"):
                return Reply("", disconnect=True)
            if self._once("refuse-stage"):
                return Reply("% Error: configuration session limit reached\n")
            line = " ".join(rest[1:])
            try:
                edit(dict(self.running), line)
            except ValueError:
                return Reply(f"% Invalid input: {line}\n")
            self.staged.setdefault(rest[0], []).append(line)
            if self._once("drop-after-stage"):
                return Reply("", disconnect=True)
            return Reply("")
        if op == "diff" and len(rest) == 1:
            new = dict(self.running)
            for line in self.staged.get(rest[0], []):
                edit(new, line)
            if self._once("garbled-diff"):
                return Reply("\x1b[?2004h#$%^ garbage\n")
            lines = [
                f"-{k}={self.running[k]}"
                for k in sorted(self.running)
                if new.get(k) != self.running[k]
            ]
            lines += [f"+{k}={new[k]}" for k in sorted(new) if self.running.get(k) != new[k]]
            return Reply("\n".join(lines) + ("\n" if lines else ""))
        if op == "commit" and len(rest) == 3 and rest[1] == "timer":
            return self._commit(rest[0], float(rest[2]))
        if op == "confirm" and len(rest) == 1:
            if self._once("drop-before-confirm"):
                return Reply("", disconnect=True)
            if self._once("refuse-confirm"):
                return Reply("% Error: confirm failed\n")
            if self.armed is None or self.armed[0] != rest[0]:
                return Reply("% Error: no pending commit\n")
            self.checkpoint = self.armed[1]
            self.armed = None
            if self._once("drop-after-confirm"):
                return Reply("", disconnect=True)
            return Reply("")
        if op == "rollback" and len(rest) == 1:
            if self.has("rollback-fails-forever") or self._once("rollback-fails"):
                return Reply("% Error: rollback verification failed\n")
            if self.armed is not None and self.armed[0] == rest[0]:
                self.running = dict(self.armed[1])
                self.armed = None
            elif self.checkpoint is not None:
                self.running = dict(self.checkpoint)
                self.checkpoint = None
            self.staged.pop(rest[0], None)
            return Reply("")
        if op == "discard" and len(rest) == 1:
            self.staged.pop(rest[0], None)
            return Reply("")
        if op == "save":
            if self._once("refuse-save"):
                return Reply("% Error: disk full\n")
            self.startup = dict(self.running)
            return Reply("")
        return Reply(f"% Invalid input: {command}\n")

    def _commit(self, session: str, timer: float) -> Reply:
        if self._once("drop-before-arm"):
            return Reply("", disconnect=True)
        if self._once("refuse-arm"):
            return Reply("% Error: commit refused\n")
        lines = self.staged.pop(session, [])
        before = dict(self.running)
        for line in lines:
            edit(self.running, line)
        self.armed = (session, before, self.clock.now() + timer)
        if self._once("slow-commit"):
            self.clock.advance(timer + 1)
            self.tick()
        if self._once("reboot-armed"):
            self.running = dict(self.startup)
            self.armed = None
            self.staged.clear()
        if self._once("drop-after-arm"):
            return Reply("", disconnect=True)
        return Reply("")


class EngineSession:
    """A :class:`~rocetune.session.Session` that feeds commands straight to an engine."""

    def __init__(self, engine: Any, conn: int = 1) -> None:
        self.engine, self.conn, self.closed = engine, conn, False

    def run(self, command: str) -> Output:
        if self.closed:
            raise ConnectionError("session closed")
        self.engine.tick()
        reply = self.engine.handle(self.conn, command)
        if reply is None:
            return Output("", "unknown command")
        if reply.disconnect:
            self.closed = True
            raise ConnectionError(f"{command!r}: connection dropped by the device")
        text = reply.text
        first = text.strip().splitlines()[0] if text.strip() else ""
        error = first if first.startswith("%") else None
        return Output(text, error)

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        return [self.run(c) for c in commands]

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.engine.connection_lost(self.conn)


def _ok(step: Any, out: Output) -> str:
    if out.error is not None:
        raise TransactionError(step, out.error, out.text)
    return out.text


class KvTransaction:
    """The kv platform's driver (the contract, over a session)."""

    platform: ClassVar[str] = "kv"

    def __init__(self, context: TxContext) -> None:
        self.ctx = context

    def precheck(self, session: Session) -> Pending:
        return self.pending(session)

    def stage(self, session: Session, changes: DeviceChanges) -> None:
        for change in changes.changes:
            for line in change["commands"]:
                _ok("stage", session.run(f"stage {self.ctx.tag} {line}"))

    def diff(self, session: Session) -> str:
        text = _ok("diff", session.run(f"diff {self.ctx.tag}"))
        if any(ln and ln[0] not in "+-" for ln in text.splitlines()):
            raise TransactionError("diff", "unreadable diff output", text)
        return text

    def arm(self, session: Session, revert_in_s: int) -> None:
        _ok("arm", session.run(f"commit {self.ctx.tag} timer {revert_in_s}"))

    def pending(self, session: Session) -> Pending:
        text = _ok("pending", session.run("show pending"))
        armed, left, foreign = False, None, []
        for line in text.splitlines():
            parts = line.split()
            if parts[:1] == ["armed"] and parts[1] == self.ctx.tag:
                armed, left = True, float(parts[2])
            elif parts[:1] in (["armed"], ["staged"]) and parts[1] != self.ctx.tag:
                foreign.append(parts[1])
        return Pending(armed, self.ctx.tag if armed else None, left, tuple(foreign))

    def confirm(self, session: Session) -> None:
        _ok("confirm", session.run(f"confirm {self.ctx.tag}"))

    def rollback(self, session: Session) -> None:
        _ok("rollback", session.run(f"rollback {self.ctx.tag}"))

    def discard(self, session: Session) -> None:
        _ok("discard", session.run(f"discard {self.ctx.tag}"))

    def save(self, session: Session) -> None:
        _ok("save", session.run("save"))


def kv_model(name: str, conf: dict[str, str], role: str | None = None) -> Device:
    """``Ethernet0.mtu=9214`` lines -> a Device with ports."""
    ports: dict[str, dict[str, Any]] = {}
    for key, value in conf.items():
        port, _, attr = key.partition(".")
        if attr == "mtu":
            ports.setdefault(port, {"name": port})["mtu"] = int(value)
    return Device(
        name=name,
        kind="switch",
        platform="kv",
        role=role,
        ports={p: Port(**f) for p, f in ports.items()},
    )


def kv_findings(device: str, conf: dict[str, str]) -> list[Finding]:
    """RT601-like: a port whose MTU is not the intended one."""
    return [
        Finding(
            code="RT601",
            name="mtu",
            severity=Severity.ERROR,
            device=device,
            port=key.partition(".")[0],
            message="MTU is not the intended one",
            observed=value,
        )
        for key, value in sorted(conf.items())
        if key.endswith(".mtu") and value != GOOD_MTU
    ]


def plan_device(name: str, conf: dict[str, str], ports: Sequence[str]) -> dict[str, Any]:
    """A rocetune-plan/1 device entry fixing the MTU of ``ports``."""
    changes: list[dict[str, Any]] = []
    for p in ports:
        old = conf.get(f"{p}.mtu")
        finding = [f for f in kv_findings(name, conf) if f.port == p]
        changes.append(
            {
                "id": f"c-{p}",
                "kind": "mtu",
                "port": p,
                "fixes": [fingerprint(f) for f in finding],
                "codes": ["RT601"],
                "disruptive": False,
                "commands": [f"set {p}.mtu {GOOD_MTU}"],
                "rollback": {"commands": [f"set {p}.mtu {old}" if old else f"unset {p}.mtu"]},
            }
        )
    rollback = [c["rollback"]["commands"][0] for c in reversed(changes)]
    return {
        "device": name,
        "platform": "kv",
        "status": "changes",
        "running_config_hash": kv_hash(show_kv(conf)),
        "changes": changes,
        "rollback": {"commands": rollback},
        "summary": {"fixes": ["RT601"]},
    }


def kv_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


class KvFleet:
    """A :class:`rocetune.apply.fleet.Fleet` over kv engines in process."""

    def __init__(self, engines: dict[str, KvEngine], topology: Topology | None = None) -> None:
        self.engines = engines
        self.intent = Intent()
        nodes = {n: Node(n, "kv", "leaf") for n in engines}
        self.topology = topology or Topology(nodes)
        self.opened = 0

    def open(self, device: str) -> Session:
        eng = self.engines[device]
        if eng.down:
            raise Unreachable(f"{device}: TCP connect timed out")
        self.opened += 1
        return EngineSession(eng, self.opened)

    def collect(self, device: str) -> Snapshot:
        session = self.open(device)
        try:
            text = session.run("show running").text
        finally:
            session.close()
        return Snapshot(files={"running.txt": SourceFile("running.txt", text)})

    def config_hash(self, device: str, snapshot: Snapshot) -> str:
        return kv_hash(snapshot.files["running.txt"].text)

    def model(self, device: str, snapshot: Snapshot) -> Device:
        return kv_model(device, parse_kv(snapshot.files["running.txt"].text))

    def replay(
        self, device: str, snapshot: Snapshot, changes: Sequence[dict[str, Any]]
    ) -> Snapshot:
        conf = parse_kv(snapshot.files["running.txt"].text)
        for change in changes:
            for line in change["commands"]:
                with contextlib.suppress(ValueError):  # the device refuses it at stage
                    edit(conf, line)
        return Snapshot(files={"running.txt": SourceFile("running.txt", show_kv(conf))})

    def lint(self, device: str, snapshot: Snapshot) -> list[Finding]:
        return kv_findings(device, parse_kv(snapshot.files["running.txt"].text))

    def counters(self, device: str, session: Session) -> list[PortCounters] | None:
        return None

    def verify(self, pairs: Sequence[tuple[str, str]]) -> list[str]:
        return []

    def transaction(self, device: str, context: TxContext) -> KvTransaction:
        return KvTransaction(context)

    def redact(self, device: str, text: str) -> str:
        return text.replace("s3cret", "<redacted>")


class VirtualWallClock:
    """The orchestrator's clock on the engines' virtual clock (sleep advances it)."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock

    def now(self) -> float:
        return EPOCH + self.clock.now()

    def sleep(self, seconds: float) -> None:
        self.clock.advance(seconds)
