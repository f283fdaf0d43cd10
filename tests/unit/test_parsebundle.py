"""The audit's bundle (rocetune.parsebundle): a re-audit reads every unchanged device from
one authenticated file, with the report (lines included) of an uncached run; a bundle that
is forged, damaged or of other code is never trusted; it is rewritten only when stale."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path
from typing import Any, cast

import pytest

from rocetune import api, parsecache
from rocetune.model import AuditResult, Device
from rocetune.parsebundle import Bundle
from rocetune.parsecache import ParseCache
from rocetune.platforms.base import ParseResult
from rocetune.report import render
from tests.paths import ROOT, bundles

LAB = ROOT / "inventories" / "lab"
LAB_DEVICES = 10


@pytest.fixture
def entry_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys of the parse cache entries decoded (not the bundle's devices)."""
    seen: list[str] = []
    real = parsecache._decode

    def counting(raw: bytes, key: str, identity: str = "") -> Any:
        seen.append(key)
        return real(raw, key, identity)

    monkeypatch.setattr(parsecache, "_decode", counting)
    return seen


def report(result: AuditResult) -> str:
    return render("json", result)  # findings with their files and lines


def _bundle(cache_dir: Path) -> Path:
    (path,) = bundles(cache_dir).iterdir()
    return path


def test_a_re_audit_reads_every_device_from_the_bundle(
    lab: Path, tmp_path: Path, parses: list[str], entry_reads: list[str]
) -> None:
    plain = report(api.audit(lab))
    cold = ParseCache(tmp_path / "c")
    assert report(api.audit(lab, cache=cold)) == plain
    assert _bundle(tmp_path / "c").stat().st_size > 0
    parses.clear()
    entry_reads.clear()
    warm = ParseCache(tmp_path / "c")
    got = api.audit(lab, cache=warm)
    assert parses == []
    assert entry_reads == []
    assert (warm.hits, warm.misses, warm.ignored) == (LAB_DEVICES, 0, 0)
    assert report(got) == plain
    assert any(f.line for f in got.findings)  # lines from the bundle's provenance tables


def test_a_changed_device_comes_from_its_parse_and_the_bundle_follows(
    lab: Path, tmp_path: Path, parses: list[str], entry_reads: list[str]
) -> None:
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    before = _bundle(tmp_path / "c").read_bytes()
    config = lab.parent / "snapshots" / "leaf1" / "show_runningconfiguration_all.json"
    config.write_text(config.read_text().replace('"mtu": "9214"', '"mtu": "9100"'))
    parses.clear()
    changed = api.audit(lab, cache=ParseCache(tmp_path / "c"))
    assert parses == ["leaf1"]
    assert report(changed) == report(api.audit(lab))
    # one of ten is more than a tenth of the run: the bundle is written again ...
    assert _bundle(tmp_path / "c").read_bytes() != before
    parses.clear()
    entry_reads.clear()
    again = ParseCache(tmp_path / "c")
    api.audit(lab, cache=again)
    assert parses == []
    assert entry_reads == []
    assert again.hits == LAB_DEVICES


def _bundle_of(held: int, used: int, new: int, tmp_path: Path) -> Bundle:
    """A bundle of ``held`` devices of which the run used ``used``, and ``new`` parses."""
    parse = cast(ParseResult, None)
    bundle = Bundle(tmp_path / "b", held={}, existed=True)
    bundle.held = {f"k{i}": ("id", cast(Device, None), None, b"", "") for i in range(held)}
    bundle.used = {f"k{i}" for i in range(used)}
    bundle.seen = {f"new{i}": ("id", parse) for i in range(new)}
    return bundle


def test_a_few_changed_devices_do_not_rewrite_the_bundle(tmp_path: Path) -> None:
    """Stale: more than a tenth of the run's devices not from it (new parses, and devices
    it holds that the run did not ask for)."""
    assert not _bundle_of(100, 96, 4, tmp_path).stale()  # 4 new + 4 unused of 100
    assert not _bundle_of(100, 95, 5, tmp_path).stale()  # 10 of 100: a tenth
    assert _bundle_of(100, 94, 6, tmp_path).stale()  # 12 of 100
    assert _bundle_of(100, 50, 0, tmp_path).stale()  # half of it not asked for
    assert not _bundle_of(0, 0, 0, tmp_path).stale()  # nothing loaded
    fresh = _bundle_of(0, 0, 1, tmp_path)
    fresh.existed = False
    assert fresh.stale()  # none yet


def test_a_forged_bundle_is_never_unpickled(
    lab: Path, tmp_path: Path, entry_reads: list[str]
) -> None:
    plain = report(api.audit(lab))
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    path = _bundle(tmp_path / "c")
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (marker.write_text, ("x",))

    head, _ = path.read_bytes().split(b"\n", 1)
    header = json.loads(head)
    evil = pickle.dumps(Evil())
    header["size"] = len(evil)
    path.write_bytes(json.dumps(header).encode() + b"\n" + evil)
    entry_reads.clear()
    cache = ParseCache(tmp_path / "c")
    assert report(api.audit(lab, cache=cache)) == plain
    assert not marker.exists()
    assert len(entry_reads) == LAB_DEVICES  # the entries answered
    assert cache.hits == LAB_DEVICES


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: b"",
        lambda raw: raw[: len(raw) // 3],
        lambda raw: raw.replace(b'"format": 1', b'"format": 9'),
        lambda raw: raw.replace(b'"code": "', b'"code": "0'),
        lambda raw: b"\x80 not json\n" + raw,
    ],
    ids=["empty", "truncated", "format", "other-code", "binary"],
)
def test_a_damaged_or_foreign_bundle_is_ignored_and_rewritten(
    lab: Path, tmp_path: Path, entry_reads: list[str], damage: Any
) -> None:
    plain = report(api.audit(lab))
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    path = _bundle(tmp_path / "c")
    path.write_bytes(damage(path.read_bytes()))
    entry_reads.clear()
    assert report(api.audit(lab, cache=ParseCache(tmp_path / "c"))) == plain
    assert len(entry_reads) == LAB_DEVICES
    entry_reads.clear()
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    assert entry_reads == []  # rewritten


def test_provenance_tables_are_trusted_only_by_their_sums(lab: Path, tmp_path: Path) -> None:
    """The tables after the authenticated index are unpickled only when they match their
    sums (which the index holds): forged, a device's findings lose their lines, and
    nothing the forger wrote runs."""
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (marker.write_text, ("x",))

    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    path = _bundle(tmp_path / "c")
    raw = path.read_bytes()
    cut = raw.index(b"\n")
    start = cut + 1 + json.loads(raw[:cut])["size"]
    evil = pickle.dumps(Evil())
    tables = bytearray(raw[start:])
    tables[: len(evil)] = evil  # the first device's table (pickle stops at its end)
    path.write_bytes(raw[:start] + bytes(tables))
    shutil.rmtree(tmp_path / "c" / parsecache.CACHE_VERSION / "checks")  # its records' lines
    got = api.audit(lab, cache=ParseCache(tmp_path / "c"))
    assert not marker.exists()
    lined = {f.device for f in got.findings if f.path and f.line}
    plain = {f.device for f in api.audit(lab).findings if f.path and f.line}
    assert len(plain - lined) == 1  # the device whose table was forged


def test_without_a_key_there_is_no_bundle(tmp_path: Path, no_key: None) -> None:
    api.audit(LAB / "inventory.yaml", cache=ParseCache(tmp_path / "c"))
    assert not bundles(tmp_path / "c").exists()


def test_each_inventory_has_its_own_bundle(lab: Path, tmp_path: Path) -> None:
    other = lab.parent / "other.yaml"
    shutil.copy(lab, other)
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    api.audit(other, cache=ParseCache(tmp_path / "c"))
    assert len(list(bundles(tmp_path / "c").iterdir())) == 2


def test_a_bundle_that_cannot_be_made_never_fails_the_audit(
    lab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Bundle) -> bool:
        raise pickle.PicklingError("cannot pickle")

    monkeypatch.setattr(Bundle, "save", broken)
    cache = ParseCache(tmp_path / "c")
    assert report(api.audit(lab, cache=cache)) == report(api.audit(lab))
    assert cache.write_errors == 1
    assert not bundles(tmp_path / "c").exists()
