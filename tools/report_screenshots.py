"""Screenshots of the lab's HTML report for docs/report.md, taken in headless Chromium.

    python tools/report_screenshots.py             # writes docs/img/report-*.png
    python tools/report_screenshots.py --out DIR   # somewhere else

Needs the system Chromium (``/usr/bin/chromium``, or ``ROCETUNE_CHROMIUM``) and the
``playwright`` package of the test extra (its own browser download is not used). The report
is ``rocetune audit inventories/lab/inventory.yaml --format html``; the last picture audits
the same lab with leaf4 unreachable (its snapshot taken away, collection failing).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rocetune.api import attach_fixes, audit, audit_inventory  # noqa: E402
from rocetune.inventory import load_inventory  # noqa: E402
from rocetune.model import AuditResult  # noqa: E402
from rocetune.report.html import render_html  # noqa: E402

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"
WIDTH = 1280
UNREACHABLE = "unreachable: connection timed out after 30 s"


def _chromium() -> str:
    wanted = os.environ.get("ROCETUNE_CHROMIUM", "/usr/bin/chromium")
    found = wanted if Path(wanted).is_file() else shutil.which("chromium")
    if found is None:
        raise SystemExit("Chromium not found (apt-get install chromium, or set ROCETUNE_CHROMIUM)")
    return found


def _unreachable_leaf() -> AuditResult:
    inv = load_inventory(LAB)
    devices = dict(inv.devices)
    devices["leaf4"] = dataclasses.replace(devices["leaf4"], snapshot=None)
    inv = dataclasses.replace(inv, devices=devices)
    return audit_inventory(inv, collector=lambda _: {"leaf4": UNREACHABLE})


def _section(page: Any, selector: str, out: Path, max_height: int) -> None:
    page.locator(selector).evaluate("e => e.scrollIntoView()")  # sticky headers in place
    box = page.locator(selector).bounding_box()  # relative to the viewport
    clip = {
        "x": 0,
        "y": box["y"] + page.evaluate("window.scrollY") - 8,
        "width": WIDTH,
        "height": min(box["height"] + 16, max_height),
    }
    page.screenshot(path=str(out), full_page=True, clip=clip)


def shoot(out: Path) -> list[Path]:
    """Write the pictures into ``out``; return their paths."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    cwd = Path.cwd()
    os.chdir(ROOT)  # paths in the report as a user running from the checkout sees them
    try:
        lab, down = audit(LAB), _unreachable_leaf()
        attach_fixes(lab)  # as the CLI does
        attach_fixes(down)
        with tempfile.TemporaryDirectory() as tmp:
            pages = {"lab": Path(tmp) / "lab.html", "down": Path(tmp) / "down.html"}
            pages["lab"].write_text(render_html(lab), encoding="utf-8")
            pages["down"].write_text(render_html(down), encoding="utf-8")
            return _take(pages, out, sync_playwright)
    finally:
        os.chdir(cwd)


def _take(pages: dict[str, Path], out: Path, sync_playwright: Any) -> list[Path]:
    shots = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=["--headless"])
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        page.goto(pages["lab"].as_uri())
        shots.append(out / "report-overview.png")
        page.screenshot(path=str(shots[-1]), clip={"x": 0, "y": 0, "width": WIDTH, "height": 960})

        page.locator("#rule-filter").select_option("RT702")
        shots.append(out / "report-findings.png")
        _section(page, "#devices", shots[-1], 860)

        shots.append(out / "report-links.png")
        _section(page, "#links", shots[-1], 900)

        page.goto(pages["down"].as_uri())
        shots.append(out / "report-unreachable.png")
        _section(page, "#fabric", shots[-1], 800)
        browser.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args(argv)
    for path in shoot(args.out):
        print(f"{path}  {path.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
