"""Files a user lints (never collected, so never redacted on the way in) are redacted before
anything quotes them: RT001's unread lines and source excerpts in every report format carry
no planted secret of the redaction corpus."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.hardening.redaction_corpus import CASES, planted
from tests.lab import secrets
from tests.paths import ROOT

FORMATS = ("text", "json", "sarif", "junit", "github", "html", "markdown")
DOCUMENTS = {
    "sonic.json": ("sonic", secrets.sonic_config),
    "cumulus.yaml": ("cumulus", secrets.cumulus_config),
    "eos.cfg": ("eos", secrets.eos_config),
    "nxos.cfg": ("nxos", secrets.nxos_config),
    "mlnx_qos_i_eth2.txt": ("linux_host", secrets.host_output),
}


def _secrets_of(platform: str) -> list[str]:
    found = [planted(c)[1] for c in CASES if c.platform == platform]
    return found + list(secrets.PLANTED.values())


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_linted_files_are_quoted_redacted_in_every_format(tmp_path: Path, name: str) -> None:
    platform, build = DOCUMENTS[name]
    path = tmp_path / name
    text = build()
    path.write_text(text, encoding="utf-8")
    present = [s for s in _secrets_of(platform) if s in text]
    assert present, "the document carries planted secrets"
    for fmt in FORMATS:
        argv = [sys.executable, "-m", "rocetune", "lint", str(path), "--platform", platform]
        done = subprocess.run(
            [*argv, "--format", fmt, "--exit-zero"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        leaked = [s for s in present if s in done.stdout or s in done.stderr]
        assert not leaked, (fmt, leaked[:3])
