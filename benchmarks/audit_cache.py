"""Cached re-audit benchmark: a host-heavy fleet audited cold, then again with a share changed.

Usage::

    python benchmarks/audit_cache.py                         # 10,000 hosts x 2 NICs + 500 switches
    python benchmarks/audit_cache.py --hosts 1000 --scale 0.05 --changed 0.01

The fleet: the switches of ``benchmarks/fabricgen.py`` at ``--scale`` (0.5 = 100 spines and
400 leaves, SONiC and Cumulus, with their links) plus ``--hosts`` Linux hosts with two
ConnectX ports each (``fabricgen.write_host`` snapshot directories; the hosts have no
declared links). Every run is ``rocetune audit INVENTORY --format FORMAT`` (``--format``,
default text: the default CLI, with its ``fix:`` lines) in a fresh process
(interpreter start and imports included), each with its own measurement:

- ``no cache``: ``--no-cache`` (what every audit cost before the cache; parsing pooled);
- ``cold, 1 process``: an empty cache directory, ``--processes 1`` (parse everything in
  one process, write every entry and the check records);
- ``cold, pooled``: an empty cache directory, the default process pool (misses parsed by
  one worker per CPU);
- ``warm``: nothing changed since ``cold, pooled`` (every device from the cache);
- ``changed``: ``--changed`` of the devices (hosts and switches alike, spread evenly) had
  one file edited since the last run (a line appended), the others from the cache;
  ``--rounds`` times (each round appends another line to the same files), the median
  printed too: this machine's speed drifts by a third from one minute to the next.

Printed per run: wall seconds, CPU seconds (the process and its pool workers) and peak RSS
of the process, the cache's parse entries, and ``probe``: the seconds of a fixed Python
loop run just before it (the machine's speed at that minute); the reports of every run
must equal the ``no cache`` run's of the same files (checked).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NICS = ("eth2", "eth3")


def generate(root: Path, scale: float, hosts: int) -> list[Path]:
    """Write the fleet under ``root``; return one file per device (the file an edit touches)."""
    from benchmarks.fabricgen import generate as switches
    from benchmarks.fabricgen import write_host

    gen = switches(root, scale, hosts=False)
    text = gen.inventory.read_text(encoding="utf-8")
    head, _, links = text.partition("links:\n")
    lines = [head.rstrip("\n")]
    edits = [p for paths in (gen.files["json"], gen.files["yaml"]) for p in paths]
    edits = [p for p in edits if p != gen.inventory]
    for h in range(hosts):
        name = f"host{h:05d}"
        files = write_host(root / "hosts" / name, name, list(NICS), None)
        edits.append(next(f for f in files if f.name.startswith("mlnx_qos")))
        lines.append(
            f"  {name}: {{platform: linux_host, role: host, snapshot: hosts/{name},"
            f" nics: [{', '.join(NICS)}]}}"
        )
    gen.inventory.write_text("\n".join(lines) + "\nlinks:\n" + links, encoding="utf-8")
    return edits


def probe() -> float:
    """Seconds of a fixed pure-Python loop in this process, just before a run: how fast the
    machine is at that minute (the same audit's wall time follows it)."""
    start = time.perf_counter()
    total = 0
    for i in range(2_000_000):
        total += i * i
    return time.perf_counter() - start


def run(inventory: Path, out: Path, fmt: str, *args: str) -> dict[str, float]:
    """One ``rocetune audit`` in a fresh process: wall, CPU and peak RSS (of that process)."""
    argv = [sys.executable, "-m", "rocetune", "audit", str(inventory), "--format", fmt]
    speed = probe()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*argv, "-o", str(out), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"audit failed ({code}): {err[-2000:].decode(errors='replace')}")
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "rss_mb": usage.ru_maxrss / 1024, "probe": speed}


def entries(cache: Path) -> int:
    """Parse cache entries (not the check records' pack)."""
    return sum(1 for _ in cache.glob("*/??/*.json"))


def prepare(work: Path, args: argparse.Namespace) -> list[Path]:
    """The fleet in ``work/fleet`` (generated, or reused with ``--reuse``); its edit files."""
    root = work / "fleet"
    if args.reuse and (root / "inventory.yaml").exists():
        return [Path(p) for p in (work / "edits.txt").read_text().splitlines()]
    shutil.rmtree(root, ignore_errors=True)
    files = generate(root, args.scale, args.hosts)
    (work / "edits.txt").write_text("\n".join(map(str, files)) + "\n")
    time.sleep(3)  # older than the parse cache's racy window (rocetune.statindex)
    return files


def edit(files: list[Path], share: float, salt: int) -> int:
    """Append a line to ``share`` of ``files`` (evenly spread); the number edited."""
    count = max(1, round(len(files) * share))
    step = len(files) / count
    for i in range(count):
        path = files[int(i * step)]
        extra = f"\n# edit {salt}\n" if path.suffix == ".yaml" else f"\n{salt}\n"
        if path.suffix == ".json":  # keep the document valid: whitespace after it
            extra = " " * (salt + 1) + "\n"
        path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return count


def report(
    rows: list[tuple[str, dict[str, float], int]], checks: list[tuple[str, str]], work: Path
) -> None:
    """Print the table and the median changed run; check the reports equal the uncached ones."""
    head = f"{'run':<20} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12} {'entries':>8}"
    print(f"\n{head} {'probe s':>8}")
    for name, got, count in rows:
        print(
            f"{name:<20} {got['wall']:>8.2f} {got['cpu']:>8.2f} {got['rss_mb']:>12.0f} {count:>8}"
            f" {got['probe']:>8.3f}"
        )
    changed = [got["wall"] for name, got, _ in rows if name.startswith("changed")]
    print(f"changed runs: median {statistics.median(changed):.2f} s wall of {len(changed)}")
    for plain, cached in checks:
        same = (work / plain).read_bytes() == (work / cached).read_bytes()
        print(f"{plain} == {cached}: {same}")
        if not same:
            raise SystemExit(1)


def main() -> None:
    """Generate, run the audits, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=10_000)
    ap.add_argument("--scale", type=float, default=0.5, help="switch tiers (0.5 = 500 switches)")
    ap.add_argument("--changed", type=float, default=0.01, help="share of devices edited")
    ap.add_argument("--rounds", type=int, default=3, help="changed runs (median printed)")
    ap.add_argument("--format", default="text", help="report format (default: text)")
    ap.add_argument("--workdir", type=Path, help="where to write (default: a temp dir)")
    ap.add_argument("--skip-no-cache", action="store_true", help="skip the --no-cache runs")
    ap.add_argument("--skip-cold-1", action="store_true", help="skip the one-process cold run")
    ap.add_argument(
        "--reuse", action="store_true", help="reuse the fleet already in --workdir (no generation)"
    )
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="rocetune-bench-cache-"))
    try:
        for old in ("cache", "cache1", "cache2"):
            shutil.rmtree(work / old, ignore_errors=True)
        t0 = time.perf_counter()
        inventory = work / "fleet" / "inventory.yaml"
        files = prepare(work, args)
        print(
            f"{len(files)} devices ({args.hosts} hosts x {len(NICS)} NICs,"
            f" {len(files) - args.hosts} switches) ready in"
            f" {time.perf_counter() - t0:.0f} s",
            flush=True,
        )
        rows: list[tuple[str, dict[str, float], int]] = []
        cache1, cache2 = work / "cache1", work / "cache2"
        checks: list[tuple[str, str]] = []

        def row(name: str, out: str, cache: Path | None, *extra: str) -> None:
            opts = ("--cache-dir", str(cache)) if cache is not None else ("--no-cache",)
            got = run(inventory, work / out, args.format, *opts, *extra)
            rows.append((name, got, entries(cache) if cache is not None else 0))
            print(f"{name}: {got}", flush=True)

        if not args.skip_no_cache:
            row("no cache", "plain.json", None)
            checks.append(("plain.json", "warm.json"))
        if not args.skip_cold_1:
            row("cold, 1 process", "cold1.json", cache1, "--processes", "1")
        row("cold, pooled", "cold.json", cache2)
        row("warm", "warm.json", cache2)
        for salt in range(1, max(1, args.rounds) + 1):
            n = edit(files, args.changed, salt)
            time.sleep(3)
            row(f"changed {n} #{salt}", "changed.json", cache2)
        if not args.skip_no_cache:
            row("no cache, changed", "plain-changed.json", None)
            checks.append(("plain-changed.json", "changed.json"))
        report(rows, checks, work)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
