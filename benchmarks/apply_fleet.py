"""Apply benchmark: a large lab fabric applied over SSH at a given RTT (issue 14 closing note).

Usage::

    python benchmarks/apply_fleet.py                          # 200 devices, 50 ms per command
    python benchmarks/apply_fleet.py --devices 40 --latency-ms 50 --parallel 20

One lab process (tests/lab/server.py) serves every device from the stateful engines (SONiC,
Cumulus NVUE, Linux hosts, copied from the example fabric's leaf1, leaf3 and gpu04, which the
plan changes), sleeping ``--latency-ms`` before each answer (one round trip per command).
The operator's sequence runs in process: collect every device, plan, then
``rocetune.api.applying.apply`` with ``--now``, a canary, waves ``1,10%,100%``, the 5 min
timer. Printed: the apply's wall time, how it splits (collections, driver commands, the
checks' compute: parse, replay, lint), the commands sent, the round-trip lower bound (per wave
the busiest device's commands x RTT, waves in sequence, ``--parallel`` devices at a time),
and the controller's overhead over it. The controller and the lab share the machine's cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TEMPLATES = (
    ("sonic", "leaf1", "leaf"),
    ("cumulus", "leaf3", "leaf"),
    ("linux_host", "gpu04", "host"),
)


class Timed:
    """Wraps a fleet: cumulative seconds and calls per method (thread safe)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self.io: dict[str, float] = defaultdict(float)
        """Device -> seconds waiting on it (collections, sessions opened, commands)."""
        self.lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr) or name in ("transaction",):
            return attr

        def timed(*args: Any, **kw: Any) -> Any:
            start = time.monotonic()
            try:
                got = attr(*args, **kw)
            finally:
                spent = time.monotonic() - start
                with self.lock:
                    self.seconds[name] += spent
                    self.calls[name] += 1
                    if name in ("collect", "open") and args:
                        self.io[str(args[0])] += spent
            if name == "open":
                return TimedSession(got, self, str(args[0]))
            return got

        return timed


class TimedSession:
    """A session whose command time is added to its device's I/O time."""

    def __init__(self, inner: Any, owner: Timed, device: str) -> None:
        self.inner, self.owner, self.device = inner, owner, device

    def _time(self, fn: Any, arg: Any) -> Any:
        start = time.monotonic()
        try:
            return fn(arg)
        finally:
            with self.owner.lock:
                self.owner.io[self.device] += time.monotonic() - start

    def run(self, command: str) -> Any:
        return self._time(self.inner.run, command)

    def run_many(self, commands: Any) -> Any:
        return self._time(self.inner.run_many, commands)

    def close(self) -> None:
        self.inner.close()


def _devices(n: int, latency_ms: float) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    from tests.lab.lab import lab_inventory_devices

    fabric = lab_inventory_devices()
    lab: dict[str, dict[str, Any]] = {}
    inv: dict[str, Any] = {}
    for i in range(n):
        platform, copy, role = TEMPLATES[i % len(TEMPLATES)]
        snap = str(fabric[copy]["snapshot"])
        name = f"{copy}-{i:03d}"
        lab[name] = {
            "platform": platform,
            "snapshot": snap,
            "latency_ms": latency_ms,
            "engine": {"kind": platform, "snapshot": snap},
        }
        entry: dict[str, Any] = {"platform": platform, "role": role}
        if platform == "linux_host":
            entry["nics"] = ["eth2", "eth3"]
        inv[name] = entry
    return lab, inv


def main() -> None:  # noqa: PLR0915 (one linear benchmark script)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--parallel", type=int, default=20)
    args = parser.parse_args()

    from ruamel.yaml import YAML

    from rocetune import api
    from rocetune.api.applying import LiveFleet
    from rocetune.apply.options import ApplyOptions, SystemClock
    from rocetune.apply.planfile import load_plan
    from rocetune.apply.run import Run
    from rocetune.apply.window import Window
    from rocetune.collect import CollectOptions, Trust, collect
    from rocetune.inventory import load_inventory
    from rocetune.render.plan_output import to_json
    from tests.lab.lab import HOST, LAB_INVENTORY, PASSWORD, USER, start_lab

    os.environ["ROCETUNE_USER"], os.environ["ROCETUNE_PASSWORD"] = USER, PASSWORD
    tmp = Path(tempfile.mkdtemp(prefix="apply-bench-"))
    specs, entries = _devices(args.devices, args.latency_ms)
    lab = start_lab(specs, tmp / "lab", timeout=120)
    try:
        known = lab.known_hosts(tmp / "known_hosts")
        yaml = YAML(typ="rt")
        base = yaml.load(LAB_INVENTORY.read_text(encoding="utf-8"))
        doc: dict[str, Any] = {"intent": base["intent"], "defaults": base["defaults"]}
        doc["devices"] = {n: {**e, "host": HOST, "port": lab.ports[n]} for n, e in entries.items()}
        live = tmp / "live.yaml"
        live.write_text(json.dumps(doc), encoding="utf-8")
        options = CollectOptions(trust=Trust(known))
        t0 = time.monotonic()
        outcomes = collect(load_inventory(live), tmp / "snaps", options=options)
        t_collect = time.monotonic() - t0
        assert all(o.ok for o in outcomes.values()), [o for o in outcomes.values() if not o.ok][:3]
        for n, e in doc["devices"].items():
            e["snapshot"] = str(tmp / "snaps" / n)
        planned = tmp / "planned.yaml"
        planned.write_text(json.dumps(doc), encoding="utf-8")
        t0 = time.monotonic()
        plan_path = tmp / "plan.json"
        plan_path.write_text(to_json(api.plan(planned)), encoding="utf-8")
        t_plan = time.monotonic() - t0
        plan = load_plan(plan_path)
        changed = plan.with_changes()
        t0 = time.monotonic()
        fleet = Timed(LiveFleet(load_inventory(planned), options))
        t_fleet = time.monotonic() - t0
        now = time.time()
        opts = ApplyOptions(
            change_id="BENCH",
            window=Window(now - 1, now + 6 * 3600),
            allow_disruptive=True,
            parallel=args.parallel,
        )
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        run = Run(fleet, opts, tmp / "runs", SystemClock())
        t0 = time.monotonic()
        result = run.start(plan)
        wall = time.monotonic() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        lab.stop()
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    events = [json.loads(x) for x in (result.directory / "audit.jsonl").read_text().splitlines()]
    sent = Counter(e["device"] for e in events if e["event"] == "command")
    busiest = 0.0  # the I/O critical path: per wave, chunks of --parallel, slowest each
    for wave in result.waves:
        times = sorted((fleet.io[d] for d in wave), reverse=True)
        busiest += sum(times[i] for i in range(0, len(times), args.parallel))
    states = Counter(d.state.value for d in result.devices.values())
    checks = sum(fleet.seconds[k] for k in ("lint", "model", "replay", "config_hash"))
    print(
        f"devices {args.devices} ({len(changed)} with changes), latency {args.latency_ms} ms "
        f"per command, parallel {args.parallel}"
    )
    print(
        f"collect (before plan) {t_collect:.1f} s, plan {t_plan:.1f} s, fleet setup "
        f"(audit) {t_fleet:.1f} s"
    )
    print(
        f"apply: {result.state.value} exit {result.exit_code} {dict(states)} "
        f"waves {[len(w) for w in result.waves]}"
    )
    print(f"apply wall {wall:.1f} s; controller CPU {cpu:.1f} s")
    print(
        f"  summed over devices: collections {fleet.seconds['collect']:.1f} s "
        f"({fleet.calls['collect']}), sessions opened {fleet.calls['open']}, driver "
        f"commands {sum(sent.values())}, checks compute {checks:.1f} s "
        f"(lint {fleet.seconds['lint']:.1f} s)"
    )
    print(
        f"  I/O critical path (per wave the slowest device's waits, --parallel at a time) "
        f"{busiest:.1f} s; controller overhead over it {wall - busiest:.1f} s "
        f"({(wall - busiest) / max(wall, 1e-9) * 100:.0f} % of the wall time)"
    )


if __name__ == "__main__":
    main()
