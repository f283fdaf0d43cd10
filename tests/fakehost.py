"""A directory of fake host tools that print a lab host's saved outputs.

``install(bin_dir, snapshot)`` writes one executable per tool the linux_host driver runs
that is not a core utility (``ibdev2netdev``, ``mlnx_qos``, ``ethtool``, ``cma_roce_tos``
...). Each prints the snapshot file its command line maps to (the snapshot naming rule,
:func:`rocetune.snapshot.command_filename`), or fails like a real tool when there is none.
Put ``bin_dir`` first on ``PATH`` in one test only.

Core utilities (``cat``, ``grep``, ``sh``, ``hostname``) are never shadowed: the driver's
sysfs reads (``cat /sys/class/net/eth2/mtu``, the ECN ``grep``) read this machine's real
``/sys``, which has no ConnectX here, so they fail and are recorded as errors in
``meta.json`` (their values are then "could not verify", RT000). The driver has no sysfs
root prefix, and adding one only for tests would make the collected commands differ from
what runs on a real host.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

TOOLS = (
    "ibdev2netdev",
    "lldpctl",
    "mlnx_qos",
    "ethtool",
    "cma_roce_tos",
    "cma_roce_mode",
    "show_gids",
    "ibv_devinfo",
    "mlxconfig",
)

_BODY = """#!{python}
import os, re, sys
SNAPSHOT = {snapshot!r}
words = [os.path.basename(sys.argv[0]), *sys.argv[1:]]
stem = re.sub(r"[^a-z0-9]+", "_", " ".join(words).lower()).strip("_")
for ext in (".txt", ".json"):
    path = os.path.join(SNAPSHOT, stem + ext)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as fh:
            sys.stdout.write(fh.read())
        sys.exit(0)
sys.stderr.write(words[0] + ": no such device (fake tool: no " + stem + " in the fixture)\\n")
sys.exit(1)
"""


def install(bin_dir: Path, snapshot: Path, tools: tuple[str, ...] = TOOLS) -> Path:
    """Write the fake tools into ``bin_dir`` and return it."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    body = _BODY.format(python=sys.executable, snapshot=str(snapshot.resolve()))
    for tool in tools:
        path = bin_dir / tool
        path.write_text(body, encoding="utf-8")
        path.chmod(0o755)
    return bin_dir


def path_with(bin_dir: Path) -> str:
    """``PATH`` with ``bin_dir`` first."""
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
