"""The HTML report in a real browser: headless Chromium driven by Playwright, reading the DOM.

Uses the system Chromium (Debian packages chromium + chromium-driver, /usr/bin/chromium;
``ROCETUNE_CHROMIUM`` overrides the path); Playwright's own browser download is never used.
Without Chromium (or Playwright) the tests skip, unless the ``CI`` environment variable is
set: then they fail, so CI cannot silently lose them. Set ``ROCETUNE_REPORT_SCREENSHOT`` to a
path to keep a screenshot of the lab report's first screens there (and the whole page next to
it, ``<name>_full.png``).

What is checked in the page as a reader sees it (computed styles, visibility, clicks):
counts equal the text report's, coverage (RT000) apart, link cells judged against the
intent, unknowns never counted as healthy, unused ports hidden, an unreachable device in its
role tier with the reason, peer links, colour plus a second cue, the findings filter, sources
as links, the verification section first.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import unquote, urlparse

import pytest

from rocetune.api import attach_fixes, audit, audit_inventory
from rocetune.inventory import load_inventory
from rocetune.model import AuditResult, Severity
from rocetune.report import render
from rocetune.report.html import render_html
from rocetune.report.rootcause import root_causes
from tests.report.html_fixture import EVIL_DEVICE, link, small_result, stub_fixes

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
ERROR_RED = "rgb(207, 34, 46)"
"""``--error`` of the report's stylesheet."""


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


@pytest.fixture(scope="module")
def lab_result() -> AuditResult:
    result = audit(LAB)
    attach_fixes(result)  # as the CLI does: fix: lines, root causes that share a fix
    return result


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

    def js(self, script: str, arg: object = None) -> Any:
        """Evaluate ``script`` (a function expression) in the page."""
        return self.page.evaluate(script, arg)


@pytest.fixture
def open_report(browser: Any, tmp_path: Path) -> Iterator[Any]:
    """Render an audit result to a file and open it: ``open_report(result) -> Session``."""
    sessions: list[Session] = []

    def _open(result: AuditResult, name: str = "report.html", **kw: Any) -> Session:
        path = tmp_path / name
        path.write_text(render_html(result, **kw), encoding="utf-8")
        s = Session(browser, path)
        sessions.append(s)
        return s

    yield _open
    for s in sessions:
        assert s.errors == []
        assert s.foreign_requests() == []
        s.page.close()


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


_HEADER = re.compile(
    r"^(?P<name>[^\s(]+)(?: \([^)]*\))?\s{2}(?P<counts>\d+ (error|warning|info).*)$"
)
_COUNT = re.compile(r"(\d+) (error|warning|info)")


def text_groups(text: str) -> dict[str, tuple[int, int, int]]:
    """Group -> (errors, warnings, info) from the text report's group headers."""
    out = {}
    for line in text.splitlines():
        if line.startswith("Coverage"):
            break
        m = _HEADER.match(line)
        if m is None:
            continue
        n = {kind: int(num) for num, kind in _COUNT.findall(m["counts"])}
        out[m["name"]] = (n.get("error", 0), n.get("warning", 0), n.get("info", 0))
    return out


ROWS_JS = """() => Array.from(document.querySelectorAll('tr.device-row')).map(r => {
  const cells = r.querySelectorAll('td.num');
  return [r.dataset.device, r.dataset.kind, r.querySelector('th').innerText.trim(),
          ...Array.from(cells).slice(-3).map(c => parseInt(c.innerText, 10)),
          r.querySelectorAll('td')[4].innerText.trim(),
          r.querySelector('td.status').innerText];
})"""


def test_lab_report_in_chromium(open_report: Any, lab_result: AuditResult) -> None:
    s = open_report(lab_result)
    page = s.page
    nodes = page.locator("svg.fabric g.device-node")
    names = [nodes.nth(i).get_attribute("data-device") for i in range(nodes.count())]
    assert sorted(names) == sorted(lab_result.fabric.devices)

    causes = root_causes(lab_result.findings, lab_result.fixes)
    name = next(rc.device for rc in causes if rc.device and rc.consequences)
    row, findings = panel(page, name)
    assert findings.is_hidden()
    nodes.nth(names.index(name)).click()
    assert findings.is_visible()
    assert row.get_attribute("aria-expanded") == "true"
    mine = [rc for rc in causes if rc.device == name]
    assert findings.locator("article.cause").count() == len(mine)
    assert findings.locator("article.consequence").count() == sum(
        len(rc.consequences) for rc in mine
    )
    row.click()
    assert findings.is_hidden()
    row.click()
    assert findings.is_visible()

    page.evaluate("window.scrollTo(0, 0)")
    shot = Path(s.url.removeprefix("file://")).with_suffix(".png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("ROCETUNE_REPORT_SCREENSHOT")
    if keep:  # the first screens (readable at a glance), and the whole page next to it
        height = min(2400, page.evaluate("document.documentElement.scrollHeight"))
        page.screenshot(path=keep, full_page=True, clip=_clip(height))
        shutil.copyfile(shot, Path(keep).with_name(Path(keep).stem + "_full.png"))


def test_counts_equal_the_text_report(open_report: Any, lab_result: AuditResult) -> None:
    text = render("text", lab_result)
    want = text_groups(text)
    assert want, "no group header parsed from the text report"
    s = open_report(lab_result)
    got = {r[0]: (r[3], r[4], r[5]) for r in s.js(ROWS_JS)}
    assert len(got) >= len(lab_result.fabric.devices)
    for name, counts in got.items():
        assert counts == want.get(name, (0, 0, 0)), name
    assert set(want) <= set(got)
    # the tiles are the text summary's "N error(s), N warning(s), N info" (RT000 not counted)
    head = re.search(r"(\d+) error\(s\), (\d+) warning\(s\), (\d+) info", text)
    assert head is not None
    tiles = s.js(
        "() => ['error', 'warning', 'info'].map(k => parseInt(document.querySelector("
        "`.tile[data-count=${k}] .num`).innerText, 10))"
    )
    assert tiles == [int(n) for n in head.groups()]
    cov = re.search(r"Coverage: (\d+) rules? not checked on (\d+) devices?", text)
    assert cov is not None
    tile = s.js("() => document.querySelector('.tile[data-count=coverage]').innerText")
    assert tile.split()[0] == cov[1]
    assert f"on {cov[2]} device" in tile
    counted = re.search(r"\((\d+) root causes? on (\d+) ports?; (\d+) findings?\)", text)
    assert counted is not None
    line = s.js("() => document.querySelector('p.counted').innerText")
    assert f"{counted[1]} root causes on {counted[2]} ports ({counted[3]} findings" in line
    # no RT000 among the findings; each coverage gap is in the Coverage section
    assert s.js("() => document.querySelectorAll('article.finding[data-code=RT000]').length") == 0
    # every root cause the plan fixes shows its native change
    changes = s.js("() => document.querySelectorAll('article.cause pre.change').length")
    assert changes == sum(
        1 for rc in root_causes(lab_result.findings, lab_result.fixes) for _ in rc.fix
    )
    assert changes > 0
    notes = sum(1 for f in lab_result.findings if f.code == "RT000")
    items = s.js("() => document.querySelectorAll('#coverage li.coverage-item').length")
    assert items == notes


def test_host_links_are_judged_against_the_intent(
    open_report: Any, lab_result: AuditResult
) -> None:
    s = open_report(lab_result)
    cells = s.js(
        """() => Array.from(document.querySelectorAll('tr.link-row')).map(r => {
          const td = r.querySelectorAll('td.cell');
          return [r.dataset.link, td[6].innerText, td[7].innerText, td[6].className,
                  getComputedStyle(td[6]).backgroundColor,
                  r.querySelectorAll('td.st-mismatch').length];
        })"""
    )
    host_links = [c for c in cells if c[0].startswith("gpu")]
    assert host_links
    for label, a, b, cls, background, _ in host_links:
        if (a, b) == ("9000", "9214"):  # host under switch MTU: the intent, not a red cell
            assert "st-ok" in cls.split(), label
            assert background == "rgba(0, 0, 0, 0)", label
    differ = sum(1 for c in cells if c[5])
    tile = s.js("() => document.querySelector('.tile[data-count=links] .num').innerText")
    assert tile == f"{differ}/{len(cells)}"
    # the only MTU mismatch of the lab is the planted leaf4 1500 (RT703)
    mtu_bad = [c[0] for c in cells if "st-mismatch" in c[3].split()]
    assert mtu_bad == ["leaf4:swp32--spine2:Ethernet1/4"]
    rt703 = {f.link for f in lab_result.findings if f.code == "RT703"}
    assert rt703 == set(mtu_bad)


def test_unknowns_are_never_counted_as_healthy(open_report: Any, lab_result: AuditResult) -> None:
    s = open_report(lab_result)
    hr = s.js(
        """() => Array.from(document.querySelectorAll('tr.hr-row')).map(r =>
             [r.dataset.port, r.className, r.querySelector('.pill').innerText])"""
    )
    unchecked = [p for p, cls, _ in hr if {"st-runtime", "st-unknown"} & set(cls.split())]
    assert unchecked  # leaf3/leaf4: headroom computed by the switch (RT501 not checked)
    assert all(text.startswith("?") for p, cls, text in hr if p in unchecked)
    short = [p for p, cls, _ in hr if "st-short" in cls.split()]
    tile = s.js(
        "() => { const t = document.querySelector('.tile[data-count=headroom]');"
        " return [t.querySelector('.num').innerText, t.innerText]; }"
    )
    assert tile[0] == f"{len(short)}/{len(hr) - len(unchecked)}"
    assert f"{len(unchecked)} not checked" in tile[1]
    clean = s.js("() => document.querySelector('.tile[data-count=devices]').dataset.clean")
    rows = s.js(ROWS_JS)
    gaps = {n.device for n in lab_result.findings if n.code == "RT000"}
    expect = [r[0] for r in rows if r[1] == "device" and r[3:6] == [0, 0, 0] and r[0] not in gaps]
    assert int(clean) == len(expect)


def test_unused_ports_are_hidden(open_report: Any, lab_result: AuditResult) -> None:
    s = open_report(lab_result)
    rows = {r[0]: r for r in s.js(ROWS_JS)}
    # leaf3 configures swp1-16 and swp31-32; four are cabled (two hosts, two spines)
    assert len(lab_result.fabric.devices["leaf3"].ports) == 18
    assert rows["leaf3"][6].rstrip("*") == "4"
    ports = s.js(
        "() => Array.from(document.querySelectorAll('tr.hr-row')).map(r => r.dataset.port)"
    )
    assert {p for p in ports if p.startswith("leaf3:")} == {
        "leaf3:swp1",
        "leaf3:swp2",
        "leaf3:swp31",
        "leaf3:swp32",
    }
    # spine1's admin-down Ethernet32/1 is not counted either
    assert rows["spine1"][6].rstrip("*") == "4"


def test_unreachable_device_stays_in_its_tier(open_report: Any) -> None:
    inv = load_inventory(LAB)
    devices = dict(inv.devices)
    devices["leaf4"] = dataclasses.replace(devices["leaf4"], snapshot=None)
    reason = "unreachable: connection timed out after 30 s"
    result = audit_inventory(
        dataclasses.replace(inv, devices=devices), collector=lambda _: {"leaf4": reason}
    )
    s = open_report(result)
    tiers = s.js(
        """() => Array.from(document.querySelectorAll('svg.fabric text.tier'))
             .map(t => t.textContent.trim().toLowerCase())"""
    )
    assert "other" not in tiers
    node = s.js(
        """() => { const n = document.querySelector('g.device-node[data-device=leaf4]');
          return [n.dataset.tier, n.dataset.level, n.textContent,
                  getComputedStyle(n.querySelector('rect')).strokeDasharray]; }"""
    )
    assert node[:2] == ["leaf", "unknown"]
    assert "not checked" in node[2]
    assert node[3] not in ("none", "")  # dashed: a cue beside the grey
    leaves = s.js(
        """() => Array.from(document.querySelectorAll('g.device-node[data-tier=leaf]'))
             .map(n => n.dataset.device).sort()"""
    )
    assert leaves == ["leaf1", "leaf2", "leaf3", "leaf4"]
    row, _ = panel(s.page, "leaf4")
    assert reason in row.inner_text()


def test_peer_links_colour_and_second_cue(open_report: Any) -> None:
    base = small_result()
    peer = link("spine1:Ethernet8", "agg1:Ethernet8")
    spine, agg = base.fabric.devices["spine1"], base.fabric.devices["agg1"]
    devices = dict(base.fabric.devices)
    agg_port = agg.ports["Ethernet0"].model_copy(update={"name": "Ethernet8"})
    spine_port = spine.ports["Ethernet4"].model_copy(update={"name": "Ethernet8", "mtu": 9216})
    devices["agg1"] = agg.model_copy(
        update={"role": "spine", "ports": {**agg.ports, "Ethernet8": agg_port}}
    )
    devices["spine1"] = spine.model_copy(update={"ports": {**spine.ports, "Ethernet8": spine_port}})
    links = (*base.fabric.links, peer)
    fabric = base.fabric.model_copy(update={"devices": devices, "links": links})
    result = dataclasses.replace(base, fabric=fabric)
    s = open_report(result, fixes=stub_fixes)
    edges = s.js(
        """() => Array.from(document.querySelectorAll('svg.fabric path.link')).map(p => {
          const st = getComputedStyle(p), bb = p.getBBox();
          return {link: p.dataset.link, kind: p.dataset.kind, level: p.dataset.level,
                  stroke: st.stroke, width: parseFloat(st.strokeWidth), dash: st.strokeDasharray,
                  h: bb.height, w: bb.width};
        })"""
    )
    by = {e["link"]: e for e in edges}
    p = by[peer.label]
    assert p["kind"] == "peer"
    assert p["h"] < 1 < p["w"]  # a horizontal line between the two boxes of one tier
    tiers = s.js(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('g.device-node'))
             .map(n => [n.dataset.device, n.dataset.tier]))"""
    )
    assert tiers["agg1"] == tiers["spine1"] == "spine"
    err = next(e for e in edges if e["level"] == "error")
    ok = next(e for e in edges if e["level"] == "ok")
    assert err["stroke"] == ERROR_RED
    assert err["width"] > ok["width"]  # error: thicker; warning dashed, info dotted
    node = s.js(
        """() => Array.from(document.querySelectorAll('g.device-node')).map(n =>
             [n.dataset.level, n.querySelector('text.icon').textContent,
              getComputedStyle(n.querySelector('rect')).stroke])"""
    )
    icons = {level: icon for level, icon, _ in node}
    assert len(set(icons.values())) == len(icons)  # one symbol per level
    assert {stroke for level, _, stroke in node if level == "error"} == {ERROR_RED}


def test_an_impossible_perftest_result_is_red(open_report: Any) -> None:
    from rocetune.model import BandwidthRow, Intent, PerftestResult
    from rocetune.verify.results import pair_results

    bw = PerftestResult(
        tool="ib_write_bw",
        kind="bw",
        role="client",
        bandwidth=(BandwidthRow(size_bytes=65536, iterations=1, average_gbps=812.5),),
        complete=True,
        line_rate_gbps=400.0,
    )
    verified = dataclasses.replace(
        small_result(), verify=pair_results([("gpu01:eth0", "gpu02:eth0", bw)], Intent())
    )
    s = open_report(verified, fixes=stub_fixes)
    got = s.js(
        """() => { const v = document.querySelector('td.verdict'),
                          b = document.querySelector('svg.verify-chart rect.bar');
          return [v.innerText, getComputedStyle(v).color, getComputedStyle(b).fill,
                  document.querySelector('main > section').id]; }"""
    )
    assert got[0] == "impossible"
    assert got[1] == got[2] == ERROR_RED
    assert got[3] == "verification"  # the verification section comes first


def test_the_filter_filters_the_dom(open_report: Any, lab_result: AuditResult) -> None:
    s = open_report(lab_result)
    page = s.page
    visible = (  # entries shown as matches (a cause shown only for a consequence is context)
        "() => Array.from(document.querySelectorAll('article.finding'))"
        ".filter(a => !a.closest('article[hidden], tbody[hidden]')"
        " && !a.classList.contains('context'))"
        ".map(a => [a.dataset.level, a.dataset.code])"
    )
    causes = root_causes(lab_result.findings, lab_result.fixes)
    real = [e for rc in causes for e in (rc, *rc.consequences)]  # as --statistics counts
    assert len(s.js(visible)) == len(real)
    page.locator("input.sev-filter[value=warning]").uncheck()
    page.locator("input.sev-filter[value=info]").uncheck()
    shown = s.js(visible)
    assert {lvl for lvl, _ in shown} == {"error"}
    assert len(shown) == sum(1 for e in real if e.severity is Severity.ERROR)
    hidden = s.js(
        "() => Array.from(document.querySelectorAll('tbody.device')).filter(b => b.hidden)"
        ".map(b => b.dataset.group)"
    )
    assert "spine1" in hidden  # spine1 has warnings only
    assert page.locator("#filter-status").inner_text().startswith(f"{len(shown)} of {len(real)}")
    page.locator("input.sev-filter[value=warning]").check()
    page.locator("input.sev-filter[value=info]").check()
    page.locator("#rule-filter").select_option("RT201")
    shown = s.js(visible)
    assert {code for _, code in shown} == {"RT201"}
    assert len(shown) == sum(1 for e in real if e.code == "RT201")
    rt201 = {e.device for e in real if e.code == "RT201"}
    open_rows = s.js(
        "() => Array.from(document.querySelectorAll('tbody.device')).filter(b => !b.hidden)"
        ".map(b => [b.dataset.group, b.querySelector('tr.findings-row').hidden])"
    )
    assert {g for g, _ in open_rows} == rt201
    assert all(not closed for _, closed in open_rows)  # the matching groups open
    dimmed = s.js(
        "() => Array.from(document.querySelectorAll('g.device-node.dimmed'))"
        ".map(n => n.dataset.device)"
    )
    assert set(dimmed) == set(lab_result.fabric.devices) - rt201
    page.locator("#rule-filter").select_option("")
    assert len(s.js(visible)) == len(real)
    assert s.js("() => document.querySelectorAll('tbody.device[hidden]').length") == 0


def test_sources_and_rule_docs_are_links(open_report: Any, lab_result: AuditResult) -> None:
    s = open_report(lab_result)
    links = s.js(
        """() => Array.from(document.querySelectorAll('article.finding')).map(a => [
             a.dataset.code, a.querySelector('a.rule-code').href,
             (a.querySelector('a.source') || {}).href || null,
             Array.from(a.querySelectorAll('dl.values dt')).some(d => d.innerText === 'Source'),
             Array.from(a.querySelectorAll('ul.sources a')).map(x => x.href)])"""
    )
    assert links
    for code, doc, source, has_source, cited in links:
        assert doc.endswith(f"/rules/{code}.md")
        assert (source is not None) == has_source, code
        if source is None:
            continue
        assert source.startswith("file:///"), code
        path = Path(unquote(urlparse(source).path))
        assert path.is_file(), source
        assert all(u.startswith("https://") for u in cited)
    assert sum(1 for link in links if link[2]) > len(links) // 2
    assert any(cited for *_, cited in links)  # rule docs cite their sources


def test_hostile_names_do_not_run(open_report: Any) -> None:
    s = open_report(small_result(evil=True), name="evil.html", fixes=stub_fixes)
    page = s.page
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert s.dialogs == []
    row, findings = panel(page, EVIL_DEVICE)
    assert findings.is_hidden()
    row.click()
    assert findings.is_visible()
    assert EVIL_DEVICE in row.inner_text()
    assert page.evaluate("typeof window.__pwned") == "undefined"
