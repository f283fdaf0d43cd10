"""Build kv fabrics, plans and runs for the apply tests."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rocetune.apply.fleet import Node, Topology
from rocetune.apply.options import ApplyOptions
from rocetune.apply.planfile import load_plan
from rocetune.apply.run import Run, RunResult
from rocetune.apply.window import Budget, Window
from tests.apply.kvlab import EPOCH, KvEngine, KvFleet, VirtualWallClock, edit, plan_device
from tests.lab.engines.base import VirtualClock

BAD = {"Ethernet0.mtu": "1500", "Ethernet4.mtu": "9000", "Ethernet8.mtu": "9214", "name": "s3cret"}


@dataclass
class Lab:
    """Engines, their fleet and clock, and the plan written for them."""

    tmp: Path
    clock: VirtualClock = field(default_factory=lambda: VirtualClock(rate=0.0))
    engines: dict[str, KvEngine] = field(default_factory=dict)
    plan: dict[str, Any] = field(default_factory=dict)
    pre: dict[str, dict[str, str]] = field(default_factory=dict)
    intended: dict[str, dict[str, str]] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    links: list[tuple[str, str]] = field(default_factory=list)

    def add(
        self,
        name: str,
        ports: tuple[str, ...] = ("Ethernet0",),
        fault: str = "none",
        conf: dict[str, str] | None = None,
        role: str = "leaf",
    ) -> None:
        conf = dict(conf or BAD)
        self.engines[name] = KvEngine(name, self.clock, dict(conf), fault)
        self.engines[name].down = "unreachable" in fault.split("+")
        self.pre[name] = dict(conf)
        dev = plan_device(name, conf, ports)
        after = dict(conf)
        for change in dev["changes"]:
            for line in change["commands"]:
                edit(after, line)
        self.intended[name] = after
        if "bad-change" in fault.split("+"):  # a line the device refuses at stage
            dev["changes"][-1]["commands"].append("frobnicate Ethernet0")
        self.plan.setdefault("devices", []).append(dev)
        self.roles[name] = role

    def plan_path(self) -> Path:
        doc: dict[str, Any] = {"format": "rocetune-plan/1", "mode": "remediate"}
        doc["devices"] = sorted(self.plan.get("devices", []), key=lambda d: d["device"])
        path = self.tmp / "plan.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        return path

    def fleet(self) -> KvFleet:
        nodes = {n: Node(n, "kv", self.roles[n]) for n in self.engines}
        return KvFleet(self.engines, Topology(nodes, tuple(self.links)))

    def options(self, **kw: Any) -> ApplyOptions:
        base = ApplyOptions(
            change_id="CHG1",
            window=Window(EPOCH - 60, EPOCH + 4 * 3600),
            confirm_within_s=300,
            parallel=1,
            budget=Budget(300, 30, 30),
            poll_s=5,
        )
        return replace(base, **kw)

    def run(self, **kw: Any) -> RunResult:
        fleet = self.fleet()
        run = Run(fleet, self.options(**kw), self.tmp / "runs", VirtualWallClock(self.clock))
        return run.start(load_plan(self.plan_path()))


def events(result: RunResult) -> list[dict[str, Any]]:
    """The run's audit.jsonl events."""
    lines = (result.directory / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]
