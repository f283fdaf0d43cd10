"""Scale benchmark: audit a synthetic fabric vs. bare parsing of the same files.

Usage (from the repository root)::

    python benchmarks/lint_scale.py                 # full size: 1,000 switches x 64 ports,
                                                    # 8,000 NIC ports, then 4x that size
    python benchmarks/lint_scale.py --scale 0.1     # 100 switches (and 400 for the 4x run)
    python benchmarks/lint_scale.py --scale 0.1 --profile audit.pstats

For each size it writes the fabric (benchmarks/fabricgen.py: SONiC config_db.json and NVUE
YAML switches, linux_host snapshot directories when that platform exists) and measures, each
in a fresh child process, the median of ``--repeat`` runs of:

(a) bare parsing: every file read and parsed with the plain libraries, ``json.loads`` for
    JSON and ``ruamel.yaml`` round-trip (the loader rocetune needs for line numbers) for
    YAML; host outputs are plain text and are only read. For reference it also times YAML
    with PyYAML's C loader when available (not comparable: no line numbers);
(b) ``rocetune.api.audit`` of the inventory (the library call the CLI makes).

It prints both, their ratio (target: audit <= 3x bare), the children's peak RSS and the
ratio of audit times at 4x vs 1x size (target <= 4.4). Not part of the test run.
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


def files_of(root: Path) -> dict[str, list[Path]]:
    """The generated files by kind (as the generator wrote them)."""
    return {
        "json": sorted(root.glob("configs/*.json")) + sorted(root.glob("hosts/*/meta.json")),
        "yaml": [*sorted(root.glob("configs/*.yaml")), root / "inventory.yaml"],
        "text": sorted(root.glob("hosts/*/*.txt")),
    }


def bare_parse(root: Path, yaml_c: bool = False) -> tuple[float, float]:
    """Wall and CPU seconds to read and parse every file with the plain libraries."""
    from ruamel.yaml import YAML

    load_yaml: Any = YAML(typ="rt").load
    if yaml_c:
        import yaml as pyyaml  # type: ignore[import-untyped]

        def load_yaml(text: str) -> Any:
            return pyyaml.load(text, Loader=pyyaml.CSafeLoader)

    files = files_of(root)
    start, cpu = time.perf_counter(), time.process_time()
    for path in files["json"]:
        json.loads(path.read_text(encoding="utf-8"))
    for path in files["yaml"]:
        load_yaml(path.read_text(encoding="utf-8"))
    for path in files["text"]:
        path.read_text(encoding="utf-8")
    return time.perf_counter() - start, time.process_time() - cpu


def audit_once(root: Path) -> tuple[float, float, dict[str, int]]:
    """Wall and CPU seconds of one ``rocetune.api.audit`` of the inventory, and its summary."""
    from rocetune import api

    start, cpu = time.perf_counter(), time.process_time()
    result = api.audit(root / "inventory.yaml")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    summary = result.summary()
    summary["devices_with_errors"] = sum(1 for s in result.devices.values() if s.status != "ok")
    summary["input_errors"] = len(result.errors)
    return seconds, cpu, summary


def _child(mode: str, root: Path) -> None:
    if mode == "audit":
        from rocetune import api  # noqa: F401  (import cost is not part of the timing)

        seconds, cpu, summary = audit_once(root)
    else:
        (seconds, cpu), summary = bare_parse(root, yaml_c=mode == "bare-c"), {}
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    row = {"seconds": seconds, "cpu": cpu, "rss_mb": rss_kb / 1024, "summary": summary}
    print(json.dumps(row))


def measure(mode: str, root: Path, repeat: int) -> dict[str, Any]:
    """Median seconds and max peak RSS of ``repeat`` child runs of ``mode``."""
    runs = []
    for _ in range(repeat):
        proc = subprocess.run(
            [sys.executable, __file__, "--child", mode, str(root)],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "cpu": statistics.median(r["cpu"] for r in runs),
        "all": [round(r["cpu"], 2) for r in runs],
        "rss_mb": max(r["rss_mb"] for r in runs),
        "summary": runs[-1]["summary"],
    }


def run_size(workdir: Path, scale: float, repeat: int, hosts: bool | None) -> dict[str, Any]:
    """Generate one size and measure it."""
    from benchmarks.fabricgen import generate

    root = workdir / f"scale-{scale:g}"
    gen = generate(root, scale, hosts)
    size = sum(p.stat().st_size for paths in files_of(root).values() for p in paths)
    out: dict[str, Any] = {
        "scale": scale,
        "switches": gen.switches,
        "switch_ports": gen.switch_ports,
        "nic_ports": gen.nic_ports,
        "links": gen.links,
        "hosts": gen.hosts,
        "mbytes": size / 1e6,
        "bare": measure("bare", root, repeat),
        "audit": measure("audit", root, repeat),
    }
    try:
        out["bare_c"] = measure("bare-c", root, 1)
    except subprocess.CalledProcessError:
        out["bare_c"] = None
    return out


def report(sizes: list[dict[str, Any]]) -> None:
    """Print the numbers (ratios from CPU seconds: the runs are single-threaded, and CPU
    time does not change when other work shares the machine)."""
    for s in sizes:
        bare, audit = s["bare"]["cpu"], s["audit"]["cpu"]
        hosts = f"{s['nic_ports']} NIC ports" if s["hosts"] else "no hosts (no linux_host)"
        print(
            f"scale {s['scale']:g}: {s['switches']} switches x 64 ports, {hosts},"
            f" {s['links']} links, {s['mbytes']:.1f} MB"
        )
        for label, key in (("bare parse", "bare"), ("audit", "audit")):
            m = s[key]
            print(
                f"  {label:<11} {m['cpu']:8.2f} s CPU (wall {m['seconds']:.2f} s)"
                f"  CPU runs {m['all']}  peak RSS {m['rss_mb']:.0f} MB"
            )
        print(f"  findings {s['audit']['summary']}")
        print(f"  audit / bare parse = {audit / bare:.2f}  (target <= 3)")
        if s.get("bare_c"):
            print(f"  (YAML with PyYAML's C loader instead: {s['bare_c']['cpu']:.2f} s CPU)")
    if len(sizes) == 2:
        growth = sizes[1]["audit"]["cpu"] / sizes[0]["audit"]["cpu"]
        bare_growth = sizes[1]["bare"]["cpu"] / sizes[0]["bare"]["cpu"]
        print(f"4x size: audit time x{growth:.2f} (target <= 4.4), bare parse x{bare_growth:.2f}")


def profile(root: Path, out: Path) -> None:
    """Run one audit under cProfile; write the stats and print the top entries."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    audit_once(root)
    prof.disable()
    prof.dump_stats(str(out))
    pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


def main(argv: list[str] | None = None) -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="size factor (1.0 = 1000 switches)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    ap.add_argument("--workdir", type=Path, help="where to write the fabric (default: a temp dir)")
    ap.add_argument("--no-hosts", action="store_true", help="generate switches only")
    ap.add_argument("--no-growth", action="store_true", help="skip the 4x size")
    ap.add_argument("--profile", type=Path, help="cProfile one audit at --scale into this file")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "ROOT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child[0], Path(args.child[1]))
        return
    hosts = False if args.no_hosts else None
    with tempfile.TemporaryDirectory(prefix="rocetune-scale-") as tmp:
        workdir = args.workdir or Path(tmp)
        if args.profile:
            from benchmarks.fabricgen import generate

            generate(workdir / "profile", args.scale, hosts)
            profile(workdir / "profile", args.profile)
            return
        scales = [args.scale] if args.no_growth else [args.scale, 4 * args.scale]
        report([run_size(workdir, s, args.repeat, hosts) for s in scales])


if __name__ == "__main__":
    main()
