"""Peak memory of `rocetune collect` against a flooding peer, relative to the output cap.

Usage::

    python benchmarks/collect_flood.py --flood-mib 200 --cap-mib 64
    python benchmarks/collect_flood.py --flood-mib 0        # the same devices without flood

The lab's hostile peers (tests/lab/conftest.py ``HOSTILE``: a Linux host over exec channels,
SONiC and EOS over interactive netmiko sessions) flood one command with 64 KiB lines. Each
device is collected by its own `rocetune collect --processes 1` process; printed per device:
that process's peak RSS (ru_maxrss), CPU and wall seconds, and what was kept of the flooded
output (status, bytes written).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEVICES = ("h-flood-host", "h-flood-switch", "h-flood-eos")

_CHILD = """
import resource, sys, time
from rocetune.cli import cli
start = time.monotonic()
try:
    cli.main(args=sys.argv[1:], prog_name="rocetune")
except SystemExit:
    pass
r = resource.getrusage(resource.RUSAGE_SELF)
print(f"rss_mb={r.ru_maxrss / 1024:.0f} cpu_s={r.ru_utime + r.ru_stime:.2f} "
      f"wall_s={time.monotonic() - start:.1f}", file=sys.stderr)
"""


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood-mib", type=int, default=200)
    parser.add_argument("--cap-mib", type=int, default=64)
    parser.add_argument("--devices", default=",".join(DEVICES))
    args = parser.parse_args()
    from tests.lab.conftest import HOSTILE
    from tests.lab.lab import lab_env, start_lab

    names = args.devices.split(",")
    work = Path(tempfile.mkdtemp(prefix="rocetune-bench-flood-"))
    lab = start_lab({n: {**HOSTILE[n], "flood_mib": args.flood_mib} for n in names}, work / "lab")
    try:
        devices = {}
        for name in names:
            entry = {
                "host": "127.0.0.1",
                "port": lab.ports[name],
                "platform": HOSTILE[name]["platform"],
            }
            if entry["platform"] == "linux_host":
                entry.update(role="host", nics=["eth2", "eth3"])
            devices[name] = entry
        inventory = work / "inventory.json"
        inventory.write_text(json.dumps({"devices": devices}), encoding="utf-8")
        print(f"flood {args.flood_mib} MiB, cap {args.cap_mib} MiB")
        for name in names:
            out = work / f"out-{name}"
            argv = [sys.executable, "-c", _CHILD, "collect", str(inventory), "-o", str(out)]
            argv += ["--device", name, "--insecure-host-keys", "--processes", "1"]
            argv += ["--max-output-mib", str(args.cap_mib), "--read-timeout", "300"]
            res = subprocess.run(
                argv, check=False, cwd=ROOT, env=lab_env(), capture_output=True, text=True
            )
            stats = [ln for ln in res.stderr.splitlines() if ln.startswith("rss_mb=")]
            meta_file = out / name / "meta.json"
            kept = "not collected"
            if meta_file.is_file():
                meta = json.loads(meta_file.read_text(encoding="utf-8"))
                cut = [c for c in meta["commands"] if c["status"] == "truncated"]
                kept = (
                    ", ".join(
                        f"{c['command']!r} truncated, {(out / name / c['file']).stat().st_size} B"
                        for c in cut
                    )
                    or "nothing truncated"
                )
            print(f"{name:<16} {stats[0] if stats else res.stderr[-300:]}  {kept}")
    finally:
        lab.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
