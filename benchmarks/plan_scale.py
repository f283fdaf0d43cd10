"""Render and plan scaling: fabrics where every device needs a change, at growing sizes.

Usage::

    python benchmarks/plan_scale.py --sizes 25,50,100          # every device changed
    python benchmarks/plan_scale.py --switches 50,200,1000     # fabricgen leaf-spine fabrics

With ``--sizes``, each size N is an inventory of N devices, copies of the example fabric's
leaf1 (SONiC),
leaf3 (Cumulus) and gpu04 (Linux host) snapshots in turn (the devices ``rocetune plan``
changes; ``benchmarks/apply_fleet.py`` plans the same fleet), no links. Per size, in a fresh
process: the audit, ``render_fabric`` (every device's full config) and ``api.plan`` (audit,
remedies, per-device replay and re-lint, the whole plan's check), wall and CPU seconds, and
the growth against the previous size. Linear = time x4 for size x4. With ``--switches``,
each size is ``benchmarks/fabricgen.py``'s two-tier fabric of that many switches (SONiC and
Cumulus, 64 ports, 16 uplinks per leaf, a few planted faults: few devices change), no hosts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEPS = ("audit", "render", "plan")
TEMPLATES = (
    ("sonic", "leaf1", "leaf"),
    ("cumulus", "leaf3", "leaf"),
    ("linux_host", "gpu04", "host"),
)


def inventory(work: Path, n: int) -> Path:
    """An inventory of ``n`` copies of the lab's leaf1, leaf3 and gpu04."""
    from tests.lab.lab import lab_inventory_devices

    lab = lab_inventory_devices()
    devices = {}
    for i in range(n):
        platform, copy, role = TEMPLATES[i % len(TEMPLATES)]
        entry: dict[str, object] = {
            "platform": platform,
            "role": role,
            "snapshot": str(lab[copy]["snapshot"]),
        }
        if platform == "linux_host":
            entry["nics"] = ["eth2", "eth3"]
        devices[f"{copy}-{i:04d}"] = entry
    intent = {"lossless_priorities": [3], "roce_dscp": [26], "cnp": {"dscp": 48, "priority": 6}}
    path = work / f"plan-{n}.yaml"
    path.write_text(json.dumps({"intent": intent, "devices": devices}), encoding="utf-8")
    return path


def child(path: Path) -> None:
    """One size, timed in this process (imports excluded)."""
    from rocetune import api
    from rocetune.render.run import render_fabric

    out: dict[str, float] = {}
    audited: list[Any] = []
    for name, step in (
        ("audit", lambda: audited.append(api.audit(path))),
        ("render", lambda: render_fabric(audited[0].fabric)),
        ("plan", lambda: api.plan(path)),
    ):
        start, cpu = time.perf_counter(), time.process_time()
        step()
        out[name] = time.perf_counter() - start
        out[name + "_cpu"] = time.process_time() - cpu
    print(json.dumps(out))


def main() -> None:
    """Run every size in its own process and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="25,50,100")
    ap.add_argument("--switches", help="fabricgen fabrics of these switch counts instead")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    fabric = args.switches is not None
    sizes = [int(s) for s in (args.switches if fabric else args.sizes).split(",")]
    what = "switches" if fabric else "devices"
    print(f"{what:>8} {'audit s':>8} {'render s':>9} {'plan s':>8}  (CPU s; growth)")
    last: tuple[int, dict[str, float]] | None = None
    with tempfile.TemporaryDirectory(prefix="rocetune-bench-plan-") as tmp:
        for n in sizes:
            if fabric:
                from benchmarks.fabricgen import generate

                path = generate(Path(tmp) / f"fabric-{n}", n / 1000, hosts=False).inventory
            else:
                path = inventory(Path(tmp), n)
            proc = subprocess.run(
                [sys.executable, __file__, "--child", str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            growth = ""
            if last is not None:
                k = n / last[0]
                before = last[1]
                parts = (f"{s} x{got[s + '_cpu'] / before[s + '_cpu']:.1f}" for s in STEPS)
                growth = f"size x{k:g}: " + ", ".join(parts)
            print(
                f"{n:>8} {got['audit_cpu']:>8.2f} {got['render_cpu']:>9.2f}"
                f" {got['plan_cpu']:>8.2f}  {growth}"
            )
            last = (n, got)


if __name__ == "__main__":
    main()
