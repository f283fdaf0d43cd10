"""Golden files for every template: the rendered lab fabric and a two-lossless-priority case.

Regenerate after an intended change with::

    ROCETUNE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/render/test_golden.py

and review the diff. Without the variable the test fails when a golden file is stale,
missing or no longer produced.
"""

from __future__ import annotations

import os
from pathlib import Path

from rocetune import api
from rocetune.model import Intent
from rocetune.render.run import render_fabric
from tests.render.fabrics import fabric, switch

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"
TEMPLATES = ROOT / "templates"
HINT = "regenerate with ROCETUNE_UPDATE_GOLDEN=1 pytest tests/render/test_golden.py"


def rendered() -> dict[str, str]:
    """Relative golden path -> text, for every case."""
    out: dict[str, str] = {}
    cases = {"lab": api.audit(LAB).fabric}
    intent = Intent(lossless_priorities=(3, 4), roce_dscp=(26, 34))
    for platform, asic in (
        ("sonic", "spectrum2"),
        ("cumulus", None),
        ("eos", None),
        ("nxos", None),
        ("onyx", None),
        ("enterprise_sonic", None),
    ):
        dev = switch(platform, 100_000, asic=asic, name=f"{platform}-two-lossless")
        cases[f"two_lossless/{platform}"] = fabric(dev, 3, intent)
    for case, fab in cases.items():
        for dev in render_fabric(fab).devices:
            assert dev.status in ("rendered", "skipped"), dev.message
            for f in dev.files:
                out[f"{case}/{f.path}"] = f.text
    return out


def _update(got: dict[str, str]) -> None:
    for old in GOLDEN.rglob("*"):
        if old.is_file() and old.relative_to(GOLDEN).as_posix() not in got:
            old.unlink()
    for rel, text in got.items():
        path = GOLDEN / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_golden_files_are_current() -> None:
    got = rendered()
    if os.environ.get("ROCETUNE_UPDATE_GOLDEN") == "1":
        _update(got)
    want = {
        p.relative_to(GOLDEN).as_posix(): p.read_text(encoding="utf-8")
        for p in GOLDEN.rglob("*")
        if p.is_file()
    }
    assert sorted(got) == sorted(want), f"golden file set differs; {HINT}"
    stale = [rel for rel in got if got[rel] != want[rel]]
    assert stale == [], f"stale golden files {stale}; {HINT}"


def test_every_template_is_covered_by_a_golden_file() -> None:
    """Each feature template's header comment shows up as a section of some rendered file."""
    text = "\n".join(rendered().values())
    for platform in ("sonic", "cumulus", "eos", "nxos", "onyx", "linux_host"):
        for tpl in sorted((TEMPLATES / platform).rglob("*.j2")):
            feature = tpl.stem.split(".")[0]
            if feature in (
                "macros",
                "config_db",
                "apply_patch",
                "nvue",
                "nv_set",
                "config",
                "host",
            ):
                continue
            marker = f'"{_first_table(tpl)}"' if platform == "sonic" else _literal(tpl)
            assert marker in text, f"{tpl.relative_to(ROOT)} renders nothing in the goldens"


def _first_table(tpl: Path) -> str:
    """The first CONFIG_DB table a SONiC feature template documents in its header."""
    head = tpl.read_text(encoding="utf-8").splitlines()[0]
    return head.split(":", 1)[1].strip().split()[0].rstrip(",:")


def _literal(tpl: Path) -> str:
    """The longest literal text (before any ``{{``) of a Cumulus feature template's lines."""
    best = ""
    for line in tpl.read_text(encoding="utf-8").splitlines():
        stripped = line.split("{{", 1)[0].strip()
        if not stripped.startswith(("{#", "{%")) and len(stripped) > len(best):
            best = stripped
    assert best, f"{tpl} has no literal text"
    return best
