"""The example fabric's real plan applied in process: LiveFleet over the platforms' lab engines.

:class:`InProcFleet` is the real :class:`rocetune.api.applying.LiveFleet` (the plan's hash and
replay, the parsers, the rule engine, the redactors, the platforms' apply drivers) whose
sessions go straight to the lab engines (:class:`tests.lab.engines.inproc.EngineSession`)
instead of SSH; every engine and the orchestrator share one virtual clock, so device timers
fire when the test (or a rollback's wait) moves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from rocetune import api
from rocetune.api.applying import LiveFleet
from rocetune.apply.fleet import Unreachable
from rocetune.apply.options import ApplyOptions
from rocetune.apply.planfile import load_plan
from rocetune.apply.run import Run, RunResult
from rocetune.apply.window import Budget, Window
from rocetune.collect.device import collect_device
from rocetune.collect.target import Target
from rocetune.inventory import load_inventory
from rocetune.platforms import drivers
from rocetune.render.plan_output import to_json
from rocetune.session import Session
from rocetune.snapshot import Snapshot, SourceFile, write_directory
from tests.apply.kvlab import EPOCH, VirtualWallClock
from tests.lab.engines import ENGINES, make_engine
from tests.lab.engines.base import VirtualClock
from tests.lab.engines.inproc import EngineSession
from tests.paths import ROOT

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


def engine_spec(device: str) -> dict[str, Any] | None:
    """The lab engine spec of an example-fabric device (None: its platform has no engine)."""
    inv = load_inventory(LAB)
    entry = inv.devices[device]
    if entry.platform not in ENGINES or entry.snapshot is None:
        return None
    return {"kind": entry.platform, "snapshot": str(entry.snapshot), "rate": 0.0}


class _Transport:
    def __init__(self, fleet: InProcFleet) -> None:
        self.fleet = fleet

    def open(self, target: Target) -> Session:
        return self.fleet.open(target.name)


def make_engines(devices: list[str], clock: VirtualClock) -> dict[str, Any]:
    """Lab engines for ``devices`` (those whose platform has one), on one virtual clock."""
    engines: dict[str, Any] = {}
    for name in devices:
        spec = engine_spec(name)
        if spec is None:
            continue
        engine = make_engine(name, spec)
        engine.clock = clock  # type: ignore[attr-defined]
        engines[name] = engine
    return engines


class InProcFleet(LiveFleet):
    """LiveFleet whose sessions are in-process engine sessions."""

    def __init__(self, inventory: Path, engines: dict[str, Any], clock: VirtualClock) -> None:
        super().__init__(load_inventory(inventory))
        self.clock, self.engines = clock, engines
        self.down: set[str] = set()

    def open(self, device: str) -> Session:
        if device in self.down or device not in self.engines:
            raise Unreachable(f"{device}: connection refused")
        platform = self._platform(device)
        if platform == "linux_host":
            return EngineSession(self.engines[device], "exec", platform)
        return EngineSession(self.engines[device], "shell", platform)

    def collect(self, device: str) -> Snapshot:
        platform = self._platform(device)
        driver = drivers()[platform]
        nics = tuple(self.inv.devices[device].nics or ())
        target = cast(Target, type("T", (), {"name": device})())
        try:
            got = collect_device(target, driver, nics, cast(Any, _Transport(self)), driver.redactor)
        except Unreachable:
            raise
        except Exception as exc:
            raise Unreachable(f"{type(exc).__name__}: {exc}") from exc
        files = {n: SourceFile(path=n, text=t) for n, t in got.outputs.items()}
        return Snapshot(files=files, meta=got.meta(device, platform))

    def send(self, device: str, command: str) -> str:
        """A lab control command (``lab fault ...``) to one engine."""
        session = self.open(device)
        try:
            return session.run(command).text
        finally:
            session.close()


def fresh_inventory(tmp: Path, engines: dict[str, Any], clock: VirtualClock) -> Path:
    """The example fabric's inventory with the engine-backed devices collected now (as an
    operator does: ``rocetune collect`` then ``rocetune plan`` on what was collected)."""
    from ruamel.yaml import YAML

    fleet = InProcFleet(LAB, engines, clock)
    yaml = YAML()
    doc = yaml.load(LAB.read_text(encoding="utf-8"))
    for name, entry in doc["devices"].items():
        if name in engines:
            snap = fleet.collect(name)
            outputs = {n: f.text for n, f in snap.files.items()}
            where = tmp / "snapshots" / name
            write_directory(where, outputs, snap.meta)
            entry["snapshot"] = str(where)
        elif entry.get("snapshot"):
            entry["snapshot"] = str((LAB.parent / entry["snapshot"]).resolve())
    path = tmp / "inventory.yaml"
    with path.open("w", encoding="utf-8") as fh:
        yaml.dump(doc, fh)
    return path


def plan_file(tmp: Path, inventory: Path) -> Path:
    """The plan of ``inventory`` as `rocetune plan --format json` writes it."""
    path = tmp / "plan.json"
    path.write_text(to_json(api.plan(inventory)), encoding="utf-8")
    return path


def options(**kw: Any) -> ApplyOptions:
    """Options for in-process runs on the virtual clock."""
    base: dict[str, Any] = {
        "change_id": "CHG-LAB",
        "window": Window(EPOCH - 60, EPOCH + 8 * 3600),
        "confirm_within_s": 300,
        "allow_disruptive": True,
        "parallel": 1,
        "budget": Budget(300, 30, 30),
        "poll_s": 5,
    }
    base.update(kw)
    return ApplyOptions(**base)


def run(fleet: InProcFleet, tmp: Path, plan: Path, **kw: Any) -> RunResult:
    """One run of ``plan`` on the fleet's engines."""
    runner = Run(fleet, options(**kw), tmp / "runs", VirtualWallClock(fleet.clock))
    return runner.start(load_plan(plan))


def with_engines() -> list[str]:
    """Example-fabric devices whose platform has a lab engine."""
    inv = load_inventory(LAB)
    return sorted(n for n in inv.devices if engine_spec(n) is not None)


@dataclass
class LiveLab:
    """Engines, the inventory collected from them, its plan and the fleet."""

    tmp: Path
    clock: VirtualClock
    engines: dict[str, Any]
    inventory: Path
    plan: Path
    fleet: InProcFleet

    @classmethod
    def build(cls, tmp: Path, devices: list[str] | None = None) -> LiveLab:
        clock = VirtualClock(rate=0.0)
        engines = make_engines(devices or with_engines(), clock)
        inventory = fresh_inventory(tmp, engines, clock)
        plan = plan_file(tmp, inventory)
        return cls(tmp, clock, engines, inventory, plan, InProcFleet(inventory, engines, clock))

    def run(self, **kw: Any) -> RunResult:
        return run(self.fleet, self.tmp, self.plan, **kw)
