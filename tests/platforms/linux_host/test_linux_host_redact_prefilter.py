"""The host redactor's keyword prefilter never skips a rule that could match.

1. Derived from the patterns: every match of each rule of ``SHELL_RULES`` contains one of its
   ``SHELL_TRIGGERS`` words (read from the parsed regular expression: a literal run of the
   match, or every branch of an alternation, holds a trigger word).
2. Compared on text: the prefiltered redaction equals every rule applied in turn, on every
   case of the hardening redaction corpus, every host text of the repository, each alone and
   all joined, and on generated matches of each rule in ASCII and non-ASCII text.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from rocetune.platforms.common.redact import PLACEHOLDER, redact_rules
from rocetune.platforms.linux_host.redact import SHELL_RULES, SHELL_TRIGGERS, redact_shell
from tests.hardening.redaction_corpus import CASES, planted

_NEW = sys.version_info >= (3, 11)  # sre_parse became re._parser (same API)
sre_parse: Any = importlib.import_module("re._parser" if _NEW else "sre_parse")
sre_constants: Any = importlib.import_module("re._constants" if _NEW else "sre_constants")

ROOT = Path(__file__).resolve().parents[3]


def _holds(items: object, words: tuple[str, ...]) -> bool:
    """True when every match of the parsed ``items`` contains one of ``words``."""
    run: list[str] = []
    runs: list[str] = []
    for op, av in items:  # type: ignore[attr-defined]
        if op is sre_constants.LITERAL:
            run.append(chr(av).lower())
            continue
        runs.append("".join(run))
        run = []
        if op is sre_constants.SUBPATTERN and _holds(av[-1], words):
            return True
        if op is sre_constants.BRANCH and all(_holds(b, words) for b in av[1]):
            return True
        repeat = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT)
        if op in repeat and av[0] >= 1 and _holds(av[2], words):
            return True
    runs.append("".join(run))
    return any(word in r for r in runs for word in words)


def test_triggers_are_implied_by_the_patterns() -> None:
    assert len(SHELL_TRIGGERS) == len(SHELL_RULES)
    for rule, words in zip(SHELL_RULES, SHELL_TRIGGERS, strict=True):
        assert words
        assert all(w == w.lower() and w.isascii() for w in words)
        assert rule.flags & re.IGNORECASE  # the lower-cased scan relies on it
        assert _holds(sre_parse.parse(rule.pattern, rule.flags), words), rule.pattern
    assert not any(w in PLACEHOLDER.lower() for ws in SHELL_TRIGGERS for w in ws)


def test_the_derivation_can_fail() -> None:
    parsed = sre_parse.parse(SHELL_RULES[0].pattern, SHELL_RULES[0].flags)
    assert not _holds(parsed, ("pass", "token", "secret"))  # API_KEY= has none of them
    assert not _holds(sre_parse.parse(r"(?:mysql)?x"), ("mysql",))


def _reference(text: str) -> str:
    return redact_rules(text, SHELL_RULES)


def _texts() -> list[str]:
    texts = [planted(case)[0] for case in CASES]
    texts.append("\n".join(texts))
    roots = [ROOT / "tests" / "corpus" / "host", ROOT / "tests" / "fixtures" / "linux_host"]
    roots += [ROOT / "tests" / "realworld" / "configs" / "linux_host", ROOT / "inventories"]
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.stat().st_size < 2_000_000:
                try:
                    texts.append(path.read_text(encoding="utf-8"))
                except UnicodeDecodeError:
                    continue
    return texts


def test_same_as_every_rule_on_the_corpus_and_host_texts() -> None:
    texts = _texts()
    assert len(texts) > 200
    changed = 0
    for text in texts:
        expected = _reference(text)
        assert redact_shell(text) == expected
        changed += expected != text
    assert changed >= 10  # the corpus's host cases and transcripts do get redacted


_MATCHES = (
    "export DB_PASSWORD={s}",
    "MY_api_KEY='{s}'",
    'GITHUB_TOKEN="{s}"',
    "passphrase : {s}",
    "Secret:\t{s}",
    "sshpass -e -p{s} ssh host",
    "ipmitool -I lanplus -H bmc -U admin -P {s} power status",
    "mysql -u root -p{s} db",
    "curl -s --user admin:{s} https://x",
    "Authorization: Bearer {s}",
)


@pytest.mark.parametrize("template", _MATCHES)
@pytest.mark.parametrize("fold", ["", "\u017f", "\u212a", "\u0131", "\u00e9"])
def test_same_as_every_rule_on_generated_matches(template: str, fold: str) -> None:
    line = template.format(s="Zq1secretK9")
    cases = [line, line.upper(), line.lower(), f"eth2 up\n{line}\nrx 0\n"]
    if fold:  # Unicode case folding: IGNORECASE matches these against ASCII letters
        cases += [line.replace("s", fold, 1), line.replace("k", fold), f"{fold} {line}"]
    for text in cases:
        assert redact_shell(text) == _reference(text)
    assert "Zq1secretK9" not in redact_shell(line)
