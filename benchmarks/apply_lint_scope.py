"""What one apply audit-gate lint costs above 64 devices, split vs whole fabric (issue 14).

Usage::

    python benchmarks/apply_lint_scope.py --scale 0.2 --samples 6

Generates the synthetic two-tier fabric of ``fabricgen.py`` (scale 1.0: 1,000 switches and
1,000 hosts), loads it as ``rocetune apply`` does (``LiveFleet``), then for sample devices
(spines, leaves, hosts) times the gate's lint of the device: the split lint (neighbourhood
for the local rules, whole fabric for the fabric-wide ones; what apply runs above 64
devices) as a baseline (the audited model: the fabric-wide run is shared by every device)
and as a re-read (a changed model: its own fabric-wide run), and one whole-fabric lint;
and checks split and whole give the device the same findings (INFO notes aside).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from benchmarks.fabricgen import generate
    from rocetune.api import applying
    from rocetune.api.applying import LiveFleet
    from rocetune.inventory import load_inventory

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.2)
    parser.add_argument("--samples", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gen = generate(Path(tmp), args.scale)
        start = time.perf_counter()
        fleet = LiveFleet(load_inventory(gen.inventory))
        load = time.perf_counter() - start
        devices = fleet.fabric.devices
        print(
            f"scale {args.scale}: {len(devices)} devices, {len(fleet.fabric.links)} links; "
            f"load + audit {load:.1f} s"
        )
        by_role: dict[str, list[str]] = {}
        for name, dev in sorted(devices.items()):
            by_role.setdefault(dev.role or dev.kind, []).append(name)
        picks = [n for names in by_role.values() for n in names[: max(1, args.samples // 3)]]
        split_s = full_s = reread_s = 0.0
        same = 0
        applying.FULL_LINT_MAX = 0
        fleet.lint_model(picks[0], devices[picks[0]], fleet.provenance)  # the shared base run
        for name in picks:
            model = devices[name]
            applying.FULL_LINT_MAX = 0
            t = time.perf_counter()
            split = fleet.lint_model(name, model, fleet.provenance)
            split_s += time.perf_counter() - t
            changed = model.model_copy(update={"facts": {**model.facts, "bench": "re-read"}})
            t = time.perf_counter()
            fleet.lint_model(name, changed, fleet.provenance)
            reread_s += time.perf_counter() - t
            applying.FULL_LINT_MAX = 10**9
            t = time.perf_counter()
            full = fleet.lint_model(name, model, fleet.provenance)
            full_s += time.perf_counter() - t

            def keys(found: list) -> set:  # type: ignore[type-arg]
                return {
                    (f.code, f.device, f.port, f.link, f.severity.value, f.message)
                    for f in found
                    if f.code not in ("RT000", "RT001")
                }

            same += keys(split) == keys(full)
        n = len(picks)
        print(
            f"{n} devices ({', '.join(picks)}): split lint, baseline {split_s / n:.2f} s, "
            f"re-read (device changed) {reread_s / n:.2f} s; whole-fabric lint "
            f"{full_s / n:.2f} s per device; equal findings {same}/{n}"
        )


if __name__ == "__main__":
    main()
