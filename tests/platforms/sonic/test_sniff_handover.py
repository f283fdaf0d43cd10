"""The document a SONiC sniff decoded is handed over to the parse of that file.

Recognising a CONFIG_DB file decodes it (:func:`~rocetune.platforms.sonic.detect.
looks_like_config_db`); the parse that follows takes that document instead of decoding
the text again. What the parse gives, errors and their lines included, is the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.fabricgen import sonic_config
from rocetune import inputs
from rocetune.errors import ParseError
from rocetune.load import load_device
from rocetune.platforms.common import jsonpos
from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic import detect
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.platforms.sonic.parse import parse_text
from rocetune.snapshot import Snapshot, SourceFile

CONFIG = sonic_config("leaf0", {0: "gpu0", 2: "gpu1"})


def _snapshot(text: str) -> Snapshot:
    return Snapshot(files={CONFIG_DB.filename: SourceFile(path="c.json", text=text)}, origin="c")


def test_a_sniffed_file_is_not_decoded_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    decoded: list[str] = []
    real = jsonpos._decode

    def counted(text: str, file: str) -> object:
        decoded.append(file)
        return real(text, file)

    monkeypatch.setattr(jsonpos, "_decode", counted)
    path = tmp_path / "config_db.json"
    path.write_text(CONFIG, encoding="utf-8")
    loaded = load_device("leaf0", path, "sonic", "leaf")
    assert loaded.result is not None
    assert decoded == []
    assert detect._HANDED == {}  # taken by the parse
    again = load_device("leaf0", path, None, "leaf")  # detected: every platform's sniff
    assert again.result is not None
    assert decoded == []
    alone = parse_text(CONFIG, str(path), "leaf0", "leaf")  # nothing handed over: decoded
    assert decoded == [str(path)]
    assert SONIC.stamp(alone.device) == loaded.result.device


@pytest.mark.parametrize(
    "prefix", ["", "\n\n  ", "\ufeff", "admin@sonic:~$ show runningconfiguration all\n"]
)
def test_the_handed_over_document_gives_the_same_parse(prefix: str) -> None:
    text = prefix + CONFIG
    assert SONIC.sniff("c.json", text) is not None
    handed = SONIC.parse(_snapshot(text), "leaf0", "leaf")
    alone = SONIC.parse(_snapshot(text), "leaf0", "leaf")  # nothing left to take
    assert handed.device == alone.device
    assert list(handed.provenance.items()) == list(alone.provenance.items())


def test_another_text_does_not_take_the_document() -> None:
    assert SONIC.sniff("c.json", CONFIG) is not None
    other = CONFIG.replace('"9216"', '"9100"')
    assert detect.handed_over(other) is detect.NOT_HANDED
    assert detect.handed_over(CONFIG) is detect.NOT_HANDED  # dropped by the miss


@pytest.mark.parametrize(
    "text",
    [
        '{"PORT": {"Ethernet0": {"mtu": NaN}}}',  # valid for json.loads, not JSON
        '{"PORT": {"Ethernet0": {"mtu": Infinity}}}',
        '{"PORT": {"Ethernet0": {"mtu": "9100"}},\n "PORT": {"Ethernet0": {"mtu": 1}}, }',
    ],
)
def test_errors_keep_their_lines(text: str) -> None:
    detect._HANDED.clear()
    with pytest.raises(ParseError) as alone:
        SONIC.parse(_snapshot(text), "sw", "leaf")
    assert SONIC.sniff("c.json", text) is not None
    with pytest.raises(ParseError) as sniffed:
        SONIC.parse(_snapshot(text), "sw", "leaf")
    assert str(sniffed.value) == str(alone.value)
    assert (sniffed.value.line, sniffed.value.column) == (alone.value.line, alone.value.column)


@pytest.mark.parametrize("platform", ["sonic", None])
def test_a_saved_file_is_read_once(
    platform: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """load reads a saved config once: the text it sniffed is the snapshot's."""
    reads: list[str] = []
    real = inputs.read_bytes

    def counted(path: Path | str, **kwargs: Any) -> bytes:
        reads.append(str(path))
        return real(path, **kwargs)

    monkeypatch.setattr(inputs, "read_bytes", counted)
    path = tmp_path / "config_db.json"
    path.write_text(CONFIG, encoding="utf-8")
    loaded = load_device("leaf0", path, platform, "leaf")
    assert loaded.result is not None
    assert reads.count(str(path)) == 1
