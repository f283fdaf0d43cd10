"""The whole-run cache of ``rocetune audit`` (rocetune.runcache): a replayed run prints
byte for byte what the audit prints, and any change of an input is a miss."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from rocetune import api, cacheauth, runcache, statindex
from rocetune.cli import cli
from rocetune.report import FORMATS
from tests.cli.conftest import ROOT

LAB = ROOT / "inventories" / "lab"


@dataclass(frozen=True)
class Out:
    code: int
    out: bytes
    err: bytes


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the lab fabric in the working directory; snapshots written just before a run
    count as settled (the racy-clean margin is 0 here: git's 2 s would make every fresh copy
    a miss)."""
    shutil.copytree(LAB, tmp_path / "lab")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(statindex, "RACY_NS", 0)
    for name in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "ROCETUNE_DOCS_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "lab"


def audit(*args: str, env: dict[str, str] | None = None) -> Out:
    res = CliRunner().invoke(
        cli, ["audit", "lab/inventory.yaml", *args], env=env, catch_exceptions=False
    )
    return Out(res.exit_code, res.stdout_bytes, res.stderr_bytes)


def stored(cache: Path) -> list[Path]:
    return sorted((cache / "runs").rglob("*.json"))


def no_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any audit fail: what is printed now can only be a replay."""

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("audited although the run was cached")

    monkeypatch.setattr(api, "audit_inventory", boom)
    monkeypatch.setattr(api, "audit", boom)


def audited(out: Out) -> None:
    """``out`` is the run of an audit made to fail by :func:`no_audit` (not a replay)."""
    assert out.code == 2
    assert b"audited although the run was cached" in out.err


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_replay_is_byte_identical_in_every_format(
    lab: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    uncached = audit("--format", fmt, "--no-cache")
    first = audit("--format", fmt)  # parses, checks, renders; stores the run
    assert first == uncached
    with monkeypatch.context() as m:
        no_audit(m)
        replayed = audit("--format", fmt)
    assert replayed == uncached
    assert uncached.code == 1
    assert uncached.out


def test_options_and_output_file(lab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args = ("--output-format", "concise", "--fail-on", "info", "--select", "RT2,RT7")
    uncached = audit(*args, "--no-cache")
    assert audit(*args) == uncached
    audit("-o", "report.json", "--format", "json")
    written = Path("report.json").read_bytes()
    Path("report.json").unlink()
    with monkeypatch.context() as m:
        no_audit(m)
        assert audit(*args) == uncached
        assert audit("-o", "report.json", "--format", "json").code == 1
    assert Path("report.json").read_bytes() == written
    # another option is another run: audited, never the stored one
    assert audit("--exit-zero").code == 0


def edit_snapshot_file(lab: Path) -> None:
    mtu = lab / "snapshots" / "gpu01" / "cat_sys_class_net_eth2_mtu.txt"
    mtu.write_text("1500\n")


def edit_single_file_snapshot(lab: Path) -> None:
    leaf4 = lab / "configs" / "leaf4.yaml"
    leaf4.write_text(leaf4.read_text().replace("mtu: 9214", "mtu: 9000", 1))


def add_snapshot_file(lab: Path) -> None:
    meta = lab / "snapshots" / "gpu02" / "meta.json"
    shutil.copy(lab / "snapshots" / "gpu01" / "meta.json", lab / "snapshots" / "gpu02" / "x")
    meta.write_text(meta.read_text().replace("gpu02", "gpu2x"))


def edit_inventory(lab: Path) -> None:
    inv = lab / "inventory.yaml"
    inv.write_text(inv.read_text().replace("roce_dscp: [26]", "roce_dscp: [24]"))


def add_config(lab: Path) -> None:
    Path("rocetune.toml").write_text('ignore = ["RT201"]\n')


@pytest.mark.parametrize(
    "change",
    [edit_snapshot_file, edit_single_file_snapshot, add_snapshot_file, edit_inventory, add_config],
)
def test_a_changed_input_is_audited_again(lab: Path, change: object) -> None:
    before = audit()
    assert audit() == before  # stored, then replayed
    time.sleep(0.01)  # past the file system's timestamp granularity
    assert callable(change)
    change(lab)
    after = audit()
    assert after == audit("--no-cache")
    assert after != before


def test_environment_that_changes_the_report(lab: Path) -> None:
    plain = audit()
    assert audit() == plain
    coloured = audit(env={"FORCE_COLOR": "1"})
    assert coloured == audit("--no-cache", env={"FORCE_COLOR": "1"})
    assert coloured.out != plain.out
    narrow = audit(env={"COLUMNS": "60"})
    assert narrow == audit("--no-cache", env={"COLUMNS": "60"})
    assert narrow.out != plain.out
    assert audit() == plain


def test_changed_code_is_a_miss(lab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    audit()
    audit()
    monkeypatch.setattr(runcache, "code_fingerprint", lambda: "another build")
    with monkeypatch.context() as m:
        no_audit(m)
        audited(audit())


def test_tampered_or_unkeyed_entry_is_never_replayed(
    lab: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    truth = audit()
    assert audit() == truth
    (entry,) = stored(_cache_dir())
    raw = entry.read_bytes()
    entry.write_bytes(raw.replace(b"RT201", b"RT999"))  # MAC no longer verifies
    assert audit() == truth  # audited again (and stored again)
    assert audit() == truth  # replayed from the entry stored again
    monkeypatch.setattr(cacheauth, "secret", lambda: None)  # no usable key for this user
    with monkeypatch.context() as m:
        no_audit(m)
        audited(audit())


def test_fresh_snapshots_are_not_stored(lab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statindex, "RACY_NS", 10**12)  # everything counts as just modified
    audit()
    assert stored(_cache_dir()) == []


def test_runs_not_stored(lab: Path) -> None:
    audit("--no-cache")
    audit("--write-baseline", "base.json")
    audit("--baseline", "base.json")
    assert stored(_cache_dir()) == []
    audit()
    assert len(stored(_cache_dir())) == 1


def test_config_names_are_the_configs() -> None:
    from rocetune.cli.collect import DEFAULT_WORKERS
    from rocetune.collect.options import DEFAULT_WORKERS as COLLECT_DEFAULT
    from rocetune.config import CONFIG_NAME, PYPROJECT

    assert runcache.CONFIG_NAMES == (CONFIG_NAME, PYPROJECT)
    assert DEFAULT_WORKERS == COLLECT_DEFAULT


def _cache_dir() -> Path:
    return Path(os.environ["ROCETUNE_CACHE_DIR"])


HEAVY = (
    "pydantic",
    "pydantic_core",
    "rocetune.model",
    "rocetune.engine",
    "rocetune.checks",
    "rocetune.inventory",
    "rocetune.load",
    "rocetune.api",
    "rocetune.report.text",
    "rocetune.render",
    "jinja2",
    "yaml",
    "ruamel",
    *(f"rocetune.platforms.{name}" for name in ("sonic", "cumulus", "eos", "nxos", "linux_host")),
)
"""What a replayed audit must not import (the import budget of the cached path)."""


def test_replayed_audit_imports_no_model_checks_platforms_or_jinja(tmp_path: Path) -> None:
    """The real entry point in a fresh interpreter, on the lab in place (its files are older
    than the racy-clean margin): the third run replays, printing what the first printed."""
    import subprocess
    import sys

    probe = (  # the modules are listed at exit (the CLI ends the process when it is done)
        "import atexit, sys, runpy\n"
        "def report():\n"
        f"    heavy = [m for m in sys.modules if m.split('.')[0] in {HEAVY!r}"
        f" or any(m.startswith(h + '.') or m == h for h in {HEAVY!r})]\n"
        "    print('\\nHEAVY', sorted(heavy), file=sys.stderr)\n"
        "atexit.register(report)\n"
        f"sys.argv = ['rocetune', 'audit', {str(LAB / 'inventory.yaml')!r},"
        f" '--cache-dir', {str(tmp_path / 'cache')!r}]\n"
        "runpy.run_module('rocetune', run_name='__main__')\n"
    )

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
            timeout=120,
        )

    first = run()
    assert first.returncode == 1, first.stderr[-800:]
    assert "HEAVY []" not in first.stderr  # audited: the model and checks were imported
    run()  # a second audit in case the first saw a snapshot as just modified
    third = run()
    assert third.returncode == 1
    assert third.stderr.endswith("HEAVY []\n"), third.stderr[-800:]
    assert third.stdout == first.stdout
    assert "error(s)" in third.stdout


def test_store_signs_the_snapshots_as_the_audit_read_them(
    lab: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Storing a run takes each snapshot's stat signature the audit's read took (no second
    signature per snapshot); a snapshot changed after it was read, during the run, makes the
    next run a miss: the stored signature is the one before the change."""
    calls: list[Path] = []
    taken = statindex._signature

    def count(source: Path) -> statindex.Signature | None:
        calls.append(source)
        return taken(source)

    monkeypatch.setattr(statindex, "_signature", count)
    in_store: list[int] = []
    store = runcache.Run.store

    def counted(run: runcache.Run, *args: object) -> bool:
        before = len(calls)
        done = store(run, *args)  # type: ignore[arg-type]
        in_store.append(len(calls) - before)
        return done

    monkeypatch.setattr(runcache.Run, "store", counted)
    first = audit()
    assert len(stored(_cache_dir())) == 1
    assert calls
    assert in_store == [0]  # every snapshot was signed by the audit's reads
    real = api.audit_inventory

    def change_after_reading(*args: object, **kwargs: object) -> object:
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        time.sleep(0.01)  # past the file system's timestamp granularity
        edit_snapshot_file(lab)
        return result

    (lab / "inventory.yaml").write_text((lab / "inventory.yaml").read_text() + "\n")
    monkeypatch.setattr(api, "audit_inventory", change_after_reading)
    assert audit() == first  # the inventory changed (a miss), the snapshot after the read
    monkeypatch.setattr(api, "audit_inventory", real)
    after = audit()
    assert after == audit("--no-cache")
    assert after != first


def test_unchanged_content_under_new_signatures_is_replayed(
    lab: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh copy of the same files (a new checkout, a restored CI cache: every inode and
    time new) is read and hashed, not audited: the run is replayed, and the entry takes the
    new signatures, so the next run does not read the snapshots again."""
    first = audit()
    assert audit() == first  # stored
    shutil.rmtree(lab)
    shutil.copytree(LAB, lab)
    hashed: list[object] = []
    same = runcache.Run._same_content

    def counted(run: runcache.Run, row: list[object]) -> bool:
        hashed.append(row[0])
        return same(run, row)

    monkeypatch.setattr(runcache.Run, "_same_content", counted)
    with monkeypatch.context() as m:
        no_audit(m)
        assert audit() == first
        assert len(hashed) == 10  # every snapshot of the lab: all have new signatures
        hashed.clear()
        assert audit() == first
        assert hashed == []  # signed again: a stat hit


def test_a_touched_file_is_replayed_a_changed_one_is_not(lab: Path) -> None:
    first = audit()
    assert audit() == first
    leaf4 = lab / "configs" / "leaf4.yaml"
    text = leaf4.read_text()
    time.sleep(0.01)  # past the file system's timestamp granularity
    leaf4.write_text(text)  # the same bytes, a new modification time
    os.utime(lab / "snapshots" / "gpu01" / "meta.json")
    with pytest.MonkeyPatch.context() as m:
        no_audit(m)
        assert audit() == first
    leaf4.write_text(text.replace("mtu: 9214", "mtu: 9000", 1))
    after = audit()
    assert after != first
    assert after == audit("--no-cache")


def test_a_snapshot_read_without_a_key_is_only_known_by_its_signature(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source stored without its parse cache key (not read through the cache) and whose
    signature changed is a miss, even with the same content."""
    monkeypatch.setattr(statindex, "RACY_NS", 0)
    monkeypatch.setattr(cacheauth, "secret", lambda: b"k" * 32)
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "show.txt").write_text("x\n")
    inv = tmp_path / "inventory.yaml"
    inv.write_text("devices: {}\n")
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.chdir(tmp_path)

    def entry() -> runcache.Run:
        got = runcache.open_run(cache, "audit", inv, {}, {})
        assert got is not None
        return got

    replay = runcache.Replay("report\n", False, (), 1)
    assert entry().store([runcache.Source(snap, "d", None, None, None)], replay)
    assert entry().lookup() == replay
    time.sleep(0.01)
    (snap / "show.txt").write_text("x\n")  # same content, new signature
    assert entry().lookup() is None
