"""Detection of sonic-cli files: every Enterprise SONiC sample is claimed, no other platform's
corpus or real-world file is, and a forced platform that does not match is exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.platforms.detect import detect
from tests.paths import CORPUS, ROOT

OURS = sorted((CORPUS / "enterprise_sonic").glob("*.txt"))
OTHERS = sorted(
    p
    for base in (CORPUS, ROOT / "tests" / "realworld" / "configs")
    for p in base.rglob("*")
    if p.is_file() and "enterprise_sonic" not in p.parts and p.suffix != ".md"
)


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_samples_are_enterprise_sonic(path: Path) -> None:
    found = detect(str(path), path.read_text(encoding="utf-8"))
    assert found.driver is not None
    assert found.driver.name == "enterprise_sonic"


def test_no_other_file_is_claimed() -> None:
    stolen = []
    for path in OTHERS:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found = detect(str(path), text)
        if "enterprise_sonic" in found.claims or (
            found.driver is not None and found.driver.name == "enterprise_sonic"
        ):
            stolen.append(path.name)
    assert stolen == []
    assert len(OTHERS) > 100


def test_forced_platform_mismatch_is_exit_2(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rocetune.cli import cli

    sonic = next((CORPUS / "sonic").glob("*.json"))
    res = CliRunner().invoke(cli, ["lint", "--platform", "enterprise_sonic", str(sonic)])
    assert res.exit_code == 2, res.output
    ours = OURS[0]
    res = CliRunner().invoke(cli, ["lint", "--platform", "eos", str(ours)])
    assert res.exit_code == 2, res.output
