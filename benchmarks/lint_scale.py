"""Scale benchmark: audit a synthetic fabric vs. the C-accelerated bare parse of the same files.

Usage (from the repository root; takes minutes at full size, run it under ``nice``)::

    python benchmarks/lint_scale.py                  # 1,000 switches x 64 ports + 8,000 NIC
                                                     # ports, and 4x that size (interleaved)
    python benchmarks/lint_scale.py --scale 0.1      # 100 switches (and 400)
    python benchmarks/lint_scale.py --host-heavy     # 10,000 hosts x 2 NICs + 500 switches
    python benchmarks/lint_scale.py --scale 0.1 --render-plan   # render and plan columns too
    python benchmarks/lint_scale.py --scale 0.1 --profile audit.pstats

Each size is written by benchmarks/fabricgen.py (SONiC config_db.json and NVUE YAML
switches, linux_host snapshot directories). Each measurement runs in a fresh child process
(imports are not timed) and the sizes are measured interleaved (1x, 4x, 1x, 4x, ...) so that
a change in machine load hits both alike; every file is read once before the first
measurement, so none of them reads from disk. With ``--repeat N`` the bare parse runs once more
after the last audit, and each audit is compared with the mean of the bare parses just
before and after it (printed per repetition, with their median). Measured per size:

- ``bare-c``: every file read and parsed with C-accelerated libraries: ``json.loads`` (C),
  PyYAML's ``CSafeLoader`` (libyaml), host outputs read and split into lines. This is the
  baseline of issue 17's "audit <= 3x bare parse".
- ``bare-ruamel``: the same with pure-Python ruamel.yaml for YAML (the old baseline; for
  reference only).
- ``audit``: ``rocetune.api.audit(inventory, processes=1)``: one process, so its CPU time
  compares with the bare parse.
- ``audit-pool``: ``rocetune.api.audit(inventory)`` with the default process pool (one
  process per 64 devices, up to the CPUs): wall time and CPU of all processes.
- ``cached``: when the parse cache (``rocetune.parsecache``) exists: a re-audit after 1 % of
  the snapshots changed (the cache filled by a first run, not timed).
- ``render`` / ``plan`` (``--render-plan``): ``rocetune.api.render`` / ``rocetune.api.plan``,
  both including their audit.

Ratios use CPU seconds (time on a shared machine varies; CPU time much less). Peak RSS is
the child's (for the pool: the largest of the parent and its workers).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MODES = ("bare-c", "bare-ruamel", "audit", "audit-pool", "cached", "render", "plan")


def files_of(root: Path) -> dict[str, list[Path]]:
    """The generated files by kind (as the generator wrote them)."""
    return {
        "json": sorted(root.glob("configs/*.json")) + sorted(root.glob("hosts/*/meta.json")),
        "yaml": [*sorted(root.glob("configs/*.yaml")), root / "inventory.yaml"],
        "text": sorted(root.glob("hosts/*/*.txt")),
    }


def bare_parse(root: Path, yaml_c: bool = True) -> None:
    """Read and parse every file with the plain libraries (C-accelerated or ruamel)."""
    if yaml_c:
        import yaml as pyyaml

        def load_yaml(text: str) -> Any:
            return pyyaml.load(text, Loader=pyyaml.CSafeLoader)
    else:
        from ruamel.yaml import YAML

        load_yaml = YAML(typ="rt").load
    files = files_of(root)
    for path in files["json"]:
        json.loads(path.read_text(encoding="utf-8"))
    for path in files["yaml"]:
        load_yaml(path.read_text(encoding="utf-8"))
    for path in files["text"]:
        path.read_text(encoding="utf-8").splitlines()


def _touch_one_percent(root: Path) -> int:
    """Change 1 % of the snapshots (a comment line / a trailing newline): cache misses."""
    configs = sorted(root.glob("configs/*")) + sorted(root.glob("hosts/*/hostname*.txt"))
    changed = configs[:: max(1, len(configs) // max(1, len(configs) // 100))]
    for path in changed:
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n")
    return len(changed)


def run_mode(mode: str, root: Path) -> dict[str, Any]:
    """Run one measurement in this (child) process: seconds, CPU, summary."""
    from rocetune import api

    inventory = root / "inventory.yaml"
    summary: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if mode == "cached":
        try:
            from rocetune.parsecache import ParseCache  # type: ignore[import-not-found]
        except ImportError:
            return {"skipped": "no parse cache in this checkout"}
        cache_dir = root / ".rocetune_cache"
        api.audit(inventory, cache=ParseCache(cache_dir))  # type: ignore[call-arg]
        extra["changed"] = _touch_one_percent(root)
    start, cpu = time.perf_counter(), time.process_time()
    if mode == "bare-c":
        bare_parse(root, yaml_c=True)
    elif mode == "bare-ruamel":
        bare_parse(root, yaml_c=False)
    elif mode in ("audit", "audit-pool", "cached"):
        kwargs: dict[str, Any] = {"processes": 1} if mode == "audit" else {}
        if mode == "cached":
            kwargs["cache"] = ParseCache(root / ".rocetune_cache")
        result = api.audit(inventory, **kwargs)
        summary = result.summary()
        summary["devices_with_errors"] = sum(1 for s in result.devices.values() if s.status != "ok")
        summary["input_errors"] = len(result.errors)
    elif mode == "render":
        with tempfile.TemporaryDirectory() as out:
            api.render(inventory, Path(out))
    elif mode == "plan":
        api.plan(inventory)
    seconds = time.perf_counter() - start
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "seconds": seconds,
        "cpu": time.process_time() - cpu,
        "workers_cpu": kids.ru_utime + kids.ru_stime,
        "rss_mb": max(own.ru_maxrss, kids.ru_maxrss) / 1024,
        "summary": summary,
        **extra,
    }


def _child(mode: str, root: Path) -> None:
    from rocetune import api  # noqa: F401  (import cost is not part of the timing)
    from rocetune.api import audits  # noqa: F401

    if mode == "bare-c":
        import yaml  # noqa: F401
    print(json.dumps(run_mode(mode, root)))


def measure_once(mode: str, root: Path) -> dict[str, Any]:
    """One child run of ``mode``."""
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"exit {proc.returncode}: {tail}"}
    row: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return row


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median seconds/CPU and max RSS of the runs of one mode and size."""
    good = [r for r in runs if "seconds" in r]
    if not good:
        return runs[-1] if runs else {"error": "not run"}
    return {
        "seconds": statistics.median(r["seconds"] for r in good),
        "cpu": statistics.median(r["cpu"] for r in good),
        "workers_cpu": statistics.median(r["workers_cpu"] for r in good),
        "cpus": [round(r["cpu"], 2) for r in good],
        "rss_mb": max(r["rss_mb"] for r in good),
        "summary": good[-1]["summary"],
        **{k: v for k, v in good[-1].items() if k == "changed"},
    }


def generate(workdir: Path, label: str, scale: float, hosts: bool | None, heavy: bool) -> Any:
    """Write one size; returns the generator's record and its total bytes."""
    from benchmarks.fabricgen import HOST_HEAVY, generate

    root = workdir / label
    start = time.perf_counter()
    saved = root / "generated.json"
    if saved.is_file():  # --workdir of an earlier run: the same fabric again
        gen = json.loads(saved.read_text(encoding="utf-8"))
        gen = argparse.Namespace(**gen)
    else:
        made = generate(root, scale, hosts, HOST_HEAVY if heavy else None)
        gen = argparse.Namespace(
            switches=made.switches,
            switch_ports=made.switch_ports,
            nic_ports=made.nic_ports,
            links=made.links,
        )
        saved.write_text(json.dumps(vars(gen)), encoding="utf-8")
    size = sum(p.stat().st_size for paths in files_of(root).values() for p in paths)
    print(
        f"# generated {label}: {gen.switches} switches, {gen.nic_ports} NIC ports,"
        f" {size / 1e6:.1f} MB in {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )
    return root, gen, size


def warm_files(root: Path) -> None:
    """Read every file of a size once, untimed: the first measurement would otherwise read
    from disk (a fabric just generated or reused from ``--workdir``), and the bare parse,
    which runs first, measured 14.2 s of CPU against 10.6 s with the files in memory."""
    for paths in files_of(root).values():
        for path in paths:
            path.read_bytes()


def run(
    workdir: Path, sizes: list[tuple[str, float, bool]], modes: list[str], repeat: int, hosts: Any
) -> list[dict[str, Any]]:
    """Generate every size, then measure the modes, sizes interleaved."""
    made = [(label, *generate(workdir, label, s, hosts, heavy)) for label, s, heavy in sizes]
    for _label, root, _, _ in made:
        warm_files(root)
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for _ in range(repeat):
        for mode in modes:
            for label, root, _, _ in made:
                got = measure_once(mode, root)
                runs.setdefault((label, mode), []).append(got)
                print(f"# {label} {mode}: {json.dumps(got)[:200]}", file=sys.stderr)
    if "bare-c" in modes and "audit" in modes and modes.index("bare-c") < modes.index("audit"):
        for label, root, _, _ in made:  # after the last audit: each audit between two bare
            got = measure_once("bare-c", root)
            runs[(label, "bare-c")].append(got)
            print(f"# {label} bare-c: {json.dumps(got)[:200]}", file=sys.stderr)
    out = []
    for label, _root, gen, size in made:
        row = {
            "label": label,
            "switches": gen.switches,
            "switch_ports": gen.switch_ports,
            "nic_ports": gen.nic_ports,
            "links": gen.links,
            "mbytes": size / 1e6,
        }
        for mode in modes:
            row[mode] = summarise(runs[(label, mode)])
        out.append(row)
    return out


def _cell(m: dict[str, Any], wall: bool = False) -> str:
    if "skipped" in m:
        return "n/a"
    if "error" in m:
        return "error"
    if wall:
        return f"{m['seconds']:.1f} s wall ({m['cpu'] + m['workers_cpu']:.1f} s CPU)"
    return f"{m['cpu']:.1f} s"


def report(rows: list[dict[str, Any]], modes: list[str]) -> None:
    """Print a Markdown table and the issue 17 ratios."""
    cols = ["size", "MB", *modes, "audit/bare-c", "peak RSS (audit)", "peak RSS (pool)"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        cells = [
            f"{r['label']}: {r['switches']} sw x 64 + {r['nic_ports']} NIC ports",
            f"{r['mbytes']:.0f}",
        ]
        for mode in modes:
            cells.append(_cell(r[mode], wall=mode in ("audit-pool", "cached", "render", "plan")))
        a, b = r.get("audit", {}), r.get("bare-c", {})
        ratio = a["cpu"] / b["cpu"] if "cpu" in a and "cpu" in b else float("nan")
        cells.append(f"{ratio:.2f}")
        cells.append(f"{a.get('rss_mb', float('nan')):.0f} MB")
        cells.append(f"{r.get('audit-pool', {}).get('rss_mb', float('nan')):.0f} MB")
        print("| " + " | ".join(cells) + " |")
    for r in rows:
        a, b = r.get("audit", {}).get("cpus", []), r.get("bare-c", {}).get("cpus", [])
        if a and len(b) == len(a) + 1:
            # each audit against the mean of the bare parses run just before and after it:
            # the machine's speed drifts over minutes (a shared VM), alike for both
            pairs = [x / ((y + z) / 2) for x, y, z in zip(a, b, b[1:], strict=False)]
            print(
                f"{r['label']} audit/bare-c per repetition (bare-c before and after):"
                f" {', '.join(f'{x:.2f}' for x in pairs)} (median {statistics.median(pairs):.2f})"
            )
    for r in rows:
        if r.get("audit", {}).get("summary"):
            print(f"{r['label']} findings: {r['audit']['summary']}")
        if r.get("cached", {}).get("changed"):
            print(f"{r['label']} cached: {r['cached']['changed']} snapshots changed before it")
    if len(rows) >= 2 and "cpu" in rows[0].get("audit", {}) and "cpu" in rows[1].get("audit", {}):
        for mode in ("bare-c", "audit", "render", "plan"):
            if "cpu" in rows[0].get(mode, {}) and "cpu" in rows[1].get(mode, {}):
                first = rows[0][mode]["cpu"] + rows[0][mode]["workers_cpu"]
                second = rows[1][mode]["cpu"] + rows[1][mode]["workers_cpu"]
                print(f"x4 size: {mode} CPU x{second / first:.2f} (target <= 4.4)")


def profile(root: Path, out: Path) -> None:
    """Run one audit under cProfile; write the stats and print the top entries."""
    import cProfile
    import pstats

    from rocetune import api

    prof = cProfile.Profile()
    prof.enable()
    api.audit(root / "inventory.yaml", processes=1)
    prof.disable()
    prof.dump_stats(str(out))
    pstats.Stats(prof).sort_stats("tottime").print_stats(30)


def main(argv: list[str] | None = None) -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="size factor (1.0 = 1000 switches)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement (median)")
    ap.add_argument("--workdir", type=Path, help="where to write the fabric (default: a temp dir)")
    ap.add_argument("--no-hosts", action="store_true", help="generate switches only")
    ap.add_argument("--no-growth", action="store_true", help="skip the 4x size")
    ap.add_argument("--host-heavy", action="store_true", help="10,000 hosts x 2 NICs + 500 sw")
    ap.add_argument("--render-plan", action="store_true", help="time render and plan too")
    ap.add_argument("--modes", help=f"comma-separated subset of {','.join(MODES)}")
    ap.add_argument(
        "--generate-only", action="store_true", help="write the fabric(s) into --workdir only"
    )
    ap.add_argument("--profile", type=Path, help="cProfile one audit at --scale into this file")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "ROOT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child[0], Path(args.child[1]))
        return
    hosts = False if args.no_hosts else None
    modes = ["bare-c", "bare-ruamel", "audit", "audit-pool", "cached"]
    if args.render_plan:
        modes += ["render", "plan"]
    if args.modes:
        modes = args.modes.split(",")
    with tempfile.TemporaryDirectory(prefix="rocetune-scale-") as tmp:
        workdir = args.workdir or Path(tmp)
        if args.profile:
            root, _, _ = generate(workdir, "profile", args.scale, hosts, args.host_heavy)
            profile(root, args.profile)
            return
        if args.host_heavy:
            sizes = [("host-heavy", 1.0, True)]
        elif args.no_growth:
            sizes = [(f"x{args.scale:g}", args.scale, False)]
        else:
            sizes = [
                (f"x{args.scale:g}", args.scale, False),
                (f"x{4 * args.scale:g}", 4 * args.scale, False),
            ]
        if args.generate_only:
            modes = []
        report(run(workdir, sizes, modes, args.repeat, hosts), modes)


if __name__ == "__main__":
    main()
