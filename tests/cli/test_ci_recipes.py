"""docs/ci.md works verbatim: its workflow and pre-commit config run on the recommended layout.

The test builds the repository layout docs/ci.md recommends (configs of three platforms at
different depths, a README, a template, notes, a rocetune.toml, an intent), as a Git
repository with an ``origin`` holding ``main`` and a pull-request branch that breaks PFC on
one switch and edits the README. Then it runs, in order, every ``run:`` step of the workflow
printed in docs/ci.md (with GitHub's default shell, ``bash -eo pipefail``, and
``${{ github.base_ref }}`` = ``main``), and the pre-commit hook as pre-commit would (the
docs' ``files``/``args`` over the committed files, the entry of .pre-commit-hooks.yaml).
The install step is checked to be the documented ``git+...@v<version>`` form; installing
with that form is tested by ``test_install_from_a_git_tag`` (a local clone stands in for the
remote).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.paths import ROOT

DOC = ROOT / "docs" / "ci.md"
LAB = ROOT / "inventories" / "lab"
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
assert VERSION is not None
TAG = f"v{VERSION.group(1)}"


def _block(marker: str) -> str:
    """The fenced code block of docs/ci.md whose first line is ``marker``."""
    for block in re.findall(r"```[a-z]*\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        if block.splitlines()[0].strip() == marker:
            return str(block)
    raise AssertionError(f"docs/ci.md has no block starting with {marker!r}")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def _layout(root: Path) -> Path:
    """The recommended layout as a clone of an ``origin`` with ``main``; on branch ``pr``."""
    work = root / "work"
    files = {
        "configs/site-a/leaf1/config_db.json": LAB
        / "snapshots/leaf1/show_runningconfiguration_all.json",
        "configs/site-a/leaf3.nvue.yaml": LAB / "snapshots/leaf3/nv_config_show_o_yaml.yaml",
        "configs/site-b/spine2.cfg": LAB / "snapshots/spine2/show_running_config.txt",
    }
    for name, source in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, work / name)
    (work / "configs/README.md").write_text("# Fabric configs\n", encoding="utf-8")
    (work / "configs/site-a/notes.md").write_text("leaf1 was re-cabled\n", encoding="utf-8")
    (work / "configs/templates").mkdir()
    (work / "configs/templates/leaf.j2").write_text("hostname {{ name }}\n", encoding="utf-8")
    (work / "configs/site-b/spine2.cfg.bak").write_text("garbage\n", encoding="utf-8")
    toml = _block("# rocetune.toml")
    (work / "rocetune.toml").write_text(toml, encoding="utf-8")
    intent = YAML(typ="safe").load((LAB / "inventory.yaml").read_text(encoding="utf-8"))["intent"]
    (work / "fabric").mkdir()
    with (work / "fabric/intent.yaml").open("w", encoding="utf-8") as fh:
        YAML().dump({"intent": intent}, fh)
    (work / ".github/workflows").mkdir(parents=True)
    (work / ".github/workflows/rocetune.yml").write_text(
        _block("# .github/workflows/rocetune.yml"), encoding="utf-8"
    )
    (work / ".pre-commit-config.yaml").write_text(
        _block("# .pre-commit-config.yaml"), encoding="utf-8"
    )
    _git(root, "init", "-q", "--bare", "-b", "main", "origin.git")
    _git(work.parent, "init", "-q", "-b", "main", str(work))
    for key, value in (("user.name", "ci"), ("user.email", "ci@example.invalid")):
        _git(work, "config", key, value)
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "base")
    _git(work, "remote", "add", "origin", str(root / "origin.git"))
    _git(work, "push", "-q", "origin", "main")
    _git(work, "fetch", "-q", "origin")
    _git(work, "checkout", "-q", "-b", "pr")
    spine = work / "configs/site-b/spine2.cfg"
    text = spine.read_text(encoding="utf-8")
    assert "priority-flow-control mode on" in text
    spine.write_text(
        text.replace("priority-flow-control mode on", "priority-flow-control mode off")
    )
    (work / "configs/README.md").write_text("# Fabric configs\n\nspine2 PFC off\n")
    _git(work, "commit", "-q", "-am", "pr: spine2 without PFC")
    return work


def _tools(root: Path) -> dict[str, str]:
    bin_dir = root / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "rocetune"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m rocetune "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("ROCETUNE_")},
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "GITHUB_STEP_SUMMARY": str(root / "summary.md"),
        "NO_COLOR": "1",
    }


def _steps() -> list[dict[str, Any]]:
    workflow = YAML(typ="safe").load(_block("# .github/workflows/rocetune.yml"))
    steps: list[dict[str, Any]] = workflow["jobs"]["lint"]["steps"]
    return steps


def _run_step(
    step: dict[str, Any], work: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    script = str(step["run"]).replace("${{ github.base_ref }}", "main")
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("ci")
    work = _layout(root)
    env = _tools(root)
    results: dict[str, subprocess.CompletedProcess[str]] = {}
    installs = []
    for step in _steps():
        if "run" not in step:
            continue
        if str(step["run"]).startswith("pip install"):
            installs.append(step["run"])
            continue
        results[step.get("name", step["run"])] = _run_step(step, work, env)
    return {"root": root, "work": work, "env": env, "steps": results, "installs": installs}


def test_install_step_is_the_documented_git_tag_form(ran: dict[str, Any]) -> None:
    (install,) = ran["installs"]
    assert install == f'pip install "rocetune @ git+https://github.com/rocetune/rocetune@{TAG}"'
    assert install in DOC.read_text(encoding="utf-8").split("## Recommended", 1)[0]


def test_sarif_step_reads_every_config_in_the_tree_and_nothing_else(ran: dict[str, Any]) -> None:
    step = ran["steps"]["Lint all configs (SARIF)"]
    assert step.returncode == 0, step.stderr
    sarif = json.loads((ran["work"] / "rocetune.sarif").read_text(encoding="utf-8"))
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for result in sarif["runs"][0]["results"]
        for loc in result.get("locations", [])
    }
    assert uris <= {
        "configs/site-a/leaf1/config_db.json",
        "configs/site-a/leaf3.nvue.yaml",
        "configs/site-b/spine2.cfg",
    }, uris
    assert "configs/site-b/spine2.cfg" in uris
    assert not [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "RT002"]


def test_summary_steps_write_markdown(ran: dict[str, Any]) -> None:
    step = ran["steps"]["Summary of all configs"]
    assert step.returncode == 0, step.stderr
    summary = Path(ran["env"]["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert "**rocetune**:" in summary
    assert "| spine2 | nxos | ok |" in summary
    assert "**rocetune diff**:" in summary
    assert "### New in this change" in summary


def test_annotations_of_changed_configs_fail_on_the_new_errors(ran: dict[str, Any]) -> None:
    step = ran["steps"]["Annotate changed configs"]
    assert step.returncode == 1, step.stderr
    assert "::error file=configs/site-b/spine2.cfg" in step.stdout
    assert "README" not in step.stdout + step.stderr  # --force-exclude: docs are not configs


def test_diff_step_fails_on_findings_the_pr_adds(ran: dict[str, Any]) -> None:
    step = ran["steps"]["Diff against the base branch"]
    assert step.returncode == 1, step.stderr
    diff = (ran["work"] / "diff.md").read_text(encoding="utf-8")
    assert "RT201 pfc-on-lossless" in diff
    assert "spine2 Ethernet1/1: PFC priorities {3} → {}" in diff


def test_diff_honours_the_config_file(ran: dict[str, Any]) -> None:
    """rocetune.toml's ignore applies to diff as to lint: RT201 ignored. PFC off on spine2 is
    one root cause (RT201; RT102 no longer repeats it), so with RT201 ignored nothing new
    fails the step (without the config file the same diff exits 1, see the step above)."""
    work, env = ran["work"], ran["env"]
    (work / "strict.toml").write_text('ignore = ["RT201"]\nexclude = ["templates"]\n')
    done = subprocess.run(
        [
            "rocetune",
            "diff",
            "../base/configs",
            "configs",
            "--config",
            "strict.toml",
            "--format",
            "json",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    new = {f["code"] for f in json.loads(done.stdout)["findings"]["new"]}
    assert "RT201" not in new


def test_precommit_hook_as_documented(ran: dict[str, Any]) -> None:
    """pre-commit runs the hook's entry + args on the committed files its `files` matches."""
    work, env = ran["work"], ran["env"]
    config = YAML(typ="safe").load((work / ".pre-commit-config.yaml").read_text())
    (repo,) = config["repos"]
    assert repo["rev"] == TAG
    (ours,) = repo["hooks"]
    (hook,) = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert ours["id"] == hook["id"]
    files_re = re.compile(ours.get("files", hook["files"]))
    tracked = _git(work, "ls-files").split()
    chosen = [f for f in tracked if files_re.search(f)]
    assert "configs/site-b/spine2.cfg" in chosen
    argv = [*hook["entry"].split(), *ours.get("args", []), *chosen]
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr  # spine2 lost PFC on this branch
    assert "spine2" in done.stdout
    assert "RT002" not in done.stdout


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.slow
def test_install_from_a_git_tag(tmp_path: Path) -> None:
    """``pip install "rocetune @ git+URL@vX"`` installs that version. The remote is a clone of
    this checkout served by ``git daemon`` on 127.0.0.1 (pip wants a URL with a host)."""
    served = tmp_path / "served"
    clone = served / "rocetune"
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(clone)], check=True)
    for key, value in (("user.name", "ci"), ("user.email", "ci@example.invalid")):
        _git(clone, "config", key, value)
    if not _git(clone, "tag", "-l", TAG).strip():
        _git(clone, "tag", TAG)  # the checkout under test may not carry the release tag
    port = _free_port()
    daemon = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--listen=127.0.0.1",
            f"--port={port}",
            f"--base-path={served}",
            str(served),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"git://127.0.0.1:{port}/rocetune"
        for _ in range(100):  # until the daemon answers
            probe = subprocess.run(["git", "ls-remote", url], capture_output=True, check=False)
            if probe.returncode == 0:
                break
            time.sleep(0.1)
        target = tmp_path / "site"
        pip = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--target",
                str(target),
                f"rocetune @ git+{url}@{TAG}",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
    assert pip.returncode == 0, pip.stderr
    tagged = _git(clone, "show", f"{TAG}:pyproject.toml")
    wanted = re.search(r'^version = "([^"]+)"', tagged, re.M)
    assert wanted is not None
    (dist,) = target.glob("rocetune-*.dist-info")
    assert dist.name == f"rocetune-{wanted.group(1)}.dist-info"
    version = subprocess.run(  # the installed copy, not this checkout, answers
        [sys.executable, "-m", "rocetune", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(target)},
        check=True,
    )
    assert version.stdout.strip() == f"rocetune, version {wanted.group(1)}"


def test_release_version_is_consistent() -> None:
    """pyproject, the package, the newest CHANGELOG release and the documented tag agree."""
    import rocetune

    version = VERSION.group(1)
    assert rocetune.__version__ == version
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert releases
    assert releases[0] == version
    assert f"@{TAG}" in DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize("key", ["k" * 40, ""])
def test_the_cache_key_step_gives_every_run_the_secret_key_or_none(
    tmp_path: Path, key: str
) -> None:
    """The documented cache step: with the repository secret, a key file of this user only
    that rocetune uses; without it (a fork), no key (JSON entries, no whole-run cache)."""
    import textwrap

    steps = YAML(typ="safe").load(textwrap.dedent(_block("- uses: actions/cache@v4")))
    assert steps[0]["with"]["path"] == ".rocetune_cache"
    step = steps[1]
    github_env = tmp_path / "github_env"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ROCETUNE_")},
        "KEY": key,
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_ENV": str(github_env),
    }
    subprocess.run(["bash", "-eo", "pipefail", "-c", step["run"]], env=env, check=True)
    name, _, value = github_env.read_text().strip().partition("=")
    assert name == "ROCETUNE_CACHE_KEY_FILE"
    probe = "from rocetune import cacheauth; print(cacheauth.secret())"
    got = subprocess.run(
        [sys.executable, "-c", probe],
        env={**env, name: value, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if key:
        assert (Path(value).stat().st_mode & 0o777) == 0o600
        assert got == repr(key.encode())
    else:
        assert value == "/dev/null"
        assert got == "None"
