"""CLI start-up benchmark: the README's first command (the lab audit) cold and warm, and ``--help``.

Usage::

    python benchmarks/cli_startup.py               # 10 rounds
    python benchmarks/cli_startup.py --rounds 20
    python benchmarks/cli_startup.py --tree ../main   # another checkout's code, same Python

Every run is a fresh ``python -m rocetune ...`` process (interpreter start, imports, work),
run from a temporary directory holding a copy of ``inventories/lab`` so the report's paths
are the README's. The rows, run round-robin (one of each per round, so a load change hits
every row alike):

- ``--help``: ``rocetune --help``;
- ``audit --no-cache``: ``rocetune audit inventories/lab/inventory.yaml --no-cache``
  (neither reads nor writes the cache);
- ``audit first run``: the same command with an empty cache directory (a user's first run:
  everything parsed, checked and planned, and the cache written);
- ``audit warm``: the same command again on that cache, nothing changed;
- ``audit one edited``: one snapshot file (``configs/leaf4.yaml``) had a comment line
  appended since the warm run, the same cache.

Files are older than 2 s when read (:data:`RACY`), as after a hand edit.

Printed per row: the median, min and max of wall seconds and the median CPU seconds
(user + sys of the process, from ``RUSAGE_CHILDREN``). Every audit report must equal the
``--no-cache`` run's (checked). Byte code is written once before the timed runs (a warm-up
round, not timed), as ``pip install`` does: ``PYTHONDONTWRITEBYTECODE`` is removed from the
children's environment (with it, every run compiles every module again).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INVENTORY = "inventories/lab/inventory.yaml"
EDITED = "inventories/lab/configs/leaf4.yaml"
RACY = 2.5
"""Seconds to wait after writing a file: a file modified within 2 s of a read is hashed
again on the next run (rocetune.statindex), which a user editing by hand never sees."""


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, bytes]:
    """One fresh process: wall seconds, CPU seconds (user + sys), stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "rocetune", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        tail = proc.stderr[-2000:].decode(errors="replace")
        raise SystemExit(f"rocetune {' '.join(argv)} failed ({proc.returncode}): {tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def main() -> None:
    """Copy the lab, run the rows round-robin, print the table."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10, help="timed runs per row (default 10)")
    ap.add_argument(
        "--tree", type=Path, default=ROOT, help="the rocetune checkout to run (default: this one)"
    )
    args = ap.parse_args()
    tree = args.tree.resolve()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    work = Path(tempfile.mkdtemp(prefix="rocetune-bench-cli-"))
    try:
        shutil.copytree(tree / "inventories" / "lab", work / "inventories" / "lab")
        edited = work / EDITED
        time.sleep(RACY)
        audit = ["audit", INVENTORY]
        times: dict[str, list[tuple[float, float]]] = {}
        reports: list[tuple[str, bytes]] = []

        def row(name: str, argv: list[str], timed: bool) -> bytes:
            wall, cpu, out = run(argv, work, env)
            if timed:
                times.setdefault(name, []).append((wall, cpu))
            return out

        for round_ in range(args.rounds + 1):
            timed = round_ > 0  # round 0 writes byte code and warms the OS caches
            cache = work / f"cache{round_}"
            row("--help", ["--help"], timed)
            plain = row("audit --no-cache", [*audit, "--no-cache"], timed)
            opts = ["--cache-dir", str(cache)]
            reports.append(("audit first run", row("audit first run", [*audit, *opts], timed)))
            reports.append(("audit warm", row("audit warm", [*audit, *opts], timed)))
            edited.write_text(edited.read_text(encoding="utf-8") + f"# edit {round_}\n")
            time.sleep(RACY)
            reports.append(("audit one edited", row("audit one edited", [*audit, *opts], timed)))
            for name, out in reports:
                if out != plain:
                    raise SystemExit(f"{name}: the report differs from the --no-cache run's")
            reports.clear()
            shutil.rmtree(cache, ignore_errors=True)
        print(f"{'run':<18} {'wall median':>12} {'min':>7} {'max':>7} {'CPU median':>11}")
        for name, got in times.items():
            walls = [w for w, _ in got]
            cpus = [c for _, c in got]
            print(
                f"{name:<18} {statistics.median(walls):>12.3f} {min(walls):>7.3f}"
                f" {max(walls):>7.3f} {statistics.median(cpus):>11.3f}"
            )
        print(f"({args.rounds} runs each; {tree}; {sys.executable})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
