"""Fabric-wide configuration errors stop `collect` once, before any connection (exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT

INVENTORY = """\
intent: {lossless_priorities: [3]}
defaults: {username_env: RT_TEST_USER, password_env: RT_TEST_PASSWORD}
groups:
  sonic: {platform: sonic, role: leaf}
devices:
"""


def _run(tmp_path: Path, devices: int, **env: str) -> subprocess.CompletedProcess[str]:
    inventory = tmp_path / "inventory.yaml"
    body = "".join(
        f"  leaf{i}: {{host: 127.0.0.1, port: 9, groups: [sonic]}}\n" for i in range(devices)
    )
    inventory.write_text(INVENTORY + body, encoding="utf-8")
    known = tmp_path / "known_hosts"
    known.write_text("", encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RT_TEST_", "ROCETUNE_"))}
    argv = [sys.executable, "-m", "rocetune", "collect", str(inventory), "-o", str(tmp_path)]
    argv += ["--known-hosts", str(known), "--connect-timeout", "1", "--retries", "0"]
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**clean, **env},
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=120,
    )


def test_unset_username_variable_is_one_error_before_connecting(tmp_path: Path) -> None:
    done = _run(tmp_path, 8)
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [
        "rocetune: error: no username: set $RT_TEST_USER"
        " (needed by leaf0, leaf1, leaf2, leaf3, leaf4 and 3 more)"
    ]


def test_unset_password_variable_is_one_error(tmp_path: Path) -> None:
    done = _run(tmp_path, 2, RT_TEST_USER="admin")
    assert done.returncode == 2, done.stderr
    assert "$RT_TEST_PASSWORD" in done.stderr
    assert "(needed by leaf0, leaf1)" in done.stderr
    assert "collecting" not in done.stderr  # nothing was tried


def test_with_credentials_the_devices_are_tried(tmp_path: Path) -> None:
    """The same inventory with the variables set gets to the connection (port 9: refused)."""
    done = _run(tmp_path, 1, RT_TEST_USER="admin", RT_TEST_PASSWORD="x")
    assert done.returncode == 3, done.stderr
    assert "leaf0" in done.stderr
