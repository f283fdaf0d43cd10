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


def _every_entry(kh: known_hosts.KnownHosts, host: str, port: int | None) -> list[str]:
    """keys_for without the index: every entry tried in file order."""
    name = known_hosts.endpoint_name(host, port)
    out: list[str] = []
    for entry in kh.entries:
        revoked = (entry.keytype, entry.key) in kh.revoked
        if not revoked and known_hosts._matches(entry.patterns, name) and entry.key not in out:
            out.append(entry.key)
    return out


def test_indexed_lookup_equals_trying_every_line() -> None:
    """The plain-name index gives the keys, in file order, that matching every line gives."""
    keys = [_key(s) for s in range(1, 9)]
    lines = [
        f"Leaf1,10.0.0.11 ssh-ed25519 {keys[0]}",
        f"leaf*,!leaf9 ssh-ed25519 {keys[1]}",
        f"{_hashed('leaf1')} ssh-ed25519 {keys[2]}",
        f"[leaf1]:2222 ssh-ed25519 {keys[3]}",
        f"leaf1 ssh-ed25519 {keys[4]}",
        f"@revoked * ssh-ed25519 {keys[5]}",
        f"leaf1 ssh-ed25519 {keys[5]}",
        f"leaf?,spine1 ssh-ed25519 {keys[6]}",
        f"spine1 ssh-ed25519 {keys[0]}",
    ]
    lines += [f"host{i} ssh-ed25519 {keys[7]}" for i in range(500)]
    kh = known_hosts.parse("\n".join(lines) + "\n")
    for host, port in [
        ("leaf1", 22),
        ("LEAF1", None),
        ("leaf1", 2222),
        ("leaf9", 22),
        ("spine1", 22),
        ("10.0.0.11", 22),
        ("host499", 22),
        ("nobody", 22),
    ]:
        got = [k.key for k in kh.keys_for(host, port)]
        assert got == _every_entry(kh, host, port), (host, port)
    assert [k.key for k in kh.keys_for("leaf1", 22)] == [
        keys[0],
        keys[1],
        keys[2],
        keys[4],
        keys[6],
    ]
