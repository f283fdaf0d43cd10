"""Apply scenarios by end state (issue 14 closing note), in process on the virtual clock.

Usage::

    python benchmarks/apply_scenarios.py                 # 300 kv runs + 40 real-platform runs
    python benchmarks/apply_scenarios.py --kv 100 --real 0 --seed 7

``kv``: random plans of 1-5 test devices (tests/apply/kvlab.py), each with one or two of its
fault points, random waves/max-fail/canary. ``real``: the example fabric collected from the
SONiC, Cumulus NVUE and Linux host lab engines, planned, and applied with a lab fault (drop
before/after, garbled output, refusal, slow command, prompt) on a random command of 1-3
devices, or a counter fault (lossless drops grow once the change is in: the counter gate
must roll the device back). Printed: device end states, run exit codes, and any device
whose end state does not match the device itself (there must be none).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def kv_runs(n: int, rng: random.Random) -> tuple[Counter[str], Counter[int], list[str]]:
    from tests.apply.helpers import Lab
    from tests.apply.kvlab import FAULTS

    states: Counter[str] = Counter()
    codes: Counter[int] = Counter()
    wrong: list[str] = []
    for _ in range(n):
        with tempfile.TemporaryDirectory() as tmp:
            lab = Lab(Path(tmp))
            for i in range(rng.randint(1, 5)):
                faults = "+".join(rng.sample(FAULTS, rng.randint(1, 2)))
                ports = tuple(rng.sample(("Ethernet0", "Ethernet4", "Ethernet12"), 2))
                lab.add(f"leaf{i + 1}", ports, fault=faults)
            got = lab.run(
                waves=rng.choice([("100%",), ("1", "100%"), ("50%",)]),
                max_fail=rng.randint(0, 2),
                canary=rng.randint(0, 1),
            )
            codes[got.exit_code] += 1
            for name, dev in got.devices.items():
                states[dev.state.value] += 1
                eng = lab.engines[name]
                if dev.state.value == "DONE" and eng.running != lab.intended[name]:
                    wrong.append(f"{name} DONE but not the plan")
                if dev.state.value in ("ROLLED_BACK", "ABORTED") and eng.running != lab.pre[name]:
                    wrong.append(f"{name} {dev.state.value} but not the pre-change config")
    return states, codes, wrong


def real_runs(n: int, rng: random.Random) -> tuple[Counter[str], Counter[int], list[str]]:
    from rocetune.apply.gates import differences
    from rocetune.apply.planfile import load_plan
    from tests.apply.livelab import LiveLab, make_engines

    states: Counter[str] = Counter()
    codes: Counter[int] = Counter()
    wrong: list[str] = []
    base = Path(tempfile.mkdtemp())
    lab = LiveLab.build(base)
    planned = sorted(d.name for d in load_plan(lab.plan).with_changes() if d.name in lab.engines)
    names = sorted(lab.engines)
    clean = lab.run(devices=tuple(planned), canary=0, waves=("100%",))
    commands: dict[str, list[str]] = {}
    for line in (clean.directory / "audit.jsonl").read_text().splitlines():
        ev = json.loads(line)
        if ev["event"] == "command":
            words = [w for w in str(ev["command"]).split()[:3] if "rocetune-" not in w]
            commands.setdefault(ev["device"], []).append(" ".join(words))
    kinds = ("drop_before", "drop_after", "garble", "fail", "slow", "prompt", "counters")
    stuck: list[str] = []
    for i in range(n):
        lab.fleet.engines.clear()
        lab.fleet.engines.update(make_engines(names, lab.clock))
        chosen = rng.sample(planned, rng.randint(1, 3))
        pre = {d: lab.fleet.model(d, lab.fleet.collect(d)) for d in chosen}
        dropping: set[str] = set()
        for d in chosen:
            kind = rng.choice(kinds)
            if kind == "counters":  # lossless drops grow once the change is in
                lab.fleet.engines[d].counter_lab.fault = {"port": "*", "priority": 3, "drops": 5}
                dropping.add(d)
                continue
            fault = {"kind": kind, "on": rng.choice(commands[d]), "times": 1}
            lab.fleet.send(d, "lab fault " + json.dumps({**fault, "seconds": 400}))
        lab.tmp = base / f"r{i}"
        got = lab.run(devices=tuple(chosen), waves=("1", "100%"), max_fail=1)
        codes[got.exit_code] += 1
        for d in chosen:
            lab.fleet.engines[d].faults.clear()
        for name, dev in got.devices.items():
            states[dev.state.value] += 1
            if dev.state.value == "STUCK":
                stuck.append(f"{name}: {dev.reason}")
                continue
            now = lab.fleet.model(name, lab.fleet.collect(name))
            want = dev.intended if dev.state.value == "DONE" else pre[name]
            if want is None or differences(want, now, lab.fleet.intent):
                wrong.append(f"{name} {dev.state.value}: device differs")
            if name in dropping:
                states[f"counter fault -> {dev.state.value}"] += 1
                if dev.state.value == "DONE":
                    wrong.append(f"{name} DONE although its lossless drops grew")
    for line in stuck:
        print("  STUCK", line[:300])
    return states, codes, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kv", type=int, default=300)
    parser.add_argument("--real", type=int, default=40)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for label, n, fn in (("kv", args.kv, kv_runs), ("real", args.real, real_runs)):
        if n <= 0:
            continue
        states, codes, wrong = fn(n, rng)
        print(
            f"{label}: {n} runs; device end states {dict(sorted(states.items()))}; "
            f"exit codes {dict(sorted(codes.items()))}; mismatches {len(wrong)} {wrong[:5]}"
        )


if __name__ == "__main__":
    main()
