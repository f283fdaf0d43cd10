"""CLI start-up benchmark: the README's first command (the lab audit) cold and warm, and ``--help``.

Usage::

    python benchmarks/cli_startup.py               # 10 rounds
    python benchmarks/cli_startup.py --rounds 20
    python benchmarks/cli_startup.py --tree OLD --tree .   # A/B: two checkouts, interleaved

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
  appended since the warm run, the same cache;
- ``audit fresh copy``: the lab replaced by a copy of itself (every file new: inode, times),
  as after a fresh checkout with the cache restored (CI), the same cache.

Files are older than 2 s when read (:data:`RACY`), as after a hand edit. With several
``--tree`` (checkouts run with the same Python, their code first on ``PYTHONPATH``), each
round runs every row of every tree in turn, so the baseline is measured in the same run; the
ratio column is the CPU median over the first tree's.

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


Times = dict[str, list[tuple[float, float]]]


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


class Tree:
    """One checkout under test: its environment and its copy of the lab."""

    def __init__(self, path: Path, work: Path) -> None:
        self.path = path
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(path), self.env.get("PYTHONPATH")])
        )
        self.work = work
        shutil.copytree(path / "inventories" / "lab", work / "inventories" / "lab")
        self.times: Times = {}

    def row(self, name: str, argv: list[str], timed: bool) -> bytes:
        """Run one row; keep its times when ``timed``."""
        wall, cpu, out = run(argv, self.work, self.env)
        if timed:
            self.times.setdefault(name, []).append((wall, cpu))
        return out

    def round(self, number: int, timed: bool) -> None:
        """Every row once; the audit reports must equal the ``--no-cache`` run's."""
        audit = ["audit", INVENTORY]
        cache = self.work / f"cache{number}"
        self.row("--help", ["--help"], timed)
        plain = self.row("audit --no-cache", [*audit, "--no-cache"], timed)
        opts = ["--cache-dir", str(cache)]
        reports = [("audit first run", self.row("audit first run", [*audit, *opts], timed))]
        reports.append(("audit warm", self.row("audit warm", [*audit, *opts], timed)))
        edited = self.work / EDITED
        edited.write_text(edited.read_text(encoding="utf-8") + f"# edit {number}\n")
        time.sleep(RACY)
        reports.append(("audit one edited", self.row("audit one edited", [*audit, *opts], timed)))
        lab = self.work / "inventories" / "lab"
        copy = self.work / "lab-copy"
        shutil.copytree(lab, copy, copy_function=shutil.copy)  # new inodes and times
        shutil.rmtree(lab)
        copy.rename(lab)
        time.sleep(RACY)
        reports.append(("audit fresh copy", self.row("audit fresh copy", [*audit, *opts], timed)))
        for name, out in reports:
            if out != plain:
                raise SystemExit(
                    f"{self.path}: {name}: the report differs from the --no-cache run's"
                )
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    """Copy the lab per tree, run the rows round-robin, print the tables."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10, help="timed runs per row (default 10)")
    ap.add_argument(
        "--tree",
        type=Path,
        action="append",
        help="a rocetune checkout to run (repeat for an A/B; default: this one)",
    )
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rocetune-bench-cli-"))
    try:
        paths = [p.resolve() for p in args.tree or [ROOT]]
        trees = [Tree(path, work / str(i)) for i, path in enumerate(paths)]
        time.sleep(RACY)
        for number in range(args.rounds + 1):
            for tree in trees:  # round 0 writes byte code and warms the OS caches
                tree.round(number, timed=number > 0)
        base = trees[0].times
        for tree in trees:
            print(f"\n{tree.path} ({args.rounds} runs each, {sys.executable})")
            head = f"{'wall median':>12} {'min':>7} {'max':>7} {'CPU median':>11} {'ratio':>6}"
            print(f"{'run':<18} {head}")
            for name, got in tree.times.items():
                walls = [w for w, _ in got]
                cpu = statistics.median(c for _, c in got)
                ratio = cpu / statistics.median(c for _, c in base[name])
                print(
                    f"{name:<18} {statistics.median(walls):>12.3f} {min(walls):>7.3f}"
                    f" {max(walls):>7.3f} {cpu:>11.3f} {ratio:>6.2f}"
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
