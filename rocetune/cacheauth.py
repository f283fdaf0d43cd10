"""Authenticated cache entries: a secret key of the user, and a MAC over what an entry holds.

A parsed switch is a large model: validating its JSON again costs ~15-30 ms for 64 SONiC
ports (0.5 ms a port), ~8-15 s for the 500 switches of a 10,000-host fleet on every cached
audit. Unpickling it costs ~5x less, but pickle runs code chosen by whoever wrote the
bytes, and a cache directory may be shared (a CI cache, an NFS home). So a pickled device is
written only with a MAC (keyed BLAKE2b) under a key only this user can read, and unpickled
only after the MAC is verified; an entry that is not authenticated (another user's, damaged,
forged, or written without a key) is never unpickled: it is a miss and is parsed again.

Key: ``$ROCETUNE_CACHE_KEY_FILE``, else ``$XDG_CONFIG_HOME/rocetune/cache-key`` (default
``~/.config/rocetune/cache-key``): 32 random bytes, created on first use with mode 0600 in a
0700 directory. A key file that is not a regular file of this user, is readable by others or
is too short is not used; without a usable key, entries hold the device as JSON and are
validated when read (rocetune.parsecache).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import stat
from functools import cache
from pathlib import Path

ENV_KEY_FILE = "ROCETUNE_CACHE_KEY_FILE"
_MIN_KEY = 16


def key_file() -> Path:
    """Where the user's cache key lives."""
    explicit = os.environ.get(ENV_KEY_FILE)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "rocetune" / "cache-key"


@cache
def secret() -> bytes | None:
    """The user's cache key (created when absent); None when none can be used."""
    try:
        path = key_file()
    except RuntimeError:  # no home directory
        return None
    with contextlib.suppress(FileExistsError, OSError):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as fh:
            import secrets

            fh.write(secrets.token_bytes(32))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
        if not stat.S_ISREG(st.st_mode) or not mine or st.st_mode & 0o077:
            return None
        data = os.read(fd, 64)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) >= _MIN_KEY else None


def mac(key: bytes, *parts: bytes) -> str:
    """Keyed BLAKE2b of ``parts`` (each length-prefixed)."""
    h = hashlib.blake2b(key=key[:64], digest_size=32)
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def verify(key: bytes, tag: object, *parts: bytes) -> bool:
    """True when ``tag`` is the MAC of ``parts`` under ``key``."""
    return isinstance(tag, str) and hmac.compare_digest(tag, mac(key, *parts))
