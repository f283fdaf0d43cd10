"""Collection benchmark: rocetune collect vs Nornir + nornir_netmiko vs an asyncssh exec gather.

Usage (needs the ``bench`` extra: nornir, nornir-netmiko, asyncssh, psutil)::

    python benchmarks/collect.py                      # 200 devices (150 hosts, 50 switches)
    python benchmarks/collect.py --devices 40 --latency-ms 50 --repeat 3
    python benchmarks/collect.py --devices 50 --mix switches --clients rocetune,asyncssh

One lab process (tests/lab/server.py) emulates every device on 127.0.0.1 and sleeps
``--latency-ms`` before answering each command. Hosts are ``linux_host`` devices answering
from tests/fixtures/linux_host/gpu01 (2 NICs: the full host command list with follow-ups,
35 commands); switches cycle through SONiC, Cumulus, EOS and NX-OS. Every client runs the
same command list per device, each in a fresh process:

- ``rocetune``: ``rocetune collect`` (default workers; hosts over exec channels, switches over
  rocetune's asyncio shell), host keys verified, outputs redacted and written;
- ``nornir``: Nornir's threaded runner at its default worker count with
  ``netmiko_send_command`` per command (interactive sessions for every device);
- ``asyncssh``: ``asyncio.gather`` over the devices, ``conn.run`` per command: the lower
  bound (no prompt handling, nothing written), at rocetune's concurrency: as many devices at
  a time as rocetune's workers, per connection as many commands at a time as rocetune runs
  (hosts: 8 exec channels, :data:`rocetune.collect.exec_channel.LANES`; switches: one, an
  interactive shell), in rocetune's rounds (hosts: commands, then follow-ups), with
  rocetune's cipher preference (AES-GCM first: asyncssh's default chacha20-poly1305 costs
  about 6x the CPU per packet);
- ``asyncssh_all`` (with ``--clients``): the same with every device connected at once.

With ``--syscalls DIR`` every client process runs under ``strace -f -c`` (its system calls
counted, its threads and children included; times are then not comparable): the summaries
go to ``DIR/<client>-<run>.txt`` and each one's top lines are printed.

Each client runs once untimed first (byte code written as ``pip install`` does, OS caches
warm); ``PYTHONDONTWRITEBYTECODE`` is removed from the children's environment.

Printed per client: median wall time of ``--repeat`` runs (min-max), its CPU time, peak
RSS and context switches (rusage of the client process and its children), the emulator's
CPU during the run, and the ratios. Context switches are the load-robust view of the system
CPU: rocetune's are thread hand-offs (a worker per device, paramiko's transport thread per
connection), the asyncssh bound runs one thread per process.
On a 2-core machine the client and the emulator share the cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOST_NICS = ("eth2", "eth3")
SWITCHES = ("sonic", "cumulus", "eos", "nxos")
NORNIR_TYPES = {
    "sonic": "linux",
    "cumulus": "cumulus_linux",
    "eos": "arista_eos",
    "nxos": "cisco_nxos",
    "linux_host": "linux",
}


def _switch_spec(platform: str) -> dict[str, Any]:
    from tests.lab.lab import FIXTURES, LAB_INVENTORY

    snaps = LAB_INVENTORY.parent / "snapshots"
    if platform == "sonic":
        return {"snapshot": str(snaps / "leaf1")}
    if platform == "cumulus":
        return {"snapshot": str(snaps / "leaf3")}
    if platform == "eos":
        return {"snapshot": str(FIXTURES / "eos" / "roce_spine")}
    nx = FIXTURES / "nxos"
    return {
        "files": {
            "show running-config": str(nx / "roce_spine_running_config.txt"),
            "show interface | json": str(nx / "roce_spine_show_interface.json"),
            "show lldp neighbors detail | json": str(nx / "roce_spine_lldp.json"),
        }
    }


def fleet(n: int, latency_ms: float, mix: str = "mixed") -> dict[str, dict[str, Any]]:
    """Lab devices, all with the same latency: ``mixed`` 3/4 hosts and 1/4 switches
    (rounded), ``hosts`` or ``switches`` only (to see each path's ratio on its own)."""
    from tests.lab.lab import FIXTURES

    n_switches = {"hosts": 0, "switches": n}.get(mix, max(1, n // 4))
    devices: dict[str, dict[str, Any]] = {}
    for i in range(n - n_switches):
        devices[f"h{i:03d}"] = {
            "platform": "linux_host",
            "snapshot": str(FIXTURES / "linux_host" / "gpu01"),
            "latency_ms": latency_ms,
        }
    for i in range(n_switches):
        platform = SWITCHES[i % len(SWITCHES)]
        devices[f"s{i:03d}"] = {
            "platform": platform,
            "latency_ms": latency_ms,
            **_switch_spec(platform),
        }
    return devices


def command_phases(devices: dict[str, dict[str, Any]]) -> dict[str, list[list[str]]]:
    """The commands rocetune sends to each platform, in its rounds: the command list, then
    (hosts) the follow-ups whose arguments come from the first round's outputs."""
    from rocetune.platforms import drivers
    from rocetune.snapshot import read_directory
    from tests.lab.lab import FIXTURES

    out: dict[str, list[list[str]]] = {}
    for platform in {d["platform"] for d in devices.values()}:
        driver = drivers()[platform]
        first = [c.command for c in driver.commands(HOST_NICS if driver.kind == "host" else ())]
        out[platform] = [first]
        if driver.kind == "host":
            snap = read_directory(FIXTURES / "linux_host" / "gpu01")
            out[platform].append([c.command for c in driver.followup_commands(snap)])
    return out


def command_lists(devices: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """The commands rocetune sends to each platform (hosts: with follow-ups)."""
    return {p: [c for phase in got for c in phase] for p, got in command_phases(devices).items()}


def lanes(platform: str) -> int:
    """Commands rocetune runs at the same time on one connection to ``platform``: hosts use
    exec channels (:data:`rocetune.collect.exec_channel.LANES`), switches one interactive
    shell (netmiko: one command at a time)."""
    from rocetune.collect.exec_channel import LANES

    return LANES if platform == "linux_host" else 1


def setup_commands(platform: str) -> list[str]:
    """The terminal set-up commands a shell client sends before the first command (netmiko's
    session preparation for EOS and NX-OS: ``terminal width 511``, ``terminal length 0``).
    The lab answers them after the same latency as any command, so the bound sends them too;
    exec channels (hosts) need none."""
    from tests.lab.profiles import profile_for

    return [] if platform == "linux_host" else list(profile_for(platform).term_cmds)


@dataclass
class Sample:
    """One run of one client."""

    wall: float
    cpu: float
    rss_mb: float
    lab_cpu: float
    ok: int
    sys: float = 0.0
    """System CPU of ``cpu``."""
    switches: int = 0
    """Context switches (voluntary and involuntary, every thread and child): the GIL and
    thread hand-offs behind the system CPU, counted, so less blurred by the machine's
    load than CPU seconds."""


def _measure(argv: list[str], env: dict[str, str], lab_pid: int) -> tuple[Sample, str]:
    import psutil

    lab = psutil.Process(lab_pid)
    before = sum(lab.cpu_times()[:2])
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    lab_cpu = sum(lab.cpu_times()[:2]) - before
    stats = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    sample = Sample(
        wall,
        stats.get("cpu", 0.0),
        stats.get("rss_mb", 0.0),
        lab_cpu,
        stats.get("ok", 0),
        stats.get("sys", 0.0),
        stats.get("switches", 0),
    )
    return sample, err


def _child_stats(ok: int) -> None:
    import resource

    self_usage = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    user = self_usage.ru_utime + kids.ru_utime
    system = self_usage.ru_stime + kids.ru_stime
    rss = max(self_usage.ru_maxrss, kids.ru_maxrss) / 1024
    switches = sum(u.ru_nvcsw + u.ru_nivcsw for u in (self_usage, kids))
    stats = {
        "cpu": round(user + system, 3),
        "sys": round(system, 3),
        "rss_mb": round(rss, 1),
        "switches": switches,
    }
    print(json.dumps({**stats, "ok": ok}))


# --- the clients (run as `collect.py --child <client> <spec.json>`) ---------------------


def child_rocetune(spec: dict[str, Any]) -> None:
    from rocetune.cli import cli

    out = Path(spec["out"])  # new and empty (see _fresh_output)
    args = ["collect", spec["inventory"], "-o", str(out), "--known-hosts", spec["known_hosts"]]
    args += spec["rocetune_args"]
    with contextlib.suppress(SystemExit):
        cli.main(args=args, prog_name="rocetune", standalone_mode=False)
    ok = sum(1 for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))
    _child_stats(ok)


def child_nornir(spec: dict[str, Any]) -> None:
    from nornir.core import Nornir
    from nornir.core.inventory import ConnectionOptions, Defaults, Groups, Host, Hosts, Inventory
    from nornir.core.plugins.connections import ConnectionPluginRegister
    from nornir.core.task import Task
    from nornir.plugins.runners import ThreadedRunner
    from nornir_netmiko.tasks import netmiko_send_command

    ConnectionPluginRegister.auto_register()
    defaults = Defaults()
    hosts = Hosts()
    for name, dev in spec["devices"].items():
        options = {"netmiko": ConnectionOptions(platform=NORNIR_TYPES[dev["platform"]])}
        hosts[name] = Host(
            name,
            hostname="127.0.0.1",
            port=dev["port"],
            username=spec["user"],
            password=spec["password"],
            platform=NORNIR_TYPES[dev["platform"]],
            connection_options=options,
            data={"commands": spec["commands"][dev["platform"]]},
            defaults=defaults,
        )
    nr = Nornir(
        inventory=Inventory(hosts=hosts, groups=Groups(), defaults=defaults),
        runner=ThreadedRunner(),
    )

    def task(t: Task) -> None:
        for command in t.host["commands"]:
            t.run(task=netmiko_send_command, command_string=command)

    result = nr.run(task=task)
    nr.close_connections()
    _child_stats(sum(1 for r in result.values() if not r.failed))


def child_asyncssh_all(spec: dict[str, Any]) -> None:
    """The asyncssh bound with every device connected at once (more than rocetune's workers),
    in one process."""
    child_asyncssh({**spec, "workers": len(spec["devices"]), "processes": 1})


def _asyncssh_devices(spec: dict[str, Any], names: list[str], workers: int) -> int:
    """One process of the bound: ``names`` collected with ``workers`` devices at a time."""
    import asyncio

    import asyncssh

    from rocetune.collect import shell_batch
    from rocetune.collect.ciphers import asyncssh_gcm_first

    async def phase(conn: Any, commands: list[str], width: int) -> None:
        """One round: one command at a time (``width`` 1, a shell), or rocetune's lanes:
        ``width`` exec channels at once, each running its share of the commands in one
        ``sh`` script (the exec request rocetune sends, so the server does the same work)."""
        if width == 1:
            for command in commands:
                await conn.run(command)
            return
        marker = shell_batch.new_marker()
        lanes = [commands[i::width] for i in range(min(width, len(commands)))]
        await asyncio.gather(*(conn.run(shell_batch.exec_line(lane, marker)) for lane in lanes))

    async def one(dev: dict[str, Any], sem: asyncio.Semaphore) -> bool:
        async with (
            sem,
            asyncssh.connect(
                "127.0.0.1",
                dev["port"],
                username=spec["user"],
                password=spec["password"],
                known_hosts=spec["known_hosts"],
                encryption_algs=asyncssh_gcm_first(),
            ) as conn,
        ):
            platform = dev["platform"]
            for command in spec["setup"].get(platform, []):
                await conn.run(command)
            for commands in spec["phases"][platform]:
                await phase(conn, commands, spec["lanes"][platform])
        return True

    async def main() -> int:
        sem = asyncio.Semaphore(workers)
        devices = [spec["devices"][n] for n in names]
        done = await asyncio.gather(*(one(d, sem) for d in devices), return_exceptions=True)
        return sum(1 for d in done if d is True)

    return asyncio.run(main())


def child_asyncssh(spec: dict[str, Any]) -> None:
    """The bound at rocetune's concurrency: its processes (forked, devices split the same
    way), its workers per process, its lanes per host connection."""
    import multiprocessing

    names = list(spec["devices"])
    processes = max(1, min(spec["processes"], len(names)))
    if processes == 1:
        _child_stats(_asyncssh_devices(spec, names, spec["workers"]))
        return
    per = max(1, spec["workers"] // processes)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(processes) as pool:
        chunks = [(spec, names[i::processes], per) for i in range(processes)]
        ok = sum(pool.starmap(_asyncssh_devices, chunks))
    _child_stats(ok)


CHILDREN = {
    "rocetune": child_rocetune,
    "nornir": child_nornir,
    "asyncssh": child_asyncssh,
    "asyncssh_all": child_asyncssh_all,
}


# --- driver -------------------------------------------------------------------------------


def _write_inventory(path: Path, ports: dict[str, int], devices: dict[str, Any]) -> None:
    entries = {}
    for name, dev in devices.items():
        entry: dict[str, Any] = {
            "host": "127.0.0.1",
            "port": ports[name],
            "platform": dev["platform"],
        }
        if dev["platform"] == "linux_host":
            entry.update(role="host", nics=list(HOST_NICS))
        entries[name] = entry
    path.write_text(json.dumps({"devices": entries}), encoding="utf-8")


def _report(results: dict[str, list[Sample]], n: int) -> None:
    print(
        f"\n{'client':<10} {'ok':>7} {'wall s median (min-max)':>26} {'CPU s median (min-max)':>24}"
        f" {'sys s':>6} {'peak RSS MB':>11} {'lab CPU s':>9} {'switches':>9}"
    )
    med: dict[str, float] = {}
    cpu: dict[str, float] = {}
    switched: dict[str, float] = {}
    for client, samples in results.items():
        walls = [s.wall for s in samples]
        cpus = [s.cpu for s in samples]
        med[client] = statistics.median(walls)
        cpu[client] = statistics.median(cpus)
        switched[client] = statistics.median(s.switches for s in samples)
        mid = sorted(samples, key=lambda s: s.cpu)[len(samples) // 2]
        ok = min(s.ok for s in samples)
        print(
            f"{client:<10} {ok:>3}/{n:<3} {med[client]:>8.2f} ({min(walls):.2f}-{max(walls):.2f})"
            f"{'':>6} {cpu[client]:>8.2f} ({min(cpus):.2f}-{max(cpus):.2f}){'':>4}"
            f" {mid.sys:>6.2f} {mid.rss_mb:>11.0f} {mid.lab_cpu:>9.2f} {switched[client]:>9.0f}"
        )
        print(f"{'':<10} CPU s per run: {', '.join(f'{c:.2f}' for c in cpus)}")
    if "rocetune" in med:
        for other in ("asyncssh", "asyncssh_all", "nornir"):
            if other in med:
                times = switched["rocetune"] / switched[other] if switched[other] else 0.0
                print(
                    f"rocetune / {other}: wall {med['rocetune'] / med[other]:.2f}x, "
                    f"CPU {cpu['rocetune'] / cpu[other]:.2f}x, "
                    f"context switches {times:.1f}x (medians)"
                )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument(
        "--mix",
        choices=("mixed", "hosts", "switches"),
        default="mixed",
        help="mixed: 3/4 hosts, 1/4 switches; hosts or switches: only those.",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clients", default="rocetune,nornir,asyncssh")
    parser.add_argument(
        "--rocetune-args", default="", help="Extra `rocetune collect` options, e.g. '--workers 64'."
    )
    parser.add_argument(
        "--syscalls",
        metavar="DIR",
        help="Run each client under `strace -f -c` and keep the summaries in DIR.",
    )
    parser.add_argument("--child", choices=sorted(CHILDREN))
    parser.add_argument("spec", nargs="?")
    return parser.parse_args()


def _spec(work: Path, lab: Any, devices: dict[str, Any], args: argparse.Namespace) -> Path:
    from tests.lab.lab import PASSWORD, USER

    known = lab.known_hosts(work / "known_hosts")
    inventory = work / "inventory.json"
    _write_inventory(inventory, lab.ports, devices)
    spec = {
        "inventory": str(inventory),
        "known_hosts": str(known),
        "out": str(work / "out"),
        "user": USER,
        "password": PASSWORD,
        "commands": command_lists(devices),
        "phases": command_phases(devices),
        "lanes": {d["platform"]: lanes(d["platform"]) for d in devices.values()},
        "workers": _workers(args.rocetune_args),
        "processes": _processes(args.rocetune_args, len(devices)),
        "setup": {d["platform"]: setup_commands(d["platform"]) for d in devices.values()},
        "rocetune_args": args.rocetune_args.split(),
        "devices": {
            n: {"platform": d["platform"], "port": lab.ports[n]} for n, d in devices.items()
        },
    }
    path = work / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _processes(rocetune_args: str, devices: int) -> int:
    """The processes rocetune collects with (its --processes, else its automatic count)."""
    from rocetune.collect.options import CollectOptions
    from rocetune.collect.pool import process_count

    words = rocetune_args.split()
    for i, word in enumerate(words):
        if word == "--processes" and i + 1 < len(words):
            return int(words[i + 1])
        if word.startswith("--processes="):
            return int(word.split("=", 1)[1])
    return process_count(CollectOptions(workers=_workers(rocetune_args)), devices)


def _workers(rocetune_args: str) -> int:
    """The devices rocetune collects at the same time (its --workers), which the asyncssh
    bound uses too."""
    from rocetune.collect.options import DEFAULT_WORKERS

    words = rocetune_args.split()
    for i, word in enumerate(words):
        if word == "--workers" and i + 1 < len(words):
            return int(words[i + 1])
        if word.startswith("--workers="):
            return int(word.split("=", 1)[1])
    return DEFAULT_WORKERS


def _fresh_output(spec: Path, run: int) -> Path:
    """A copy of ``spec`` whose output directory is new (``out-<run>``): each run writes
    where nothing was, as a first collection does. The runs' outputs are deleted together
    at the end: deleting the previous run's ~5,400 files just before a run made ext4
    without a journal (this machine's) check recently deleted inodes on every file the
    run created (``find_inode_bit``/``recently_deleted``, about 1 s of kernel CPU at 200
    devices), which a collection minutes after the last one does not meet."""
    data = json.loads(spec.read_text(encoding="utf-8"))
    data["out"] = f"{data['out']}-{run + 1}"
    path = spec.with_name(f"spec-{run + 1}.json")
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _runs(spec: Path, lab_pid: int, args: argparse.Namespace) -> dict[str, list[Sample]]:
    from tests.lab.lab import lab_env

    results: dict[str, list[Sample]] = {}
    # Byte code as `pip install` leaves it: written once (the untimed warm-up round), not
    # compiled again in every run (with PYTHONDONTWRITEBYTECODE every child compiles each
    # module it imports, which costs rocetune, importing far more than asyncssh, ~0.4 s).
    env = {k: v for k, v in lab_env().items() if k != "PYTHONDONTWRITEBYTECODE"}
    for run in range(-1, args.repeat):  # run -1: warm-up (byte code, OS caches), not kept
        for client in args.clients.split(","):
            argv = [sys.executable, __file__, "--child", client, str(spec)]
            if client == "rocetune":
                argv[-1] = str(_fresh_output(spec, run))
            summary = None
            if args.syscalls and run >= 0:
                summary = Path(args.syscalls) / f"{client}-{run + 1}.txt"
                summary.parent.mkdir(parents=True, exist_ok=True)
                argv = ["strace", "-f", "-c", "-o", str(summary), *argv]
            sample, err = _measure(argv, env, lab_pid)
            if summary is not None and summary.exists():
                top = summary.read_text(encoding="utf-8").splitlines()[:8]
                print(f"{client} run {run + 1} system calls ({summary}):", *top, sep="\n  ")
            if sample.ok != args.devices:
                print(f"{client}: {sample.ok}/{args.devices} ok\n{err[-2000:]}", file=sys.stderr)
            if run >= 0:
                results.setdefault(client, []).append(sample)
    return results


def main() -> None:
    """Run the benchmark (or, with --child, one client)."""
    args = _arguments()
    if args.child:
        CHILDREN[args.child](json.loads(Path(args.spec).read_text(encoding="utf-8")))
        return
    from tests.lab.lab import start_lab

    devices = fleet(args.devices, args.latency_ms, args.mix)
    work = Path(tempfile.mkdtemp(prefix="rocetune-bench-collect-"))
    lab = start_lab(devices, work / "lab")
    try:
        spec = _spec(work, lab, devices, args)
        n_hosts = sum(1 for d in devices.values() if d["platform"] == "linux_host")
        print(
            f"{args.devices} devices ({n_hosts} hosts, {args.devices - n_hosts} switches), "
            f"{args.latency_ms:g} ms per command, {args.repeat} runs each, "
            f"{os.cpu_count()} CPUs"
        )
        _report(_runs(spec, lab.proc.pid, args), args.devices)
    finally:
        lab.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
