"""The parse cache (rocetune.parsecache, issue 17 item 6): a re-audit parses only the
snapshots that changed, gives the same report as an uncached run, and survives damaged
entries, other versions and a cache it cannot write."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rocetune import api, load, parsecache
from rocetune.model import AuditResult
from rocetune.parsecache import ParseCache
from rocetune.report import render
from tests.paths import bundles
from tests.realworld import score

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab"
LAB_DEVICES = 10


def report(result: AuditResult) -> str:
    return render("json", result)


def test_unchanged_snapshots_are_not_parsed_again(
    lab: Path, tmp_path: Path, parses: list[str]
) -> None:
    cold = ParseCache(tmp_path / "cache")
    first = api.audit(lab, cache=cold)
    assert len(parses) == LAB_DEVICES
    assert (cold.hits, cold.misses) == (0, LAB_DEVICES)

    parses.clear()
    warm = ParseCache(tmp_path / "cache")
    second = api.audit(lab, cache=warm)
    assert parses == []
    assert (warm.hits, warm.misses, warm.ignored) == (LAB_DEVICES, 0, 0)
    assert report(second) == report(first)


def test_a_changed_file_is_parsed_again_and_only_its_device(
    lab: Path, tmp_path: Path, parses: list[str]
) -> None:
    api.audit(lab, cache=ParseCache(tmp_path / "cache"))
    parses.clear()
    config = lab.parent / "snapshots" / "leaf1" / "show_runningconfiguration_all.json"
    text = config.read_text()
    assert text.count('"mtu": "9214"') == 4
    config.write_text(text.replace('"mtu": "9214"', '"mtu": "1500"'))
    single = lab.parent / "configs" / "leaf4.yaml"  # a device whose snapshot is one file
    single.write_text(single.read_text() + "\n")

    again = api.audit(lab, cache=ParseCache(tmp_path / "cache"))
    assert sorted(parses) == ["leaf1", "leaf4"]
    assert report(again) == report(api.audit(lab))
    assert again.fabric.devices["leaf1"].ports["Ethernet0"].mtu == 1500


def test_a_new_file_in_a_snapshot_directory_is_a_change(
    lab: Path, tmp_path: Path, parses: list[str]
) -> None:
    api.audit(lab, cache=ParseCache(tmp_path / "cache"))
    parses.clear()
    (lab.parent / "snapshots" / "gpu01" / "extra_output.txt").write_text("x\n")
    api.audit(lab, cache=ParseCache(tmp_path / "cache"))
    assert parses == ["gpu01"]


def test_inventory_role_and_asic_are_honoured(lab: Path, tmp_path: Path) -> None:
    """The role is part of the key; the inventory's asic is laid over a cached parse."""
    api.audit(lab, cache=ParseCache(tmp_path / "cache"))
    text = lab.read_text().replace(
        "leaf1: {host: 10.0.0.11, groups: [leaves, sonic],",
        "leaf1: {host: 10.0.0.11, groups: [spines, sonic], asic: th5,",
    )
    lab.write_text(text)
    cache = ParseCache(tmp_path / "cache")
    result = api.audit(lab, cache=cache)
    assert cache.misses == 1
    leaf1 = result.fabric.devices["leaf1"]
    assert (leaf1.role, leaf1.asic) == ("spine", "th5")
    assert report(result) == report(api.audit(lab))


def test_lab_report_equals_uncached(tmp_path: Path) -> None:
    inventory = LAB / "inventory.yaml"
    plain = report(api.audit(inventory))
    for _ in range(2):  # cold, then every device from the cache
        assert report(api.audit(inventory, cache=ParseCache(tmp_path / "c"))) == plain


def test_realworld_and_corpus_reports_equal_uncached(tmp_path: Path) -> None:
    """Every real-world config and corpus copy, linted alone: cold and warm cache runs give
    the JSON report of the uncached run (the round trip of every parsed model is exact)."""
    files = [p for p, _ in score.expectations()]
    files += sorted((ROOT / "tests" / "fixtures").rglob("corpus_*"))
    assert len(files) > 40
    warm = ParseCache(tmp_path / "c")
    for path in files:
        plain = report(api.lint([path]))
        cold = report(api.lint([path], cache=ParseCache(tmp_path / "c")))
        assert cold == plain, path
        assert report(api.lint([path], cache=warm)) == plain, path
    assert warm.hits > 40
    assert warm.ignored == 0


def _entries(directory: Path) -> list[Path]:
    return sorted((directory / parsecache.CACHE_VERSION).glob("??/*.json"))


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: b"",
        lambda raw: raw[: len(raw) // 2],
        lambda raw: b"\x80\x81 not json",
        lambda raw: raw.replace(b'"kind":"', b'"kind":"router-'),
        lambda raw: raw.replace(b'"format":4', b'"format":99'),
        lambda raw: raw.replace(b'"refs":[', b'"refs":[["x",999,1],'),
        lambda raw: b"[]",
        lambda raw: raw.replace(b"\n", b" "),
        lambda raw: raw.replace(b'"refs":[', b'"refs":[[1,0,1],'),
    ],
    ids=[
        "empty",
        "truncated",
        "binary",
        "invalid-model",
        "format",
        "bad-ref",
        "not-object",
        "one-line",
        "bad-path",
    ],
)
def test_a_damaged_entry_is_ignored_and_rewritten(
    tmp_path: Path, parses: list[str], damage: Callable[[bytes], bytes], no_key: None
) -> None:
    inventory = LAB / "inventory.yaml"
    plain = report(api.audit(inventory))
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    entries = _entries(tmp_path / "c")
    assert len(entries) == LAB_DEVICES
    for entry in entries:
        entry.write_bytes(damage(entry.read_bytes()))
    parses.clear()
    cache = ParseCache(tmp_path / "c")
    assert report(api.audit(inventory, cache=cache)) == plain
    assert len(parses) == LAB_DEVICES
    assert (cache.hits, cache.ignored) == (0, LAB_DEVICES)
    parses.clear()
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    assert parses == []  # rewritten


def test_an_entry_under_another_key_is_not_used(tmp_path: Path, parses: list[str]) -> None:
    """An entry copied to another key's file (or a hash collision) names its own key."""
    inventory = LAB / "inventory.yaml"
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    shutil.rmtree(bundles(tmp_path / "c"))  # the entries answer
    entries = _entries(tmp_path / "c")
    donor = entries[0].read_bytes()
    for entry in entries[1:]:
        entry.write_bytes(donor)
    parses.clear()
    cache = ParseCache(tmp_path / "c")
    api.audit(inventory, cache=cache)
    assert (cache.hits, cache.ignored) == (1, LAB_DEVICES - 1)


def test_another_version_does_not_read_the_entries(
    tmp_path: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    inventory = LAB / "inventory.yaml"
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    monkeypatch.setattr(parsecache, "CACHE_VERSION", "9.9.9-f1")
    parses.clear()
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    assert len(parses) == LAB_DEVICES
    assert (tmp_path / "c" / "9.9.9-f1").is_dir()


def test_changed_rocetune_code_does_not_read_the_entries(
    tmp_path: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A development checkout whose parser changed (same version number) parses again."""
    inventory = LAB / "inventory.yaml"
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    monkeypatch.setattr(parsecache, "code_fingerprint", lambda: "edited")
    parses.clear()
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    assert len(parses) == LAB_DEVICES


def test_fingerprint_follows_the_package_files() -> None:
    parsecache.code_fingerprint.cache_clear()
    first = parsecache.code_fingerprint()
    module = Path(parsecache.__file__)
    st = module.stat()
    try:
        os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        parsecache.code_fingerprint.cache_clear()
        assert parsecache.code_fingerprint() != first
    finally:
        os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns))
        parsecache.code_fingerprint.cache_clear()
    assert parsecache.code_fingerprint() == first


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_cache_is_skipped(tmp_path: Path) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        cache = ParseCache(directory / "cache")
        api.audit(LAB / "inventory.yaml", cache=cache)
        assert cache.write_errors == 1
    finally:
        directory.chmod(0o700)


def test_a_cache_path_that_is_a_file_is_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = ParseCache(blocker)
    result = api.audit(LAB / "inventory.yaml", cache=cache)
    assert cache.write_errors == 1
    assert report(result) == report(api.audit(LAB / "inventory.yaml"))


def test_cache_directory_is_tagged_and_ignored_by_git(tmp_path: Path) -> None:
    api.audit(LAB / "inventory.yaml", cache=ParseCache(tmp_path / "c"))
    assert (tmp_path / "c" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (
        (tmp_path / "c" / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )
    stray = [p for p in (tmp_path / "c").rglob("*") if p.name.endswith(".tmp")]
    assert stray == []


def test_without_a_key_entries_are_json_validated_again(tmp_path: Path, no_key: None) -> None:
    """Entries are JSON the model validates again (never unpickled)."""
    import json

    plain = report(api.audit(LAB / "inventory.yaml"))
    api.audit(LAB / "inventory.yaml", cache=ParseCache(tmp_path / "c"))
    for entry in _entries(tmp_path / "c"):
        head, prov, device = entry.read_text().replace("Infinity", "1e999").split("\n")
        header = json.loads(head)
        assert set(header) == {"format", "key", "id", "prov", "body"}
        assert header["body"] == "json"
        assert header["key"] == entry.stem
        assert set(json.loads(prov)) == {"files", "refs"}
        assert json.loads(device)["name"] in {"spine1", "spine2", "leaf4"} | {
            f"{k}{i}" for k in ("leaf", "gpu0") for i in range(1, 5)
        }
    cache = ParseCache(tmp_path / "c")
    assert report(api.audit(LAB / "inventory.yaml", cache=cache)) == plain
    assert cache.hits == LAB_DEVICES


def test_pickled_entries_are_authenticated(tmp_path: Path, parses: list[str]) -> None:
    """With the user's key, devices are pickled under a MAC; an entry whose MAC does not
    verify (forged, damaged, another user's key) is never unpickled."""
    import hashlib
    import json
    import pickle

    from rocetune import cacheauth

    inventory = LAB / "inventory.yaml"
    plain = report(api.audit(inventory))
    api.audit(inventory, cache=ParseCache(tmp_path / "c"))
    shutil.rmtree(bundles(tmp_path / "c"))  # the entries answer (the bundle: its own test)
    entries = _entries(tmp_path / "c")
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (marker.write_text, ("x",))

    for i, entry in enumerate(entries):
        head, rest = entry.read_bytes().split(b"\n", 1)
        header = json.loads(head)
        assert header["body"] == "pickle"
        assert len(header["mac"]) == 64
        prov, device = rest[: header["plen"]], rest[header["plen"] :]
        if i % 2:  # a forged device
            entry.write_bytes(head + b"\n" + prov + pickle.dumps(Evil()))
        else:  # forged provenance tables (their checksum and length made to match)
            evil = pickle.dumps(Evil())
            header.update(prov=hashlib.blake2b(evil, digest_size=16).hexdigest(), plen=len(evil))
            entry.write_bytes(json.dumps(header).encode() + b"\n" + evil + device)
    parses.clear()
    cache = ParseCache(tmp_path / "c")
    assert report(api.audit(inventory, cache=cache)) == plain
    assert not marker.exists()
    assert (cache.hits, cache.ignored, len(parses)) == (0, LAB_DEVICES, LAB_DEVICES)
    # another user's key: the entries (rewritten above) are not read either
    (tmp_path / "other").write_bytes(b"k" * 32)
    (tmp_path / "other").chmod(0o600)
    try:
        os.environ[cacheauth.ENV_KEY_FILE], old = (
            str(tmp_path / "other"),
            os.environ.get(cacheauth.ENV_KEY_FILE, ""),
        )
        cacheauth.secret.cache_clear()
        cache = ParseCache(tmp_path / "c")
        assert report(api.audit(inventory, cache=cache)) == plain
        assert cache.hits == 0
    finally:
        os.environ[cacheauth.ENV_KEY_FILE] = old
        cacheauth.secret.cache_clear()


def test_a_key_file_others_can_read_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rocetune import cacheauth

    key = tmp_path / "key"
    key.write_bytes(b"k" * 32)
    monkeypatch.setenv(cacheauth.ENV_KEY_FILE, str(key))
    try:
        for mode, usable in ((0o644, False), (0o600, True)):
            key.chmod(mode)
            cacheauth.secret.cache_clear()
            assert (cacheauth.secret() is not None) == usable
        key.write_bytes(b"short")
        cacheauth.secret.cache_clear()
        assert cacheauth.secret() is None
        fresh = tmp_path / "new" / "key"
        monkeypatch.setenv(cacheauth.ENV_KEY_FILE, str(fresh))
        cacheauth.secret.cache_clear()
        assert cacheauth.secret() is not None
        assert fresh.stat().st_mode & 0o777 == 0o600
    finally:
        cacheauth.secret.cache_clear()


def test_cli_cache_dir_no_cache_and_env(
    tmp_path: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from rocetune.cli import cli

    inventory = str(LAB / "inventory.yaml")
    runner = CliRunner()
    # junit: the other formats also plan the fixes (api.attach_fixes), which parses replays
    off = runner.invoke(cli, ["audit", inventory, "--format", "junit", "--no-cache"])
    assert off.exit_code == 1, off.output
    assert not Path(os.environ["ROCETUNE_CACHE_DIR"]).exists()
    assert len(parses) == LAB_DEVICES

    parses.clear()
    args = ["audit", inventory, "--format", "junit", "--cache-dir", str(tmp_path / "d")]
    first = runner.invoke(cli, args)
    second = runner.invoke(cli, args)
    assert len(parses) == LAB_DEVICES  # the second run parsed nothing
    assert first.output == second.output == off.output
    assert _entries(tmp_path / "d")

    parses.clear()
    monkeypatch.setenv("ROCETUNE_CACHE_DIR", str(tmp_path / "d"))
    third = runner.invoke(cli, ["audit", inventory, "--format", "junit"])
    assert (parses, third.output) == ([], off.output)

    lint_args = ["lint", str(LAB / "configs" / "leaf4.yaml"), "--format", "junit"]
    runner.invoke(cli, lint_args)
    parses.clear()
    again = runner.invoke(cli, lint_args)
    assert parses == []
    assert again.output == runner.invoke(cli, [*lint_args, "--no-cache"]).output


def test_a_changed_meta_json_is_a_change(lab: Path, tmp_path: Path, parses: list[str]) -> None:
    """meta.json is read too (collected_at decides whether a SONiC config is the running one)."""
    api.audit(lab, cache=ParseCache(tmp_path / "cache"))
    parses.clear()
    meta = lab.parent / "snapshots" / "leaf2" / "meta.json"
    text = meta.read_text()
    assert '"collected_at"' in text
    meta.write_text(text.replace('"collected_at": "', '"collected_at": "1', 1))
    api.audit(lab, cache=ParseCache(tmp_path / "cache"))
    assert parses == ["leaf2"]


def test_plan_and_render_from_the_cache_equal_uncached(tmp_path: Path) -> None:
    from rocetune.render.plan_output import to_json

    inventory = LAB / "inventory.yaml"
    plain = to_json(api.plan(inventory))
    for _ in range(2):  # cold, then from the cache
        assert to_json(api.plan(inventory, cache=ParseCache(tmp_path / "c"))) == plain
    api.render(inventory, tmp_path / "plain")
    api.render(inventory, tmp_path / "cached", cache=ParseCache(tmp_path / "c"))
    plain_files = sorted(p.relative_to(tmp_path / "plain") for p in (tmp_path / "plain").rglob("*"))
    cached_files = sorted(
        p.relative_to(tmp_path / "cached") for p in (tmp_path / "cached").rglob("*")
    )
    assert plain_files == cached_files
    for rel in plain_files:
        if (tmp_path / "plain" / rel).is_file():
            assert (tmp_path / "plain" / rel).read_bytes() == (
                tmp_path / "cached" / rel
            ).read_bytes()


def test_cached_device_looks_up_without_parsing(tmp_path: Path, parses: list[str]) -> None:
    """load.cached_device: a hit is load_device's result; a miss or a bad source is None."""
    snap = LAB / "snapshots" / "leaf1"
    cache = ParseCache(tmp_path / "c")
    assert load.cached_device("leaf1", snap, "sonic", "leaf", None, cache=cache) is None
    assert parses == []
    loaded = load.load_device("leaf1", snap, "sonic", "leaf", None, cache=cache)
    assert parses == ["leaf1"]
    hit = load.cached_device("leaf1", snap, "sonic", "leaf", "th5", cache=cache)
    assert hit is not None
    assert hit.result is not None
    assert loaded.result is not None
    assert hit.result.device == loaded.result.device.model_copy(update={"asic": "th5"})
    assert parses == ["leaf1"]
    assert load.cached_device("x", tmp_path / "missing", "sonic", None, None, cache=cache) is None
    assert (
        load.cached_device("x", "not collected: timeout", "sonic", None, None, cache=cache) is None
    )
