"""Every credential syntax of the redaction corpus is redacted before anything is written.

Unit level: each case, alone and inside a whole document of its platform, through the
platform's redactor. The lab level (collection, every written file, every report format)
is tests/lab/test_secrets.py.
"""

from __future__ import annotations

from collections import Counter

import pytest

from rocetune.platforms import drivers
from rocetune.snapshot import Command
from tests.hardening.redaction_corpus import CASES, Case, merged_json, planted

_ENCODING = {"show runningconfiguration all": "json", "nv config show -o yaml": "yaml"}


def command_of(case: Case) -> Command:
    return Command(id="c", command=case.command, encoding=_ENCODING.get(case.command, "text"))


def redact(case: Case, text: str) -> str:
    return drivers()[case.platform].redactor(command_of(case), text)


def test_corpus_size_and_spread() -> None:
    assert len(CASES) >= 100
    per = Counter(c.platform for c in CASES)
    assert set(per) == {
        "eos",
        "nxos",
        "cumulus",
        "sonic",
        "linux_host",
        "onyx",
        "enterprise_sonic",
    }
    assert min(per.values()) >= 9
    assert len({c.id for c in CASES}) == len(CASES)
    assert len({planted(c)[1] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_syntax_is_redacted(case: Case) -> None:
    text = merged_json([case]) if case.platform == "sonic" else planted(case)[0] + "\n"
    secret = planted(case)[1]
    assert secret in text
    out = redact(case, text)
    assert secret not in out, out
    assert out.count("\n") == text.count("\n"), "line numbers are kept"


@pytest.mark.parametrize(
    "platform", ["eos", "nxos", "cumulus", "sonic", "linux_host", "onyx", "enterprise_sonic"]
)
def test_all_syntaxes_of_a_platform_together(platform: str) -> None:
    by_command: dict[str, list[Case]] = {}
    for c in CASES:
        if c.platform == platform:
            by_command.setdefault(c.command, []).append(c)
    for cases in by_command.values():
        if platform == "sonic":
            text = merged_json(cases)
        elif cases[0].command == "nv config show -o yaml":
            continue  # YAML documents cannot simply be concatenated: one per case above
        else:
            text = "\n".join(planted(c)[0] for c in cases) + "\n"
        out = redact(cases[0], text)
        leaked = [c.id for c in cases if planted(c)[1] in out]
        assert not leaked, leaked


def test_inventory_errors_never_echo_a_pasted_secret(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    secret = "Zq-pasted-Secret-77"
    bodies = [
        f"devices: {{sw1: {{host: 127.0.0.1, password: {secret}}}}}\n",
        f"defaults: {{password_env: {secret}}}\ndevices: {{sw1: {{host: 127.0.0.1}}}}\n",
        f"devices: {{sw1: {{host: 127.0.0.1, username_env: '{secret}!'}}}}\n",
        f"devices: {{sw1: {{host: 127.0.0.1, secret: {{a: {secret}}}}}}}\n",
    ]
    for i, body in enumerate(bodies):
        inv = tmp_path / f"inv{i}.yaml"
        inv.write_text(body, encoding="utf-8")
        res = subprocess.run(
            [sys.executable, "-m", "rocetune", "audit", str(inv)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert res.returncode == 2, res.stderr
        assert secret not in res.stdout + res.stderr, res.stderr
