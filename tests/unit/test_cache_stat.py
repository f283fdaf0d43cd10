"""The parse cache's unchanged test by stat signature (rocetune.statindex), hits looked up
before the process pool, pruning of replaced entries and the lazily decoded provenance."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rocetune import api, load, parsecache, statindex
from rocetune.parsecache import ParseCache
from rocetune.report import render
from tests.paths import ROOT, bundles

LAB = ROOT / "inventories" / "lab"
LAB_DEVICES = 10
HOUR_NS = 3600 * 10**9


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The snapshots read for hashing (the slow path the stat index avoids), by the parse
    cache's :meth:`~rocetune.parsecache.ParseCache.source_key`."""
    seen: list[str] = []
    real: Callable[..., Any] = ParseCache.source_key

    def reading(cache: ParseCache, identity: str, source: Path, **kw: Any) -> Any:
        snap, key = real(cache, identity, source, **kw)
        if snap is not None:
            seen.append(source.name if source.is_dir() else source.stem)
        return snap, key

    monkeypatch.setattr(ParseCache, "source_key", reading)
    return seen


def _age(root: Path, seconds: int = 3600) -> None:
    """Set every file's mtime back (ctime cannot be: the racy window is shortened instead)."""
    past = time.time_ns() - seconds * 10**9
    for path in [root, *root.rglob("*")]:
        os.utime(path, ns=(past, past), follow_symlinks=False)


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the lab, its files old enough to be recorded by signature (the racy window
    is 0 here: the copy's ctimes are now)."""
    shutil.copytree(LAB, tmp_path / "lab")
    _age(tmp_path / "lab")
    monkeypatch.setattr(statindex, "RACY_NS", 0)
    time.sleep(0.01)
    return tmp_path / "lab" / "inventory.yaml"


def report(result: api.AuditResult) -> str:
    return render("json", result)


def test_unchanged_snapshots_are_neither_read_nor_parsed(
    lab: Path, tmp_path: Path, reads: list[str], parses: list[str]
) -> None:
    first = api.audit(lab, cache=ParseCache(tmp_path / "c"))
    assert len(parses) == LAB_DEVICES
    reads.clear()
    parses.clear()
    warm = ParseCache(tmp_path / "c")
    second = api.audit(lab, cache=warm)
    assert (reads, parses) == ([], [])
    assert (warm.hits, warm.misses) == (LAB_DEVICES, 0)
    assert report(second) == report(first) == report(api.audit(lab))


@pytest.mark.parametrize(
    "change",
    [
        lambda p: p.write_text(p.read_text().replace("9214", "1500")),  # same size
        lambda p: p.write_text(p.read_text() + " "),
        lambda p: os.utime(p, ns=(time.time_ns(), time.time_ns())),  # touched: hashed again
        lambda p: (p.parent / "new_output.txt").write_text("x\n"),
        lambda p: os.replace(p, p.parent / ".hidden"),
    ],
    ids=["same-size-edit", "append", "touch", "new-file", "removed"],
)
def test_a_changed_snapshot_is_read_again(
    lab: Path,
    tmp_path: Path,
    reads: list[str],
    parses: list[str],
    change: Callable[[Path], object],
) -> None:
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    config = lab.parent / "snapshots" / "leaf1" / "show_runningconfiguration_all.json"
    change(config)
    reads.clear()
    parses.clear()
    got = api.audit(lab, cache=ParseCache(tmp_path / "c"))
    assert reads == ["leaf1"]
    assert set(parses) <= {"leaf1"}
    assert report(got) == report(api.audit(lab))


def test_a_changed_single_file_snapshot_is_read_again(
    lab: Path, tmp_path: Path, reads: list[str]
) -> None:
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    single = lab.parent / "configs" / "leaf4.yaml"
    single.write_text(single.read_text().replace("mtu: 9216", "mtu: 9000"))
    reads.clear()
    got = api.audit(lab, cache=ParseCache(tmp_path / "c"))
    assert set(reads) == {"leaf4"}
    assert report(got) == report(api.audit(lab))


def test_racy_files_are_hashed_again(tmp_path: Path, reads: list[str]) -> None:
    """Files modified within the racy window of the read are not trusted by signature."""
    shutil.copytree(LAB, tmp_path / "lab")  # fresh copy: mtimes and ctimes are now
    inventory = tmp_path / "lab" / "inventory.yaml"
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    reads.clear()
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    assert len(set(reads)) == LAB_DEVICES


def test_signature_of_what_is_not_a_snapshot(tmp_path: Path) -> None:
    assert statindex.signature(tmp_path / "absent") is None
    os.mkfifo(tmp_path / "fifo")
    assert statindex.signature(tmp_path / "fifo") is None
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / ".hidden").write_text("x")
    empty = statindex.signature(tmp_path / "d")
    (tmp_path / "d" / ".hidden").write_text("changed")
    assert statindex.signature(tmp_path / "d") == empty


def test_a_replaced_entry_is_pruned(lab: Path, tmp_path: Path) -> None:
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    entries = sorted((tmp_path / "c" / parsecache.CACHE_VERSION).glob("??/*.json"))
    assert len(entries) == LAB_DEVICES
    config = lab.parent / "snapshots" / "leaf1" / "show_runningconfiguration_all.json"
    config.write_text(config.read_text() + " ")
    cache = ParseCache(tmp_path / "c")
    api.audit(lab, cache=cache)
    after = sorted((tmp_path / "c" / parsecache.CACHE_VERSION).glob("??/*.json"))
    assert cache.pruned == 1
    assert len(after) == LAB_DEVICES
    assert len(set(after) - set(entries)) == 1


def test_a_damaged_index_only_costs_a_read(lab: Path, tmp_path: Path, reads: list[str]) -> None:
    first = report(api.audit(lab, cache=ParseCache(tmp_path / "c")))
    index = tmp_path / "c" / parsecache.CACHE_VERSION / "stat-index"
    for damage in (b"", b"[]", b'{"format":1,"records":{"x":[1,2,3]}}', b"\x80"):
        index.write_bytes(damage)
        reads.clear()
        assert report(api.audit(lab, cache=ParseCache(tmp_path / "c"))) == first
        assert len(set(reads)) == LAB_DEVICES


def test_an_index_pointing_at_another_entry_is_caught_by_the_key(lab: Path, tmp_path: Path) -> None:
    """A record whose key names another device's entry: the entry's content decides."""
    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    cache = ParseCache(tmp_path / "c")
    records = cache.index._load()
    keys = [r[1] for r in records.values()]
    for i, record in enumerate(records.values()):
        record[1] = keys[(i + 1) % len(keys)]
    cache.index._changed = True
    cache.save_index()
    got = ParseCache(tmp_path / "c")
    assert report(api.audit(lab, cache=got)) == report(api.audit(lab))
    # each entry names the device it was stored for: the index's keys are not used; the
    # snapshots are hashed again and their own entries found
    assert (got.ignored, got.hits) == (LAB_DEVICES, LAB_DEVICES)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_misses_are_parsed_in_the_pool_hits_in_the_parent(
    lab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rocetune.api import parsing

    monkeypatch.setattr(parsing, "DEVICES_PER_PROCESS", 1)
    plain = report(api.audit(lab))
    cold = ParseCache(tmp_path / "c")
    assert report(api.audit(lab, cache=cold, processes=2)) == plain
    assert (cold.hits, cold.misses) == (0, LAB_DEVICES)  # counted in the workers
    assert len(cold.index._load()) == LAB_DEVICES  # the workers' records came back
    config = lab.parent / "snapshots" / "leaf1" / "show_runningconfiguration_all.json"
    config.write_text(config.read_text() + " ")
    warm = ParseCache(tmp_path / "c")
    assert report(api.audit(lab, cache=warm, processes=2)) == report(api.audit(lab))
    assert (warm.hits, warm.misses) == (LAB_DEVICES - 1, 1)


def test_lazy_provenance_gives_the_same_lookups(tmp_path: Path) -> None:
    from rocetune.model import Provenance

    inventory = LAB / "inventory.yaml"
    plain = api.audit(inventory)
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    cached = api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    for name, prov in plain.provenance.items():
        lazy = cached.provenance[name]
        assert isinstance(lazy, Provenance)
        for path, ref in prov.items():
            assert lazy.lookup(path) == ref
        assert dict(lazy.items()) == dict(prov.items())
        assert lazy.lookup("no.such.path") == prov.lookup("no.such.path")


def test_lazy_provenance_answers_the_device_source_without_decoding_it_all(
    tmp_path: Path,
) -> None:
    """lookup(None) (asked of every device by the fix planner) equals the plain one and
    leaves the table undecoded; any other lookup still decodes it."""
    inventory = LAB / "inventory.yaml"
    plain = api.audit(inventory)
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    cached = api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    undecoded = 0
    for name, prov in plain.provenance.items():
        lazy = cached.provenance[name]
        if getattr(lazy, "_raw", None) is None:  # decoded by the audit (a finding's line)
            continue
        undecoded += 1
        assert lazy.lookup(None) == prov.lookup(None) is not None
        assert lazy.lookup("") == prov.lookup("")
        assert getattr(lazy, "_raw", None) is not None  # still undecoded
        assert lazy.lookup("ports") == prov.lookup("ports")
        assert getattr(lazy, "_raw", None) is None
    assert undecoded


def test_cache_clean_and_info(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rocetune.cli import cli

    directory = tmp_path / "c"
    api.audit(LAB / "inventory.yaml", cache=ParseCache(directory))
    runner = CliRunner()
    shown = runner.invoke(cli, ["cache", "info", "--cache-dir", str(directory)])
    assert shown.exit_code == 0, shown.output
    assert (
        f"{parsecache.CACHE_VERSION} (this version): {LAB_DEVICES} parsed snapshots" in shown.output
    )
    other = tmp_path / "not-a-cache"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    refused = runner.invoke(cli, ["cache", "clean", "--cache-dir", str(other)])
    assert refused.exit_code == 2
    assert "not a rocetune cache directory" in refused.output
    assert (other / "keep.txt").exists()
    done = runner.invoke(cli, ["cache", "clean", "--cache-dir", str(directory)])
    assert done.exit_code == 0, done.output
    assert "removed" in done.output
    assert not directory.exists()
    again = runner.invoke(cli, ["cache", "clean", "--cache-dir", str(directory)])
    assert (again.exit_code, again.output.strip()) == (0, f"{directory}: no cache")


def test_lazy_provenance_equals_pickles_and_copies_as_a_plain_one(tmp_path: Path) -> None:
    import copy
    import pickle

    inventory = LAB / "inventory.yaml"
    plain = api.audit(inventory)
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    for name, prov in api.audit(inventory, cache=ParseCache(tmp_path / "c")).provenance.items():
        assert type(prov).__name__ == "LazyProvenance"
        again = pickle.loads(pickle.dumps(prov))
        assert type(again) is type(plain.provenance[name])
        assert dict(again.items()) == dict(plain.provenance[name].items())
        assert dict(copy.deepcopy(prov).items()) == dict(again.items())
        assert prov == again


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_the_workers_sign_and_parse_the_changed_the_parent_decodes_the_unchanged(
    lab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-audit with one snapshot changed and a pool: the workers take every stat
    signature and parse the changed snapshot (never taken from its old entry, though this
    process decoded that entry meanwhile); this process takes no signature and decodes the
    recorded entries; the report is the uncached one and the counts are the hits used."""
    from rocetune.api import parsing

    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    config = lab.parent / "snapshots" / "leaf1" / "show_runningconfiguration_all.json"
    config.write_text(config.read_text().replace("9214", "1500"))  # same size, other content
    monkeypatch.setattr(parsing, "DEVICES_PER_PROCESS", 1)
    monkeypatch.setattr(parsing, "cpus", lambda: 2)
    parent = os.getpid()
    signed: list[Path] = []
    decoded: list[str] = []
    real_signature, real_entry = statindex._signature, load.cached_entry

    def signature(source: Path) -> Any:
        if os.getpid() == parent:
            signed.append(source)
        return real_signature(source)

    def entry(known: Any, asic: Any, **kw: Any) -> Any:
        decoded.append(known[0])
        return real_entry(known, asic, **kw)

    monkeypatch.setattr(statindex, "_signature", signature)
    monkeypatch.setattr(parsing, "cached_entry", entry)
    warm = ParseCache(tmp_path / "c")
    started = time.time_ns()
    got = api.audit(lab, cache=warm)
    assert signed == []
    assert len(decoded) == LAB_DEVICES  # leaf1's old entry too, dropped
    assert (warm.hits, warm.misses) == (LAB_DEVICES - 1, 1)
    assert report(got) == report(api.audit(lab))
    # the workers' signatures of the unchanged snapshots are this process's own (the run
    # cache asks for them); leaf1's was taken in the worker that parsed it
    for snapshot in sorted((lab.parent / "snapshots").iterdir()):
        assert statindex.signature(snapshot, since_ns=started) is not None
    assert [p.name for p in signed] == ["leaf1"]


@pytest.mark.parametrize("pool", [False, True])
def test_an_entry_gone_behind_a_known_signature_is_parsed_after_the_others(
    lab: Path, tmp_path: Path, parses: list[str], pool: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index knows the snapshot, its entry is gone or damaged: parsed (late), counted as
    a miss, the report that of a run without the cache (in this process, and with a pool
    whose workers take the signatures)."""
    from rocetune.api import parsing

    api.audit(lab, cache=ParseCache(tmp_path / "c"))
    if pool:
        if not hasattr(os, "fork"):
            pytest.skip("fork only")
        monkeypatch.setattr(parsing, "DEVICES_PER_PROCESS", 1)
        monkeypatch.setattr(parsing, "cpus", lambda: 2)
    shutil.rmtree(bundles(tmp_path / "c"))  # the entries answer
    entries = sorted((tmp_path / "c" / parsecache.CACHE_VERSION).glob("??/*.json"))
    entries[0].unlink()
    entries[1].write_bytes(entries[1].read_bytes()[:-10])
    parses.clear()
    warm = ParseCache(tmp_path / "c")
    got = api.audit(lab, cache=warm)
    assert len(parses) == (0 if pool else 2)  # a pool's workers parse them
    assert (warm.hits, warm.misses, warm.ignored) == (LAB_DEVICES - 2, 2, 1)
    assert report(got) == report(api.audit(lab))
