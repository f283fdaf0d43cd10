"""``-o FILE`` and every written output: atomic for regular files, never a rename over a
device, FIFO or symbolic link (``-o /dev/null`` as root used to leave a regular file in place
of the machine's /dev/null)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from rocetune.cli import cli
from rocetune.outputs import OutputError, write_atomic
from tests.paths import ROOT


def test_a_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    out.write_text("old and longer text\n", encoding="utf-8")
    write_atomic(out, "new\n")
    assert out.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"], "no temporary file left"


def _fifo_with_reader(path: Path) -> tuple[threading.Thread, list[str]]:
    """A FIFO at ``path`` and a started thread that reads it whole into the list."""
    os.mkfifo(path)
    got: list[str] = []

    def read() -> None:
        with open(path, encoding="utf-8") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read)
    reader.start()
    return reader, got


def test_a_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    reader, got = _fifo_with_reader(fifo)
    write_atomic(fifo, "through the pipe\n")
    reader.join(timeout=10)
    assert got == ["through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), "still a FIFO, not a regular file"


def test_a_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("{}", encoding="utf-8")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    write_atomic(link, '{"a": 1}')
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8") == '{"a": 1}'


def test_a_directory_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="is a directory"):
        write_atomic(tmp_path, "x")


def test_cli_output_to_a_fifo(tmp_path: Path) -> None:
    """`rocetune lint CONFIG -o FIFO` writes the report into the pipe and leaves it a pipe."""
    fifo = tmp_path / "report.pipe"
    reader, got = _fifo_with_reader(fifo)
    config = ROOT / "inventories" / "lab" / "configs" / "leaf4.yaml"
    result = CliRunner().invoke(cli, ["lint", str(config), "--format", "json", "-o", str(fifo)])
    reader.join(timeout=30)
    assert result.exit_code in (0, 1), result.output
    assert got
    assert got[0].lstrip().startswith("{")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
