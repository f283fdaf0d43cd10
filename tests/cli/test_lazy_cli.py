"""The CLI group is lazy: --help lists every command from a table without importing them,
and the table says what the commands themselves say."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
import pytest

from rocetune.cli import COMMANDS, cli


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_table_matches_the_command(name: str) -> None:
    target, short = COMMANDS[name]
    module, _, attr = target.partition(":")
    command = getattr(importlib.import_module(module), attr)
    assert isinstance(command, click.Command)
    assert command.name == name
    assert command.get_short_help_str(limit=45) == short


def test_help_and_version_import_no_checking_code() -> None:
    probe = (  # the modules are listed at exit (the CLI ends the process when it is done)
        "import atexit, sys, runpy\n"
        "def report():\n"
        "    heavy = [m for m in ('rocetune.engine', 'rocetune.checks', 'rocetune.platforms',"
        " 'rocetune.collect', 'pydantic', 'netmiko') if m in sys.modules]\n"
        "    print('HEAVY', heavy)\n"
        "atexit.register(report)\n"
        "sys.argv = ['rocetune', '--help']\n"
        "runpy.run_module('rocetune', run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert "HEAVY []" in done.stdout, done.stdout[-500:]
    assert "Commands:" in done.stdout


def test_unknown_command_is_a_usage_error() -> None:
    from click.testing import CliRunner

    res = CliRunner().invoke(cli, ["audti"])
    assert res.exit_code == 2
    assert "No such command 'audti'" in res.output


def test_lab_audit_imports_no_converge_or_script_reader() -> None:
    """The README's first command (the lab audit, with its ``fix:`` lines) never diffs whole
    running configs (``plan --converge``: hier-config and its models), falls back to ruamel
    for NVUE YAML, reads a host setup script or sniffs one (the shell parser): none of that
    is imported."""
    from tests.paths import ROOT

    probe = (  # the modules are listed at exit (the CLI ends the process when it is done)
        "import atexit, sys, runpy\n"
        "lazy = ('hier_config', 'ruamel', 'rocetune.platforms.common.cli_changeset',"
        " 'rocetune.platforms.linux_host.script', 'rocetune.platforms.linux_host.script_parse')\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in lazy if m in sys.modules)))\n"
        "sys.argv = ['rocetune', 'audit', 'inventories/lab/inventory.yaml', '--no-cache']\n"
        "runpy.run_module('rocetune', run_name='__main__')\n"
    )
    done = _probe(probe, ROOT)
    assert "fix: " in done.stdout  # the fixes were planned
    assert done.returncode == 1, done.stderr[-500:]
    assert "LOADED []" in done.stdout, done.stdout[-500:]


def test_a_plan_whose_remedies_render_nothing_imports_no_renderer() -> None:
    """Planning a device whose remedies never ask for the intended config (the lab's Cumulus
    leaf: NVUE edits only) neither renders nor imports the renderer and Jinja (a re-audit
    after one such device changed plans only that device)."""
    from tests.paths import ROOT

    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from rocetune import api\n"
        "from rocetune.api.fixes import _plan\n"
        "result = api.audit(Path('inventories/lab/inventory.yaml'))\n"
        "made = _plan(result, ['leaf4'])\n"
        "print('CHANGES', sum(len(texts) for _, texts in made['leaf4'][0]))\n"
        "lazy = ('jinja2', 'rocetune.render.run', 'rocetune.render.env')\n"
        "print('LOADED', sorted(m for m in lazy if m in sys.modules))\n"
    )
    done = _probe(probe, ROOT)
    assert done.returncode == 0, done.stderr[-500:]
    changes = [ln.split()[1] for ln in done.stdout.splitlines() if ln.startswith("CHANGES ")]
    assert changes, done.stdout[-500:]
    assert int(changes[0]) > 0  # leaf4 was planned: its fixes have changes
    assert "LOADED []" in done.stdout, done.stdout[-500:]


def _probe(code: str, cwd: object) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter in ``cwd`` (the exit code is the caller's to read)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=str(cwd),
    )
