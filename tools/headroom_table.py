"""Issue 12 closing table: SKU x speed x cable -> the lua's xoff, the SKU table's, rocetune's.

    python tools/headroom_table.py                  # the issue's SKUs, 25G and up
    python tools/headroom_table.py --all            # every row of every NVIDIA SKU table
    python tools/headroom_table.py --lua PATH       # run the real lua for the "lua" column
    python tools/headroom_table.py --broadcom       # Broadcom SKU rows vs the estimate

The "lua xoff" column is what sonic-swss ``cfgmgr/buffer_headroom_mellanox.lua`` returns for
the row (SONiC's traffic defaults 1024 B / 50 %, no shared headroom pool, port MTU 9100, the
platform's ASIC_TABLE constants and gearbox delay, 8 lanes from 400G up). Without ``--lua`` it
is read from ``tests/fixtures/sonic/headroom_oracle.tsv``, whose numbers were obtained by
running that lua (the file's header says how). With ``--lua PATH`` (a local copy of the lua,
which is not part of this repository) the script runs it under the ``lua`` interpreter with
its redis calls answered by a stub written here, and fails if any row differs from the
oracle file. "rocetune xoff" is :func:`rocetune.tune.headroom.compute_headroom` for the
same inputs. Broadcom publishes no formula: its rows are compared with the vendor-neutral
estimate instead (docs/buffers.md section 2).
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
from pathlib import Path

from rocetune.platforms.sonic.asic import asic_family, gearbox_delay_ns
from rocetune.platforms.sonic.sku_tables import all_tables, platform_asic
from rocetune.tune.headroom import VENDOR_NEUTRAL, HeadroomInputs, asic_constants, compute_headroom

ROOT = Path(__file__).resolve().parents[1]
ORACLE = ROOT / "tests" / "fixtures" / "sonic" / "headroom_oracle.tsv"
ISSUE_SKUS = (
    "ACS-MSN2700",
    "ACS-MSN3800",
    "ACS-MSN4600C",
    "ACS-MSN4700",
    "ACS-SN5600",
    "Mellanox-SN5640-C512S2",
    "ACS-SN6600_LD",
)
PORT_MTU = 9100

STUB = """
local db = {{}}
db["ASIC_TABLE|{asic_key}"] = {{"cell_size", "{cell}", "pipeline_latency", "{pipeline}",
  "mac_phy_delay", "0.8", "peer_response_time", "3.8"}}
db["LOSSLESS_TRAFFIC_PATTERN|AZURE"] = {{"mtu", "1024", "small_packet_percentage", "50"}}
db["DEFAULT_LOSSLESS_BUFFER_PARAMETER|AZURE"] = {{}}
redis = {{}}
function redis.call(cmd, key, field)
  if cmd == "SELECT" then return "OK" end
  if cmd == "KEYS" then
    local prefix = string.sub(key, 1, -2)
    local out = {{}}
    for k, _ in pairs(db) do
      if string.sub(k, 1, #prefix) == prefix then table.insert(out, k) end
    end
    return out
  end
  local entry = db[key] or {{}}
  if cmd == "HGETALL" then return entry end
  if cmd == "HGET" then
    for i = 1, #entry, 2 do if entry[i] == field then return entry[i + 1] end end
    return nil
  end
  error("unexpected redis call " .. cmd)
end
KEYS = {{"profile"}}
ARGV = {{"{speed}", "{cable}", "{mtu}", "{gearbox}", "{lanes}"}}
local ret = dofile("{lua}")
for _, item in ipairs(ret) do print(item) end
"""


def _oracle() -> dict[tuple[str, str, int, str], dict[str, str]]:
    lines = [ln for ln in ORACLE.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    rows = csv.DictReader(lines, delimiter="\t")
    return {(r["platform"], r["sku"], int(r["speed"]), r["cable"]): r for r in rows}


def _run_lua(lua: Path, row: dict[str, str]) -> int:
    consts = asic_constants(asic_family(row["platform"], row["sku"]))
    gen = consts.name.rsplit("-", 1)[-1]
    script = STUB.format(
        asic_key="MELLANOX-SPECTRUM" if gen == "1" else f"MELLANOX-SPECTRUM-{gen}",
        cell=consts.cell_bytes,
        pipeline=f"{consts.pipeline_latency_bytes / 1024:g}",
        speed=row["speed"],
        cable=row["cable"],
        mtu=PORT_MTU,
        gearbox=f"{float(row['gearbox_ns']):g}",
        lanes=row["lanes"],
        lua=str(lua).replace("\\", "/"),
    )
    exe = shutil.which("lua5.1") or shutil.which("lua")
    if exe is None:
        sys.exit("no lua interpreter on PATH")
    out = subprocess.run([exe, "-"], input=script, capture_output=True, text=True, check=True)
    values = dict(line.split(":", 1) for line in out.stdout.split())
    return int(values["xoff"])


def nvidia_rows(*, every: bool, lua: Path | None) -> list[list[str]]:
    """The NVIDIA table: one list of cells per row."""
    oracle = _oracle()
    out = []
    for (platform, sku, speed, cable), row in sorted(
        oracle.items(), key=lambda kv: (kv[0][1], int(kv[0][3][:-1]), kv[0][2])
    ):
        if not every and (sku not in ISSUE_SKUS or speed < 25_000):
            continue
        lua_xoff = int(row["lua_xoff"])
        if lua is not None:
            ran = _run_lua(lua, row)
            if ran != lua_xoff:
                sys.exit(f"{sku} {speed} {cable}: lua gives {ran}, the oracle file {lua_xoff}")
        res = compute_headroom(
            HeadroomInputs(
                speed_mbps=speed,
                cable_m=float(cable[:-1]),
                port_mtu=PORT_MTU,
                gearbox_delay_ns=gearbox_delay_ns(platform, sku) or 0.0,
                lanes=int(row["lanes"]),
            ),
            asic_constants(asic_family(platform, sku)),
        )
        table = int(row["table_xoff"])
        out.append(
            [
                sku,
                f"{speed // 1000}G",
                cable,
                str(lua_xoff),
                str(table),
                str(res.xoff),
                f"{res.xoff - lua_xoff:+d}",
                f"{table - lua_xoff:+d}",
            ]
        )
    return out


def broadcom_rows() -> list[list[str]]:
    """Every Broadcom table row against the vendor-neutral estimate (no vendor formula)."""
    out = []
    for table in all_tables():
        if not platform_asic(table.platform):
            continue
        for r in table.rows:
            est = compute_headroom(
                HeadroomInputs(
                    speed_mbps=r.speed_mbps,
                    cable_m=r.cable_m,
                    port_mtu=PORT_MTU,
                    shared_headroom_pool=True,
                ),
                VENDOR_NEUTRAL,
            )
            out.append(
                [
                    table.sku,
                    f"{r.speed_mbps // 1000}G",
                    f"{r.cable_m}m",
                    str(r.xoff),
                    str(est.required_xoff),
                    f"{r.xoff - est.required_xoff:+d}",
                ]
            )
    return out


def _markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the tables as Markdown."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="every row of every NVIDIA SKU table")
    ap.add_argument("--lua", type=Path, help="path of buffer_headroom_mellanox.lua to run")
    ap.add_argument("--broadcom", action="store_true", help="also the Broadcom SKU rows")
    args = ap.parse_args(argv)
    rows = nvidia_rows(every=args.all, lua=args.lua)
    source = "run now" if args.lua else "from tests/fixtures/sonic/headroom_oracle.tsv"
    print(f"NVIDIA Spectrum: lua xoff {source}; port MTU {PORT_MTU}, 1024 B / 50 %, no SHP\n")
    head = ["SKU", "speed", "cable", "lua xoff", "SKU table xoff", "rocetune xoff"]
    print(_markdown([*head, "rocetune - lua", "table - lua"], rows))
    worst = max(abs(int(r[6])) for r in rows)
    print(f"\n{len(rows)} rows; largest |rocetune - lua| = {worst} B")
    if args.broadcom:
        brows = broadcom_rows()
        below = sum(1 for r in brows if int(r[5]) < 0)
        print("\nBroadcom XGS (no vendor formula): SKU table xoff vs the vendor-neutral estimate\n")
        print(_markdown(["SKU", "speed", "cable", "table xoff", "estimate", "table - est"], brows))
        print(f"\n{len(brows)} rows; {below} below the estimate (RT501 warning, never an error)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
