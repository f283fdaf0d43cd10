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
the growth against the previous size. Linear = time x4 for size x4.

CPU of a step = this process's user+sys time plus that of the child processes reaped during
the step (``RUSAGE_CHILDREN`` delta): from 64 devices per process the audit (also inside
``plan``) parses in a forked pool whose workers are joined before the audit returns, so their
CPU is in the delta; the step fails if a child is still alive at its end (its CPU would be
missed). Before its timed steps each process runs the same steps untimed on a 3-device
inventory (imports, compiled templates and patterns: costs paid once per process, which
otherwise landed in different steps at different sizes; ``--cold`` skips it), and lets the
audited fabric go before the plan (a real ``rocetune plan`` holds no other fabric). ``--repeat
N`` runs every size N times, sizes interleaved and every other round in reverse order (24, 96,
384, 384, 96, 24, ...), each run a fresh process, and reports medians; the parent also reads
each run's whole CPU (the child process and its pool, imports and warm-up included) as a check
on the per-step sums. With ``--switches``,
each size is ``benchmarks/fabricgen.py``'s two-tier fabric of that many switches (SONiC and
Cumulus, 64 ports, 16 uplinks per leaf, a few planted faults: few devices change), no hosts.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEPS = ("audit", "render", "plan")
LIMIT_X4 = 4.4
"""Linear enough: at most this growth for size x4 (issue 17's target)."""
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


def cpu(who: int) -> float:
    """User+sys CPU seconds of ``resource.RUSAGE_SELF`` or ``RUSAGE_CHILDREN``."""
    use = resource.getrusage(who)
    return use.ru_utime + use.ru_stime


def child(path: Path, warm: Path | None, processes: int | None) -> None:
    """One size, timed in this process; pool workers counted. One-time costs are paid first,
    untimed (``warm``: the same steps on a 3-device inventory: imports, compiled templates
    and patterns), so that every size measures the same per-device work: without it, from
    128 devices (the audit in pool workers) the parent imported the platform packages in the
    render step, at 96 in the audit. The audited fabric is let go before the plan, which
    runs as ``rocetune plan`` does: without another fabric in the process (the collector's
    full passes re-scanned it in the plan's inventory load and audit)."""
    import gc

    from rocetune import api
    from rocetune.api.parsing import frozen
    from rocetune.render.run import render_fabric

    def render(fabric: Any) -> None:
        with frozen():  # as api.render runs it: the audited model is not re-scanned by the GC
            render_fabric(fabric)

    if warm is not None:
        render(api.audit(warm).fabric)
        api.plan(warm)
    opts: dict[str, Any] = {"processes": processes} if processes is not None else {}
    out: dict[str, float] = {}
    audited: list[Any] = []
    for name, step in (
        ("audit", lambda: audited.append(api.audit(path, **opts))),
        ("render", lambda: render(audited[0].fabric)),
        ("plan", lambda: api.plan(path, **opts)),
    ):
        if name == "plan":
            audited.clear()
        gc.collect()
        start = time.perf_counter()
        own, kids = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
        step()
        out[name] = time.perf_counter() - start
        out[name + "_self"] = cpu(resource.RUSAGE_SELF) - own
        out[name + "_workers"] = cpu(resource.RUSAGE_CHILDREN) - kids
        out[name + "_cpu"] = out[name + "_self"] + out[name + "_workers"]
        alive = multiprocessing.active_children()
        if alive:
            raise SystemExit(f"{name}: {len(alive)} child process(es) not reaped: CPU not counted")
    print(json.dumps(out))


def run_one(path: Path, warm: Path | None, processes: int | None) -> dict[str, float]:
    """One size in a fresh process: its per-step numbers and its whole CPU (``proc_cpu``,
    the warm-up included)."""
    before = cpu(resource.RUSAGE_CHILDREN)
    extra = ["--warm", str(warm)] if warm is not None else []
    if processes is not None:
        extra += ["--processes", str(processes)]
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(path), *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    got: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    got["proc_cpu"] = cpu(resource.RUSAGE_CHILDREN) - before
    return got


def table(sizes: list[int], runs: dict[int, list[dict[str, float]]], what: str) -> None:
    """Per size: each step's median CPU (and per-run values), then the growth of medians."""
    width = max(9, len(what))
    print()
    print(f"CPU s (user+sys, pool workers included), medians of {len(runs[sizes[0]])} run(s)")
    head = "".join(f" {s + ' cpu':>11} {'(wk)':>6}" for s in STEPS)
    print(f"{what:>{width}}{head} {'proc':>7}  runs (render; plan)")
    med: dict[int, dict[str, float]] = {}
    for n in sizes:
        rs = runs[n]
        keys = [f"{s}_{k}" for s in STEPS for k in ("cpu", "workers")] + ["proc_cpu"]
        med[n] = {k: statistics.median(r[k] for r in rs) for k in keys}
        m = med[n]
        cells = "".join(f" {m[s + '_cpu']:>11.2f} {m[s + '_workers']:>6.2f}" for s in STEPS)
        per = ", ".join(f"{r['render_cpu']:.2f}" for r in rs)
        per_plan = ", ".join(f"{r['plan_cpu']:.2f}" for r in rs)
        print(f"{n:>{width}}{cells} {m['proc_cpu']:>7.2f}  {per}; {per_plan}")
    print()
    print(f"growth of medians (linear: x{LIMIT_X4} at most for size x4, scaled for other steps)")
    for a, b in itertools.pairwise(sizes):
        k = b / a
        limit = LIMIT_X4 / 4 * k
        parts = []
        for s in STEPS:
            g = med[b][s + "_cpu"] / med[a][s + "_cpu"]
            per_run = "/".join(
                f"{rb[s + '_cpu'] / ra[s + '_cpu']:.2f}"
                for ra, rb in zip(runs[a], runs[b], strict=False)
            )
            mark = "ok" if g <= limit else "OVER"
            parts.append(f"{s} x{g:.2f} {mark} (runs {per_run})")
        print(f"  {a} -> {b} (x{k:g}): " + "; ".join(parts))


def main() -> None:
    """Run every size ``--repeat`` times, interleaved, each in its own process."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="25,50,100")
    ap.add_argument("--switches", help="fabricgen fabrics of these switch counts instead")
    ap.add_argument("--repeat", type=int, default=1, help="runs per size (medians reported)")
    ap.add_argument(
        "--cold",
        action="store_true",
        help="no untimed warm-up in each process (imports etc. land in whichever step is first)",
    )
    ap.add_argument(
        "--processes",
        type=int,
        help="the audits' parse processes (default: rocetune's choice, a pool from "
        "128 devices; 1: every size parses in one process, the same code path)",
    )
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--warm", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.warm, args.processes)
        return
    fabric = args.switches is not None
    sizes = [int(s) for s in (args.switches if fabric else args.sizes).split(",")]
    what = "switches" if fabric else "devices"
    runs: dict[int, list[dict[str, float]]] = {n: [] for n in sizes}
    print(f"run {what:>8} {'audit':>7} {'render':>7} {'plan':>7}  (CPU s incl. workers; proc)")
    with tempfile.TemporaryDirectory(prefix="rocetune-bench-plan-") as tmp:
        paths: dict[int, Path] = {}
        warm = None if args.cold else inventory(Path(tmp), len(TEMPLATES))
        for n in sizes:
            if fabric:
                from benchmarks.fabricgen import generate

                paths[n] = generate(Path(tmp) / f"fabric-{n}", n / 1000, hosts=False).inventory
            else:
                paths[n] = inventory(Path(tmp), n)
        for i in range(max(1, args.repeat)):
            for n in sizes if i % 2 == 0 else sizes[::-1]:
                got = run_one(paths[n], warm, args.processes)
                runs[n].append(got)
                print(
                    f"{i + 1:>3} {n:>8} {got['audit_cpu']:>7.2f} {got['render_cpu']:>7.2f}"
                    f" {got['plan_cpu']:>7.2f}  ({got['proc_cpu']:.2f})",
                    flush=True,
                )
    table(sizes, runs, what)


if __name__ == "__main__":
    main()
