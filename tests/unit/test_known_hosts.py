"""known_hosts is read as OpenSSH reads it: markers, hashed names, patterns, bad lines."""

from __future__ import annotations

import base64
import hashlib
import hmac
from pathlib import Path

from rocetune.collect import known_hosts

# Real-shaped ed25519 public key blobs (the SSH string "ssh-ed25519" + 32 key bytes).
_PREFIX = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20"


def _key(seed: int) -> str:
    return base64.b64encode(_PREFIX + bytes([seed]) * 32).decode()


K1, K2, K3 = _key(1), _key(2), _key(3)


def _hashed(name: str, salt: bytes = b"0123456789abcdefghij") -> str:
    digest = hmac.new(salt, name.encode(), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


def test_markers_do_not_break_the_file() -> None:
    text = (
        "# comment\n\n"
        f"@cert-authority *.example.net ssh-ed25519 {K3}\n"
        f"leaf1,10.0.0.11 ssh-ed25519 {K1}\n"
        f"@revoked * ssh-ed25519 {K2}\n"
        f"leaf2 ssh-ed25519 {K2}\n"
    )
    kh = known_hosts.parse(text)
    assert [k.key for k in kh.keys_for("leaf1", 22)] == [K1]
    assert [k.key for k in kh.keys_for("10.0.0.11", None)] == [K1]
    assert kh.keys_for("leaf2", 22) == [], "a revoked key is refused even where listed"
    assert any("@cert-authority" in w for w in kh.warnings)


def test_hashed_names_and_ports() -> None:
    text = (
        f"{_hashed('10.0.0.12')} ssh-ed25519 {K1}\n{_hashed('[10.0.0.12]:2222')} ssh-ed25519 {K2}\n"
    )
    kh = known_hosts.parse(text)
    assert [k.key for k in kh.keys_for("10.0.0.12", 22)] == [K1]
    assert [k.key for k in kh.keys_for("10.0.0.12", 2222)] == [K2]
    assert kh.keys_for("10.0.0.13", 22) == []


def test_patterns_and_negation() -> None:
    text = f"leaf*,!leaf9,spine? ssh-ed25519 {K1}\n"
    kh = known_hosts.parse(text)
    assert kh.keys_for("leaf1", 22)
    assert kh.keys_for("LEAF12", 22), "host names compare case-insensitively"
    assert kh.keys_for("spine1", 22)
    assert not kh.keys_for("spine10", 22)
    assert not kh.keys_for("leaf9", 22), "a negated match excludes the line"


def test_malformed_lines_are_skipped_with_their_line_number() -> None:
    text = (
        "leaf1 ssh-ed25519\n"  # too few fields
        "leaf1 ssh-foo AAAA\n"  # unknown key type
        "leaf1 ssh-ed25519 not!base64\n"
        f"leaf1 ssh-rsa {K1}\n"  # type does not match the key blob
        "@bogus leaf1 ssh-ed25519 AAAA\n"
        f"leaf1 ssh-ed25519 {K1} a comment\n"
    )
    kh = known_hosts.parse(text, source="kh")
    assert [k.key for k in kh.keys_for("leaf1", 22)] == [K1]
    assert [w.split(":")[1] for w in kh.warnings] == ["1", "2", "3", "4", "5"]


def test_load_is_cached_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "known_hosts"
    path.write_text(f"leaf1 ssh-ed25519 {K1}\n", encoding="ascii")
    first = known_hosts.load(path)
    assert known_hosts.load(path) is first
    path.write_text(f"leaf1 ssh-ed25519 {K1}\nleaf2 ssh-ed25519 {K2}\n", encoding="ascii")
    assert known_hosts.load(path).keys_for("leaf2", 22)


def test_one_host_file_holds_only_that_host(tmp_path: Path) -> None:
    keys = known_hosts.parse(f"leaf1 ssh-ed25519 {K1}\n").keys_for("leaf1", 2222)
    assert keys == [], "port 2222 is another endpoint"
    keys = known_hosts.parse(f"[leaf1]:2222 ssh-ed25519 {K1}\n").keys_for("leaf1", 2222)
    with known_hosts.one_host_file(keys, "leaf1", 2222) as path:
        assert path.read_text(encoding="ascii") == f"[leaf1]:2222 ssh-ed25519 {K1}\n"
    assert not path.exists()
