"""``segments.split``'s fast path (one segment for plain command output) splits exactly as
every line tried as a prompt / command line does: the reference below is that line-by-line
algorithm, run on every text file of the repository, on edge cases at the boundary of the
pre-filter and on generated transcripts. ``base.is_error`` / ``take_errors`` (lower-cased
ASCII, one search per segment) find the lines the case-insensitive pattern finds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocetune.platforms.linux_host import commands as c
from rocetune.platforms.linux_host import segments
from rocetune.platforms.linux_host.segments import (
    Segment,
    bare_command,
    prompt_command,
    split,
)

ROOT = Path(__file__).resolve().parents[3]
_FENCE = re.compile(r"\s*```[\w-]*\s*")


def reference(text: str, file: str, *, transcript: bool = True) -> list[Segment]:
    """Every line tried (the algorithm before the fast path)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[: segments.MAX_LINES]
    out: list[Segment] = []
    current: list[tuple[int, str]] = []
    command: str | None = None
    command_line: int | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.lstrip("\ufeff") if number == 1 else raw
        if _FENCE.fullmatch(line):
            continue
        found = (prompt_command(line) or bare_command(line)) if transcript else None
        if found is None and transcript and line.startswith("#"):
            root = bare_command(line[1:]) if line.startswith("# ") else None
            if root is None:
                continue
            found = root
        if found is None:
            current.append((number, line))
            continue
        out.append(Segment(file, tuple(current), command, command_line))
        current, command, command_line = [], found, number
    out.append(Segment(file, tuple(current), command, command_line))
    return out


def _same(text: str) -> None:
    for transcript in (True, False):
        assert split(text, "f", transcript=transcript) == reference(
            text, "f", transcript=transcript
        ), (transcript, text[:200])


def _text_files() -> list[Path]:
    found = []
    for top in ("tests", "inventories", "docs"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in (".txt", ".md", ".sh", ".log", ".out", ""):
                found.append(path)
    return found


def test_every_text_file_of_the_repository_splits_as_before() -> None:
    files = _text_files()
    assert len(files) > 300  # host snapshots, corpus transcripts, realworld configs, docs
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        _same(text)


EDGES = [
    "",
    "\n",
    "Settings for eth0:\n\tSpeed: 400000Mb/s\n",
    "DCBX mode: OS controlled\nPriority trust state: dscp\n",
    "mlnx_qos -i eth0\nDCBX mode: OS controlled\n",
    "   mlnx_qos -i eth0\nDCBX mode: OS controlled\n",
    "\u2003mlnx_qos -i eth0\n",
    "\x0bcat /sys/class/net/eth0/mtu\n9000\n",
    "\x1ccat /sys/class/net/eth0/mtu\n9000\n",
    "\ufeffmlnx_qos -i eth0\nx\n",
    "\ufeff\ufeffplain\n",
    "\ufeffplain\n",
    "out\r\nsudo cma_roce_tos -d mlx5_0 -t 106\r\n",
    "out\rethtool -a eth2\rPause parameters for eth2:\r",
    "out\n# mlnx_qos -i eth2\nDCBX mode: OS controlled\n",
    "# a comment\n#!/bin/bash\n#mlnx_qos -i eth2\nvalue\n",
    "  # indented comment\nvalue\n",
    "[root@gpu01 ~]# mlnx_qos -i eth2\nDCBX mode: OS controlled\n",
    "root@gpu01:~$ ibdev2netdev\nmlx5_0 port 1 ==> eth2 (Up)\n",
    "contact admin@example.com\n",
    "$ ibdev2netdev\n",
    "$\n$x\n",
    "+ mlnx_qos -i eth4\n++ cat /sys/class/net/eth4/mtu\n+++ x\n++++ y\n+\n",
    "`mlnx_qos -i eth2`\n",
    "```\nmlnx_qos -i eth2\n```\n",
    "```bash\nvalue\n```\n",
    "value with a `backtick`\n",
    "echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n",
    "sudo sh -c 'echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class'\n",
    'bash -c "echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3"\n',
    "echoes\nshell\nsharing\ncattle\ntimeout 5 mlnx_qos -i eth2\ntime mlnx_qos -i eth2\n",
    "command mlnx_qos -i eth2\nexec ethtool eth2\nsudo -E ethtool -a eth2\n",
    "hostname\ngpu01\nlldpctl -f json\n{}\n",
    "grep -H . /sys/class/net/eth2/ecn/roce_np/enable/*\n"
    "/sys/class/net/eth2/ecn/roce_np/enable/3:1\n",
    "grep: /sys/class/net/eth9/ecn: No such file or directory\n",
    "mlxconfig -d 0000:17:00.0 q\nmstconfig -d 0000:17:00.0 query\n",
    "show_gids mlx5_0\nibv_devinfo -v -d mlx5_0\ncma_roce_mode -d mlx5_0 -p 1\n",
    "sysctl -w net.ipv4.tcp_ecn=1\nmodprobe mlx5_core\ndcb pfc set dev eth2\n",
    "mlnx_qos.py -i eth2\nmlnx_qos>out\nethtool\nethtool -S eth2 | grep pause\n",
    ": not a command\n< html\n{ json\n[bracket\n",
    "tc: 0 ratelimit: unlimited, tsa: ets, bw: 50%\n         priority:  0\n",
]


@pytest.mark.parametrize("text", EDGES)
def test_fast_path_boundary(text: str) -> None:
    _same(text)


def test_plain_output_is_one_segment_and_a_command_line_is_not() -> None:
    plain = "Settings for eth0:\n\tSpeed: 400000Mb/s\n\tLink detected: yes\n"
    (only,) = split(plain, "f")
    assert only.command is None
    assert [n for n, _ in only.lines] == [1, 2, 3, 4]
    mixed = plain + "ethtool -a eth0\nPause parameters for eth0:\n"
    assert [s.command for s in split(mixed, "f")] == [None, "ethtool -a eth0"]


def test_the_first_words_cover_every_command_shape() -> None:
    """Every KINDS prefix, _SHELL word and strip_command prefix starts with a listed word:
    a new host command must be added to ``_FIRST_WORDS`` (else its transcripts are missed)."""
    words = segments._FIRST_WORDS.split("|")
    leads: list[str] = []
    for kind in c.KINDS:
        group = re.match(r"\(\?:([\w|]+)\)", kind.prefix.pattern)
        word = re.match(r"\w+", kind.prefix.pattern)
        assert group is not None or word is not None, kind.prefix.pattern
        leads += group.group(1).split("|") if group else [word[0]] if word else []
    shell = re.match(r"\(\?:([\w|]+)\)", segments._SHELL.pattern)
    assert shell is not None
    leads += [*shell.group(1).split("|"), "sudo", "sh", "bash", "echo", "command", "exec", "time"]
    for lead in leads:
        assert any(lead.startswith(w) for w in words), lead


_PIECES = st.sampled_from(
    [
        "mlnx_qos -i eth2",
        "sudo ",
        "sudo -E ",
        "# ",
        "#",
        "$ ",
        "+ ",
        "++ ",
        "[root@gpu ~]# ",
        "root@gpu:~$ ",
        "`",
        "```",
        "  ",
        "\t",
        "\u2003",
        "\ufeff",
        "@",
        "cat /sys/class/net/eth2/mtu",
        "echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class",
        "DCBX mode: OS controlled",
        "prio:3 dscp:26,",
        "9000",
        "ethtool -a eth2",
        "hostname",
        "ibdev2netdev",
        "mlx5_0 port 1 ==> eth2 (Up)",
        "time ",
        "cattle",
        "x",
        "|",
        ">",
    ]
)
_LINE = st.lists(_PIECES, max_size=4).map("".join)
_TEXT = st.tuples(
    st.lists(_LINE, max_size=8), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans()
).map(lambda t: t[1].join(t[0]) + (t[1] if t[2] else ""))


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_generated_texts_split_as_before(text: str) -> None:
    _same(text)


_ERROR_PIECES = st.sampled_from(
    [
        "No such file or directory",
        "NO SUCH DEVICE",
        "Permission Denied",
        "command not found",
        "-E- ",
        "-e-",
        "is not loaded",
        "failed",
        " to",
        "\u0130s not loaded",  # dotted capital I: IGNORECASE matches it with "i"
        "\u0131s not loaded",  # dotless i
        "mu\u017ft be root",  # long s
        "\u212a",  # Kelvin sign
        "cannot get",
        "Speed: 400000Mb/s",
        "\n",
        " ",
        "x",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_ERROR_PIECES, max_size=6).map("".join))
def test_error_lines_are_found_as_the_case_insensitive_pattern_finds_them(text: str) -> None:
    from rocetune.platforms.linux_host.base import _ERROR, Notes, is_error, take_errors

    assert is_error(text) == (_ERROR.search(text) is not None)
    lines = tuple(enumerate(text.split("\n"), start=1))
    notes = Notes("f")
    kept = take_errors(Segment("f", lines), notes)
    meaningful = [(n, t) for n, t in lines if t.strip()]
    assert kept == [(n, t) for n, t in meaningful if _ERROR.search(t) is None]
    assert [n for n, _ in notes.errors] == [n for n, t in meaningful if _ERROR.search(t)]


_ONE_PATTERN = re.compile(rf"^\s*(?:[\[$+#]|{segments._FIRST_WORDS})|[@`]", re.MULTILINE)
"""The pre-filter as one ``re.MULTILINE`` pattern (tried at every character)."""


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_the_pre_filter_finds_what_the_multiline_pattern_finds(text: str) -> None:
    """First line + newline-led search (+ ``@``/backtick) == the ``^`` pattern."""
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    assert segments._may_start(normal) == (_ONE_PATTERN.search(normal) is not None)
