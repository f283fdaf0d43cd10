"""HTML report: context builder, the rendered page (parsed), escaping, determinism, golden."""

from __future__ import annotations

import base64
import hashlib
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from jinja2 import StrictUndefined, TemplateNotFound
from jinja2.sandbox import SandboxedEnvironment

from rocetune.api import attach_fixes, audit
from rocetune.fingerprint import fingerprint
from rocetune.model import AuditResult
from rocetune.report import FORMATS
from rocetune.report import html as html_report
from rocetune.report.html import environment, render, render_html, templates_dir
from rocetune.report.html_context import ReportContext, build_context, doc_blocks
from rocetune.report.html_diagram import EdgeSpec, NodeSpec, build_diagram, tier_of
from rocetune.report.html_sources import no_sources
from rocetune.tune.headroom import HeadroomInputs, asic_constants, compute_headroom
from tests.report.html_fixture import EVIL_DEVICE, EVIL_PORT, small_result, stub_fixes

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"
GOLDEN = Path(__file__).parent / "golden" / "html_small.html"


class Page(HTMLParser):
    """Elements (tag, attrs) in document order, and the text of every element."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)

    def all(self, tag: str | None = None, **attrs: str) -> list[dict[str, str]]:
        """Attributes of elements with ``tag`` whose attributes contain ``attrs``
        (``cls`` matches one word of the class attribute)."""
        out = []
        for t, a in self.elements:
            if tag is not None and t != tag:
                continue
            if "cls" in attrs and attrs["cls"] not in a.get("class", "").split():
                continue
            if all(a.get(k) == v for k, v in attrs.items() if k != "cls"):
                out.append(a)
        return out


BASE = Path("/fabric")
"""Where the fixture's relative source files are linked from (pins the golden output)."""


def context(result: AuditResult | None = None) -> ReportContext:
    """The report context of the small fabric (or ``result``), docs pinned."""
    return build_context(result or small_result(), stub_fixes, sources=no_sources, base=BASE)


def small(evil: bool = False) -> str:
    """The rendered small report, docs pinned."""
    return render_html(small_result(evil), fixes=stub_fixes, sources=no_sources, base=BASE)


@pytest.fixture(scope="module")
def small_html() -> str:
    return small()


@pytest.fixture(scope="module")
def lab() -> tuple[object, str]:
    result = audit(LAB)
    return result, render(result)


def test_registered_as_html_format() -> None:
    assert FORMATS["html"] == "rocetune.report.html"


def test_summary_counts_leave_coverage_and_unknowns_out() -> None:
    s = context().summary
    # RT000 on gpu01 is coverage: not an info finding, and gpu01 is not "clean"
    # counted by root cause: RT701 on spine1 Ethernet0 is a consequence of RT201 there
    assert (s.counts.error, s.counts.warning, s.counts.info) == (1, 2, 0)
    assert (s.root_causes, s.ports, s.findings) == (3, 2, 4)
    assert (s.coverage_rules, s.coverage_devices) == (0, 1)
    assert (s.devices, s.devices_checked, s.devices_clean) == (5, 4, 1)
    # the host link (9216 switch, 9000 host) agrees: only two links disagree
    assert (s.links, s.links_inconsistent, s.links_unknown) == (3, 2, 1)
    # leaf1:swp2's PG is computed by the switch: not checked, not counted as fine
    assert (s.headroom_pgs, s.headroom_short, s.headroom_unchecked) == (5, 2, 1)
    assert s.headroom_checked == 4


def test_groups_in_natural_order_like_the_text_report() -> None:
    ctx = context()
    got = [(d.name, d.kind, d.level, d.checked, d.counts.total) for d in ctx.devices]
    assert got == [
        ("agg1", "device", "ok", True, 0),
        ("ghost", "device", "unknown", False, 0),
        ("gpu01", "device", "ok", True, 0),
        ("leaf1", "device", "warning", True, 1),
        ("spine1", "device", "error", True, 1),
        ("fabric", "fabric", "warning", True, 1),
    ]
    rt201 = ctx.devices[4].findings[0]
    assert (rt201.code, rt201.findings) == ("RT201", 2)
    assert [(c.code, c.where) for c in rt201.consequences] == [
        ("RT701", "leaf1:swp1--spine1:Ethernet0")
    ]
    ghost = ctx.devices[1]
    assert ghost.status == "not checked: platform 'eos' is not supported"
    gpu = ctx.devices[2]
    assert gpu.findings == ()
    assert [c.text for c in gpu.coverage] == ["RT000 on gpu01"]
    assert [d.name for d in ctx.coverage] == ["gpu01"]
    assert [f.code for f in ctx.devices[-1].findings] == ["RT705"]
    assert [(r.code, r.count) for r in ctx.rules] == [
        ("RT104", 1),
        ("RT201", 1),
        ("RT701", 1),
        ("RT705", 1),
    ]


def test_findings_carry_values_location_and_fix() -> None:
    ctx = context()
    spine = next(d for d in ctx.devices if d.name == "spine1")
    rt201 = next(f for f in spine.findings if f.code == "RT201")
    assert (rt201.observed, rt201.expected, rt201.where) == (
        "rx {} tx {}",
        "rx {3} tx {3}",
        "Ethernet0",
    )
    assert [b.kind for b in rt201.fix] == ["p", "ul"]
    assert [[s.text for s in item] for item in rt201.fix[1].items] == [
        ["SONiC: ", "PORT_QOS_MAP|<port>", " continued"],
        ["NVUE: ", "nv set"],
    ]
    leaf = next(d for d in ctx.devices if d.name == "leaf1")
    assert leaf.findings[0].location == "configs/leaf1.yaml:7"


def test_doc_blocks_of_a_real_rule_doc() -> None:
    fix = html_report.fix_text("RT201")
    blocks = doc_blocks(fix)
    assert blocks[0].kind == "ul"
    first = blocks[0].items[0]
    assert first[0].text == "SONiC: "
    assert first[1].code
    assert first[1].text == "PORT_QOS_MAP|<port>"
    assert html_report.fix_text("RT999") == ""


@pytest.mark.parametrize(
    ("role", "kind", "tier"),
    [
        ("spine", "switch", "spine"),
        ("Leaf", "switch", "leaf"),
        ("superspine", "switch", "core"),
        ("host", "host", "host"),
        (None, "host", "host"),
        ("aggregation", "switch", "other"),
        (None, None, "other"),
    ],
)
def test_tiers(role: str | None, kind: str | None, tier: str) -> None:
    assert tier_of(role, kind) == tier


def test_diagram_places_tiers_top_to_bottom() -> None:
    d = context().diagram
    y = {n.name: n.y for n in d.nodes}
    assert y["spine1"] < y["leaf1"] < y["agg1"] == y["ghost"] < y["gpu01"]
    assert [t.name for t in d.tiers] == ["spine", "leaf", "other", "host"]
    assert {n.name: n.level for n in d.nodes} == {
        "spine1": "error",
        "leaf1": "warning",
        "agg1": "ok",
        "ghost": "unknown",
        "gpu01": "ok",
    }
    assert [(e.label, e.level) for e in d.edges] == [
        ("leaf1:swp1--spine1:Ethernet0", "error"),
        ("spine1:Ethernet4--agg1:Ethernet0", "ok"),
        ("leaf1:swp2--gpu01:eth0", "unknown"),  # no finding, but trust etc. not known
    ]
    xs = sorted((n.x, n.y) for n in d.nodes)
    assert len(set(xs)) == len(xs)  # no two boxes on the same spot


def _spec(name: str, role: str | None, kind: str | None = "switch") -> NodeSpec:
    return NodeSpec(name, role, kind, "ok", "", "", name)


def test_peer_links_are_drawn_between_neighbours_of_one_tier() -> None:
    specs = [_spec("spine1", "spine"), _spec("leaf1", "leaf"), _spec("leaf2", "leaf")]
    specs += [_spec("leaf3", "leaf"), _spec("gpu1", None, "host")]
    edges = [
        EdgeSpec("leaf1", "spine1", "l1-s1", "ok", ""),
        EdgeSpec("leaf3", "spine1", "l3-s1", "ok", ""),
        EdgeSpec("leaf2", "spine1", "l2-s1", "ok", ""),
        EdgeSpec("leaf1", "leaf3", "peer", "warning", ""),
        EdgeSpec("gpu1", "leaf1", "g-l1", "ok", ""),
    ]
    d = build_diagram(specs, edges)
    by = {n.name: n for n in d.nodes}
    leaves = sorted((n for n in d.nodes if n.tier == "leaf"), key=lambda n: n.x)
    assert abs(leaves.index(by["leaf1"]) - leaves.index(by["leaf3"])) == 1  # peers side by side
    peer = next(e for e in d.edges if e.label == "peer")
    assert (peer.kind, peer.level) == ("peer", "warning")
    lo, hi = sorted((by["leaf1"], by["leaf3"]), key=lambda n: n.x)
    y = lo.y + d.node_h // 2
    assert peer.path == f"M {lo.x + d.node_w} {y} L {hi.x} {y}"  # straight, side to side
    assert {e.kind for e in d.edges if e.label != "peer"} == {"uplink"}


def test_device_not_read_keeps_its_role_tier_and_a_host_neighbour_makes_a_leaf() -> None:
    specs = [
        NodeSpec("leaf9", "leaf", None, "unknown", "", "not checked", ""),
        _spec("tor7", None, None),
        _spec("gpu1", None, "host"),
        _spec("odd", "aggregation"),
    ]
    edges = [EdgeSpec("gpu1", "tor7", "g-t", "ok", ""), EdgeSpec("gpu1", "leaf9", "g-l", "ok", "")]
    d = build_diagram(specs, edges)
    assert {n.name: n.tier for n in d.nodes} == {
        "leaf9": "leaf",
        "tor7": "leaf",
        "gpu1": "host",
        "odd": "other",
    }


def test_links_that_skip_a_tier_run_beside_its_boxes() -> None:
    d = context().diagram
    leaf = next(n for n in d.nodes if n.name == "leaf1")
    path = next(e.path for e in d.edges if e.label == "spine1:Ethernet4--agg1:Ethernet0")
    runs = [(int(x), int(y)) for x, y in re.findall(r"L (-?\d+) (-?\d+)", path)]
    assert (runs[0][1], len(runs)) == (leaf.y + d.node_h + 8, 2)  # through the leaf tier, on
    assert all(not leaf.x <= x <= leaf.x + d.node_w for x, _ in runs)  # down to agg1
    direct = next(e.path for e in d.edges if e.label == "leaf1:swp1--spine1:Ethernet0")
    cx = leaf.x + d.node_cx
    spine = next(n for n in d.nodes if n.name == "spine1")
    assert direct == f"M {cx} {spine.y + d.node_h} L {cx} {leaf.y}"  # straight down


def test_link_matrix_rows() -> None:
    rows = context().links
    states = [(r.label, [c.state for c in r.cells]) for r in rows]
    assert states == [
        ("leaf1:swp1--spine1:Ethernet0", ["ok", "ok", "mismatch", "ok", "ok", "ok"]),
        ("spine1:Ethernet4--agg1:Ethernet0", ["ok", "ok", "ok", "mismatch", "ok", "ok"]),
        # host 9000 under switch 9216 is the intent (RT703): not a mismatch
        ("leaf1:swp2--gpu01:eth0", ["unknown", "unknown", "ok", "ok", "unknown", "unknown"]),
    ]
    first = rows[0]
    assert [(c.a, c.b) for c in first.cells] == [
        ("dscp", "dscp"),
        ("26→3", "26→3"),
        ("{3}", "{}"),
        ("9216", "9216"),
        ("48→6", "48→6"),
        ("100G", "100G"),
    ]
    assert (first.length, first.level, rows[1].length) == ("30 m", "error", "-")


def test_matrix_flags_agreement_against_the_intent() -> None:
    res = small_result()
    spine = res.fabric.devices["spine1"]
    bad = spine.ports["Ethernet4"].model_copy(update={"dscp_to_priority": {26: 0, 48: 6}})
    agg = res.fabric.devices["agg1"]
    bad_agg = agg.ports["Ethernet0"].model_copy(update={"dscp_to_priority": {26: 0, 48: 6}})
    devices = dict(res.fabric.devices)
    devices["spine1"] = spine.model_copy(update={"ports": {**spine.ports, "Ethernet4": bad}})
    devices["agg1"] = agg.model_copy(update={"ports": {"Ethernet0": bad_agg}})
    res.fabric = res.fabric.model_copy(update={"devices": devices})
    row = build_context(res, stub_fixes).links[1]
    assert row.cells[1].state == "intent"
    assert (row.cells[1].a, row.cells[1].b) == ("26→0", "26→0")


def test_headroom_rows_equal_the_calculator() -> None:
    rows = context().headroom
    got = {(r.device, r.port): r for r in rows}
    assert list(got) == [
        ("agg1", "Ethernet0"),
        ("leaf1", "swp1"),
        ("leaf1", "swp2"),
        ("spine1", "Ethernet0"),
        ("spine1", "Ethernet4"),
    ]
    spine = compute_headroom(HeadroomInputs(100_000, 30.0, 9216), asic_constants("spectrum3"))
    r = got[("spine1", "Ethernet0")]
    assert (r.configured, r.required, r.allocated) == (45_000, spine.required_xoff, spine.xoff)
    assert (r.state, r.margin_text) == ("short", f"{45_000 - spine.required_xoff:+,} B")
    neutral = compute_headroom(HeadroomInputs(100_000, 30.0, 9216), asic_constants(None))
    leaf = got[("leaf1", "swp1")]
    assert (leaf.required, leaf.cable) == (neutral.required_xoff, "30 m (link)")
    assert leaf.asic == "estimate (no ASIC)"
    short = compute_headroom(HeadroomInputs(100_000, 5.0, 1500), asic_constants("spectrum3"))
    e4 = got[("spine1", "Ethernet4")]
    assert (e4.required, e4.cable, e4.mtu, e4.state) == (
        short.required_xoff,
        "5 m",
        "1500",
        "short",
    )
    assert (got[("leaf1", "swp2")].state, got[("leaf1", "swp2")].configured) == ("runtime", None)
    agg = compute_headroom(HeadroomInputs(100_000, 5.0, 9216), asic_constants(None))
    assert (got[("agg1", "Ethernet0")].required, got[("agg1", "Ethernet0")].state) == (
        agg.required_xoff,
        "ok",
    )


def test_html_counts_and_tables(small_html: str) -> None:
    page = Page(small_html)
    tiles = {a["data-count"]: a for a in page.all("div", cls="tile")}
    assert set(tiles) == {"error", "warning", "info", "coverage", "devices", "links", "headroom"}
    assert [tiles[k]["data-value"] for k in ("error", "warning", "info", "coverage")] == [
        "1",
        "2",
        "0",
        "0",
    ]
    assert (tiles["links"]["data-value"], tiles["links"]["data-unknown"]) == ("2/3", "1")
    assert (tiles["headroom"]["data-value"], tiles["headroom"]["data-unchecked"]) == ("2/4", "1")
    nodes = page.all("g", cls="device-node")
    assert sorted(a["data-device"] for a in nodes) == ["agg1", "ghost", "gpu01", "leaf1", "spine1"]
    rows = page.all("tr", cls="device-row")
    assert [(a["data-device"], a["data-kind"]) for a in rows] == [
        ("agg1", "device"),
        ("ghost", "device"),
        ("gpu01", "device"),
        ("leaf1", "device"),
        ("spine1", "device"),
        ("fabric", "fabric"),
    ]
    # three root causes and one consequence nested in RT201; RT000 is coverage, not a finding
    assert len(page.all("article", cls="cause")) == 3
    assert [a["data-code"] for a in page.all("article", cls="consequence")] == ["RT701"]
    # the RT000 note twice: in gpu01's panel and in the Coverage section
    assert [a["data-rules"] for a in page.all("li", cls="coverage-item")] == ["", ""]
    assert len(page.all("tr", cls="link-row")) == 3
    assert len(page.all("path", cls="link")) == 3
    assert len(page.all("td", cls="st-mismatch")) == 4
    panels = page.all("tr", cls="findings-row")
    assert len(panels) == 6
    assert all("hidden" in p for p in panels)
    assert len(page.all("tr", cls="hr-row")) == 5
    options = [a.get("value") for a in page.all("option")]
    assert options == ["", "RT104", "RT201", "RT701", "RT705"]


def test_fix_lines_of_the_plan_and_nested_consequences() -> None:
    result = small_result()
    rt201 = next(f for f in result.findings if f.code == "RT201")
    change = "PORT_QOS_MAP|Ethernet0\n  pfc_enable: '3'"
    result.fixes = {fingerprint(rt201): (change,)}
    page = Page(render_html(result, fixes=stub_fixes, sources=no_sources, base=BASE))
    assert "".join(page.text).count(change) == 1
    pres = page.all("pre", cls="change")
    assert len(pres) == 1
    nested = [a["data-code"] for a in page.all("article") if "consequence" in a["class"]]
    assert nested == ["RT701"]


def test_html_headroom_numbers_equal_the_calculator(lab: tuple[object, str]) -> None:
    result, text = lab
    fabric = result.fabric
    rows = Page(text).all("tr", cls="hr-row")
    assert rows
    checked = 0
    for row in rows:
        device, _, port = row["data-port"].partition(":")
        dev = fabric.devices[device]
        p = dev.ports[port]
        lengths = [
            lk.length_m
            for lk in fabric.links
            if lk.length_m is not None
            and any((e.device, e.port) == (device, port) for e in (lk.a, lk.b))
        ]
        cable = max([p.cable_length_m, *lengths])
        want = compute_headroom(
            HeadroomInputs(p.speed_mbps, cable, p.mtu), asic_constants(dev.asic)
        )
        assert int(row["data-required"]) == want.required_xoff, row
        assert int(row["data-allocated"]) == want.xoff, row
        checked += 1
    assert checked == len(rows)
    short = [r["data-port"] for r in rows if "st-short" in r["class"].split()]
    assert short == ["leaf2:Ethernet8"]


def test_lab_report_has_one_node_per_device(lab: tuple[object, str]) -> None:
    result, text = lab
    page = Page(text)
    names = [a["data-device"] for a in page.all("g", cls="device-node")]
    assert sorted(names) == sorted(result.fabric.devices)
    assert len(page.all("tr", cls="link-row")) == len(result.fabric.links)


def test_names_are_escaped() -> None:
    text = render_html(small_result(evil=True), fixes=stub_fixes)
    page = Page(text)
    assert len(page.scripts) == 1
    assert "__pwned" not in page.scripts[0]
    assert page.all("img") == []
    assert EVIL_DEVICE in {a["data-device"] for a in page.all("g", cls="device-node")}
    assert f"{EVIL_DEVICE}:{EVIL_PORT}" in {a["data-port"] for a in page.all("tr", cls="hr-row")}
    joined = "".join(page.text)
    assert EVIL_DEVICE in joined
    assert "</td><script>window.__pwned=3</script>" in joined
    assert "<script>window" not in text


def test_csp_allows_exactly_the_report_script(small_html: str) -> None:
    page = Page(small_html)
    csp = page.all("meta", **{"http-equiv": "Content-Security-Policy"})[0]["content"]
    digest = base64.b64encode(hashlib.sha256(page.scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    assert "default-src 'none'" in csp
    # nothing is fetched: no remote src, no remote <link>; <a href> (docs, sources) may link out
    assert not re.search(r"""src=["']?(https?:)?//""", small_html)
    assert all(not a["href"].startswith(("http", "//")) for a in Page(small_html).all("link"))


def test_deterministic_and_timestamp_only_when_given() -> None:
    one = render_html(small_result(), fixes=stub_fixes)
    assert one == render_html(small_result(), fixes=stub_fixes)
    assert "Generated" not in one
    stamped = render_html(small_result(), fixes=stub_fixes, generated_at="2024-05-01 10:00 UTC")
    assert "Generated 2024-05-01 10:00 UTC" in stamped


def test_golden(small_html: str) -> None:
    if os.environ.get("ROCETUNE_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(small_html, encoding="utf-8")
    assert small_html == GOLDEN.read_text(encoding="utf-8")


def test_environment_is_sandboxed_strict_and_escaping() -> None:
    env = environment()
    assert isinstance(env, SandboxedEnvironment)
    assert env.undefined is StrictUndefined
    assert env.from_string("{{ x }}").render(x="<b>") == "&lt;b&gt;"
    with pytest.raises(TemplateNotFound):
        env.get_template("../pyproject.toml")


def test_templates_found_in_checkout_and_installed_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert templates_dir() == ROOT / "templates"
    data = tmp_path / "rocetune" / "_data" / "templates" / "report"
    data.mkdir(parents=True)
    (data / "x.j2").write_text("installed {{ v }}")
    from rocetune import templating

    monkeypatch.setattr(templating.resources, "files", lambda _pkg: tmp_path / "rocetune")
    assert environment().get_template("report/x.j2").render(v="<ok>") == "installed &lt;ok&gt;"


def test_wheel_ships_the_templates_where_the_loader_looks() -> None:
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert include["templates"] == "rocetune/_data/templates"
    assert (ROOT / "templates" / html_report.PAGE).is_file()


def test_cli_writes_the_report_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.cli.conftest import run_cli

    monkeypatch.chdir(ROOT)  # the CLI runs there: source paths are shown relative to it
    out = tmp_path / "report.html"
    res = run_cli("audit", LAB, "--format", "html", "-o", out)
    assert (res.code, res.out, res.err) == (1, "", "")
    text = out.read_text(encoding="utf-8")
    want = audit(LAB)
    attach_fixes(want)  # the CLI attaches the plan's fixes before rendering (fix: lines)
    assert text == render(want)
    assert 'class="change"' in text
    assert text.startswith("<!DOCTYPE html>")
