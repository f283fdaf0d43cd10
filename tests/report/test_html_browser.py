"""The HTML report in a real browser: headless Chromium driven by Playwright.

Uses the system Chromium (Debian packages chromium + chromium-driver, /usr/bin/chromium;
``ROCETUNE_CHROMIUM`` overrides the path); Playwright's own browser download is never used.
Without Chromium (or Playwright) the tests skip, unless the ``CI`` environment variable is
set: then they fail, so CI cannot silently lose them. Set ``ROCETUNE_REPORT_SCREENSHOT`` to a
path to keep a screenshot of the lab report's first screens there (and the whole page next to
it, ``<name>_full.png``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from rocetune.api import audit
from rocetune.report.html import render_html
from tests.report.html_fixture import EVIL_DEVICE, small_result, stub_fixes

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def in_ci() -> bool:
    """True when the CI variable is set (to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def chromium_path() -> str | None:
    """The system Chromium, or None when it is not installed."""
    wanted = os.environ.get("ROCETUNE_CHROMIUM", "/usr/bin/chromium")
    if Path(wanted).is_file() and os.access(wanted, os.X_OK):
        return wanted
    return shutil.which("chromium")


def unavailable(reason: str) -> NoReturn:
    """Skip on a developer machine; fail in CI."""
    if in_ci():
        pytest.fail(f"{reason}, and CI is set: the browser tests must run in CI")
    pytest.skip(f"{reason} (install: apt-get install chromium chromium-driver)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    exe = chromium_path()
    if exe is None:
        unavailable("Chromium is not installed at /usr/bin/chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Session:
    """A page on a report file, recording console errors, page errors, dialogs, requests."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.url = path.as_uri()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("request", lambda req: self.requests.append(req.url))
        self.page.on("dialog", self._dialog)
        self.page.goto(self.url, wait_until="load")

    def _console(self, msg: Any) -> None:
        if msg.type in {"error", "warning"}:
            self.errors.append(f"{msg.type}: {msg.text}")

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def foreign_requests(self) -> list[str]:
        return [u for u in self.requests if u != self.url and not u.startswith("data:")]


def panel(page: Any, name: str) -> Any:
    """The findings panel of device ``name`` (found by its row's aria-controls)."""
    rows = page.locator("tr.device-row")
    for i in range(rows.count()):
        row = rows.nth(i)
        if row.get_attribute("data-device") == name:
            return row, page.locator(f"#{row.get_attribute('aria-controls')}")
    raise AssertionError(f"no device row for {name}")


def _clip(height: int) -> dict[str, int]:
    return {"x": 0, "y": 0, "width": 1400, "height": height}


def test_lab_report_in_chromium(browser: Any, tmp_path: Path) -> None:
    result = audit(LAB)
    report = tmp_path / "report.html"
    report.write_text(render_html(result), encoding="utf-8")
    s = Session(browser, report)
    page = s.page

    nodes = page.locator("svg.fabric g.device-node")
    names = [nodes.nth(i).get_attribute("data-device") for i in range(nodes.count())]
    assert sorted(names) == sorted(result.fabric.devices)

    name = next(f.device for f in result.findings if f.device and f.severity.value == "error")
    row, findings = panel(page, name)
    assert findings.is_hidden()
    node = page.locator("svg.fabric g.device-node").nth(names.index(name))
    node.click()
    assert findings.is_visible()
    assert row.get_attribute("aria-expanded") == "true"
    assert findings.locator("article.finding").count() == sum(
        1 for f in result.findings if f.device == name
    )
    row.click()
    assert findings.is_hidden()
    row.click()
    assert findings.is_visible()

    page.evaluate("window.scrollTo(0, 0)")
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("ROCETUNE_REPORT_SCREENSHOT")
    if keep:  # the first screens (readable at a glance), and the whole page next to it
        height = min(2400, page.evaluate("document.documentElement.scrollHeight"))
        page.screenshot(path=keep, full_page=True, clip=_clip(height))
        shutil.copyfile(shot, Path(keep).with_name(Path(keep).stem + "_full.png"))
    assert s.errors == []
    assert s.foreign_requests() == []
    page.close()


def test_hostile_names_do_not_run(browser: Any, tmp_path: Path) -> None:
    report = tmp_path / "evil.html"
    report.write_text(render_html(small_result(evil=True), fixes=stub_fixes), encoding="utf-8")
    s = Session(browser, report)
    page = s.page
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert s.dialogs == []
    row, findings = panel(page, EVIL_DEVICE)
    assert findings.is_hidden()
    row.click()
    assert findings.is_visible()
    assert EVIL_DEVICE in row.inner_text()
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert s.errors == []
    assert s.foreign_requests() == []
    page.close()
