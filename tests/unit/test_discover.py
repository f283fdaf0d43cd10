"""Directory trees for lint/diff: recursion, the built-in skip list, include/exclude globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.discover import discover, matches


def _tree(root: Path) -> Path:
    files = {
        "site-a/leaf1/config_db.json": "{}",
        "site-a/leaf3.nvue.yaml": "- set: {}",
        "site-a/notes.md": "# notes",
        "site-b/spine2.cfg": "hostname spine2",
        "site-b/old/spine2.cfg.bak": "hostname spine2",
        "templates/leaf.j2": "{{ x }}",
        "README.md": "# configs",
        ".github/workflows/ci.yml": "on: push",
        "snap/meta.json": "{}",
        "snap/show_running_config.txt": "hostname x",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    return root


def _rel(root: Path, found: list[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in found]


def test_recursion_skips_hidden_docs_templates_and_keeps_snapshots(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert _rel(root, discover([root])) == [
        "site-a/leaf1/config_db.json",
        "site-a/leaf3.nvue.yaml",
        "site-b/old/spine2.cfg.bak",
        "site-b/spine2.cfg",
        "snap",
    ]


def test_exclude_globs_by_name_by_path_and_directory(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    found = discover([root], exclude=("*.bak", "snap"))
    assert _rel(root, found) == [
        "site-a/leaf1/config_db.json",
        "site-a/leaf3.nvue.yaml",
        "site-b/spine2.cfg",
    ]
    assert _rel(root, discover([root], exclude=("site-b/**",))) == [
        "site-a/leaf1/config_db.json",
        "site-a/leaf3.nvue.yaml",
        "snap",
    ]


def test_include_keeps_only_matching_files_snapshots_stay(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert _rel(root, discover([root], include=("**/config_db.json",))) == [
        "site-a/leaf1/config_db.json",
        "snap",
    ]


def test_named_files_are_read_unless_forced(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    readme = root / "README.md"
    assert discover([readme]) == [readme]
    assert discover([readme], force=True) == []
    bak = root / "site-b/old/spine2.cfg.bak"
    assert discover([bak], exclude=("old",), force=True) == []
    cfg = root / "site-b/spine2.cfg"
    assert discover([cfg], include=("*.json",), force=True) == []
    assert discover([cfg], force=True) == [cfg]


def test_symlinks_inside_a_tree_are_not_followed(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    outside = tmp_path / "secret.json"
    outside.write_text("{}\n", encoding="utf-8")
    (root / "site-a" / "link.json").symlink_to(outside)
    assert "site-a/link.json" not in _rel(root, discover([root]))


@pytest.mark.parametrize(
    ("path", "glob", "hit"),
    [
        ("a/b/c.json", "*.json", True),
        ("a/b/c.json", "a/*.json", False),
        ("a/b/c.json", "a/*/c.json", True),
        ("a/b/c.json", "**/c.json", True),
        ("c.json", "**/c.json", True),
        ("a/b", "a/b/", True),
        ("a/b/c.json", "./a/b/c.json", True),
    ],
)
def test_glob_semantics(path: str, glob: str, hit: bool) -> None:
    assert matches(path, [glob]) is hit


def test_a_directory_of_command_outputs_is_one_snapshot(tmp_path: Path) -> None:
    """A snapshot saved without meta.json (command-named outputs) stays one device."""
    snap = tmp_path / "tree" / "spine1"
    snap.mkdir(parents=True)
    for name in ("show_running_config.txt", "show_interfaces_status_json.json"):
        (snap / name).write_text("x\n", encoding="utf-8")
    names = frozenset({"show_running_config.txt"})
    assert discover([tmp_path / "tree"], snapshot_files=names) == [snap]
    assert discover([snap], snapshot_files=names) == [snap]
    assert len(discover([snap])) == 2  # without the names: two files
