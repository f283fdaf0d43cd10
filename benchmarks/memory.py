"""Memory per port and the worst inputs: what parsing and checking one device costs.

Usage (from the repository root)::

    python benchmarks/memory.py                 # 64, 256, 1024 ports per platform
    python benchmarks/memory.py --ports 64,512

Per platform and size (``--platforms``, ``--ports``), in a fresh child process: SONiC
``config_db.json`` and Cumulus NVUE YAML from benchmarks/fabricgen.py (all ports admin down,
no peers), EOS and NX-OS running configs made from the lab's spine1/spine2 (their global QoS
as is, ``N`` routed RoCE interfaces like their four, so the lab's findings per port too);
then the two lab configs themselves (fixed per-device overhead dominates there):

- ``config``: bytes of the config file;
- ``peak``: the peak of Python allocations (tracemalloc) while ``rocetune.api.lint`` (what
  ``rocetune lint FILE`` runs) reads, parses and checks it, over the allocations before
  (imports and the file text excluded);
- ``kept``: what the result (parsed device, findings) still holds afterwards (after a
  ``gc.collect()``, so objects parked in the interpreter's free lists are not counted);
- ``peak/config`` (issue 18 target: <= 10) and ``kept`` per port;
- ``rss``: the child's peak RSS (includes the interpreter and imports: ~70-90 MB).
- with ``--warm``, a copy of the file is linted first, so one-time set-up (the rule registry,
  lazy caches built on first use) is not counted as memory of the config.

Then the worst inputs of the hardening suite (tests/hardening), each at two sizes four times
apart: files of lines no parser understands (every one becomes an RT001 item), NVUE YAML with
thousands of anchors and aliases, and a config_db.json nested 5,000 levels deep: seconds and
peak RSS each, in a child with a 2 GiB address-space limit. Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, resource, sys, time, tracemalloc
from pathlib import Path
sys.path.insert(0, {root!r})
from rocetune import api  # imports before the measurement
import rocetune.checks, rocetune.engine, rocetune.load, rocetune.platforms
for driver in rocetune.platforms.drivers().values():
    __import__(type(driver).__module__)
import rocetune.yamlc
rocetune.yamlc.available()  # imports PyYAML/libyaml before the measurement too
path, platform = Path({path!r}), {platform!r}
text = path.read_text(encoding="utf-8")
if {warm!r}:  # one-time set-up (rule registry, lazy caches) out of the measurement: lint
    import tempfile  # a copy first (one byte more, so a parse cache would miss it too)
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / path.name
        warm.write_text(text + "\n", encoding="utf-8")
        api.lint([warm], platform)
tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
start = time.perf_counter()
result = api.lint([path], platform)
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
import gc  # free lists emptied: "kept" is what the result holds, not recycled objects
gc.collect()
kept = tracemalloc.get_traced_memory()[0]
tracemalloc.stop()
ports = sum(len(d.ports) for d in result.fabric.devices.values())
print(json.dumps({{
    "bytes": len(text.encode()), "peak": peak - base, "kept": kept - base, "ports": ports,
    "findings": len(result.findings), "seconds": seconds, "error": None,
    "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
}}))
"""


def _child(
    path: Path, platform: str | None, limit_gib: float = 2.0, warm: bool = False
) -> dict[str, object]:
    code = CHILD.format(root=str(ROOT), path=str(path), platform=platform, warm=warm)

    def limit() -> None:
        cap = int(limit_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=900,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"exit {done.returncode}: {tail}", "wall": wall}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    return result


def _lab_config(name: str) -> list[str]:
    path = ROOT / "inventories" / "lab" / "snapshots" / name / "show_running_config.txt"
    return path.read_text(encoding="utf-8").splitlines()


def _lab_without_ports(lines: list[str], ethernet: str) -> tuple[list[str], list[str]]:
    """(lines before the first Ethernet interface, lines after the last one)."""
    starts = [i for i, line in enumerate(lines) if line.startswith(ethernet)]
    end = starts[-1] + 1
    while end < len(lines) and (lines[end].startswith(" ") or lines[end] in ("!", "")):
        end += 1
    return lines[: starts[0]], lines[end:]


def eos_config(ports: int) -> str:
    """spine1 of the lab (EOS 7060DX5) with ``ports`` routed RoCE ports like its four."""
    head, tail = _lab_without_ports(_lab_config("spine1"), "interface Ethernet")
    body: list[str] = []
    for p in range(ports):
        body += [
            f"interface Ethernet{p + 1}/1",
            f"   description leaf{p + 1}_Ethernet0",
            "   mtu 9214",
            "   speed 400g-8",
            "   no switchport",
            f"   ip address 10.{p // 128}.{2 * p % 256}.0/31",
            "   service-profile ROCE_FABRIC",
            "!",
        ]
    return "\n".join(head + body + tail) + "\n"


def nxos_config(ports: int) -> str:
    """spine2 of the lab (NX-OS 9300) with ``ports`` routed RoCE ports like its four."""
    head, tail = _lab_without_ports(_lab_config("spine2"), "interface Ethernet")
    body: list[str] = []
    for p in range(ports):
        body += [
            f"interface Ethernet1/{p + 1}",
            f"  description leaf{p + 1}:Ethernet8",
            "  mtu 9214",
            "  priority-flow-control mode on",
            "  service-policy type qos input QOS_CLASSIFICATION",
            "  no switchport",
            f"  ip address 10.{p // 128}.{2 * p % 256}.0/31",
            "  no shutdown",
            "",
        ]
    return "\n".join(head + body + tail) + "\n"


PLATFORMS = ("sonic", "cumulus", "eos", "nxos")


def _generated(directory: Path, platform: str, ports: int) -> Path:
    from benchmarks import fabricgen

    fabricgen.PORTS = ports  # the generators read the module constant
    if platform == "sonic":
        path, text = directory / f"sonic_{ports}.json", fabricgen.sonic_config("dut", {})
    elif platform == "cumulus":
        path, text = directory / f"cumulus_{ports}.yaml", fabricgen.cumulus_config("dut", {})
    elif platform == "eos":
        path, text = directory / f"eos_{ports}.txt", eos_config(ports)
    else:
        path, text = directory / f"nxos_{ports}.txt", nxos_config(ports)
    path.write_text(text, encoding="utf-8")
    return path


def _unread(directory: Path, mib: int) -> Path:
    path = directory / f"unread_{mib}.txt"
    line = "hardware access-list resource pool 17 block 3 profile roce-%d\n"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(mib * 2**20 // len(line)):
            fh.write(line % i)
    return path


def _aliases(directory: Path, count: int) -> Path:
    path = directory / f"aliases_{count}.yaml"
    body = ["- header:", "    rev-id: 1.0", "- set:", "    interface:"]
    for i in range(count // 2):
        body.append(f"      swp{i + 1}:")
        body.append(f"        description: &d{i} port-{i}")
        body.append(f"        type: *d{max(0, i - 1)}")
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return path


def _worst(directory: Path) -> dict[str, tuple[Path, str | None]]:
    """The worst inputs, each at two sizes (x4) so the growth shows."""
    deep = directory / "deep.json"
    deep.write_text('{"PORT": ' + "[" * 5000 + "]" * 5000 + "}\n", encoding="utf-8")
    return {
        "2 MiB of unread lines (nxos)": (_unread(directory, 2), "nxos"),
        "8 MiB of unread lines (nxos)": (_unread(directory, 8), "nxos"),
        "NVUE YAML, 5,000 anchors/aliases": (_aliases(directory, 5_000), "cumulus"),
        "NVUE YAML, 20,000 anchors/aliases": (_aliases(directory, 20_000), "cumulus"),
        "config_db.json nested 5,000 deep": (deep, "sonic"),
    }


def _row(name: str, got: dict[str, object]) -> str:
    if got.get("error"):
        return f"{name:<36} {'':>10} {'':>10} {'':>8} {'':>8} {got['wall']:>7.2f}s  {got['error']}"
    size, peak, kept = int(got["bytes"]), int(got["peak"]), int(got["kept"])  # type: ignore[call-overload]
    ports = int(got["ports"]) or 1  # type: ignore[call-overload]
    return (
        f"{name:<36} {size / 1024:>9.0f}K {peak / 1024:>9.0f}K {peak / size:>8.2f}"
        f" {kept / ports / 1024:>7.1f}K {got['seconds']:>7.2f}s {int(got['rss_kib']) // 1024:>5} MB"  # type: ignore[call-overload]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ports", default="64,256,1024")
    parser.add_argument("--platforms", default=",".join(PLATFORMS))
    parser.add_argument("--no-worst", action="store_true")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="lint a copy once before measuring (one-time set-up not counted per config)",
    )
    args = parser.parse_args(argv)
    sizes = [int(p) for p in args.ports.split(",")]
    names = ("config", "peak", "pk/cfg", "kept/pt", "parse", "rss")
    widths = (10, 10, 8, 8, 8, 8)
    print(f"{'input':<36} " + " ".join(f"{n:>{w}}" for n, w in zip(names, widths, strict=True)))
    with tempfile.TemporaryDirectory(prefix="rocetune-mem-") as tmp:
        directory = Path(tmp)
        for platform in args.platforms.split(","):
            for ports in sizes:
                path = _generated(directory, platform, ports)
                print(
                    _row(f"{platform} {ports} ports", _child(path, platform, warm=args.warm)),
                    flush=True,
                )
        lab = ROOT / "inventories" / "lab" / "snapshots"
        for platform, name in (("nxos", "spine2"), ("eos", "spine1")):
            config = lab / name / "show_running_config.txt"
            print(_row(f"{platform} lab {name}", _child(config, platform, warm=args.warm)))
        if not args.no_worst:
            print("\nworst inputs (2 GiB address-space limit):")
            for name, (path, platform) in _worst(directory).items():
                print(_row(name, _child(path, platform)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
