"""The loaded inventory cached by content (with the parse cache, ``.rocetune_cache/``).

Reading and validating a 10,000-device inventory (YAML, pydantic, every device's groups and
snapshot path resolved) costs seconds, as much as the rest of a cached re-audit where little
changed. :func:`load` keeps the :class:`~rocetune.inventory.Inventory` that
:func:`~rocetune.inventory.load_inventory` made, pickled under the user's key
(rocetune.cacheauth: an entry whose MAC does not verify is never unpickled), in
``<dir>/<CACHE_VERSION>/inventory/<hash of the inventory's path>.pickle``, and uses it again
when:

- the key matches: the inventory file's bytes, its absolute path (relative snapshot paths
  resolve from it), rocetune's version and code fingerprint, the Python and pydantic
  versions;
- every snapshot path it resolved still resolves to the same place (a symbolic link such as
  ``snapshots/latest`` moved elsewhere is seen) and still exists (else the inventory error
  comes from :func:`~rocetune.inventory.load_inventory`, as without a cache).

An inventory that does not load (InventoryError) is never stored; without a usable key
(:func:`rocetune.cacheauth.secret` is None) or a readable file, this is
:func:`~rocetune.inventory.load_inventory`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING

from rocetune.inventory import Inventory, load_inventory

if TYPE_CHECKING:
    from rocetune.parsecache import ParseCache

FORMAT = 1
_Checks = list[tuple[str, str, bool]]


def _feed(h: hashlib.blake2b, data: bytes) -> None:
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)


def _still_resolved(checks: _Checks) -> bool:
    """Every (joined, resolved, is a directory) path resolves and exists as it did.

    A path's directory is resolved once for all the paths in it (10,000 snapshots in one
    ``hosts/`` directory: one ``realpath`` of it, not one per snapshot, each a ``lstat``
    of every component); then one ``lstat`` of the path itself says whether it exists, is
    a directory, or is a symbolic link (resolved in full, as before)."""
    import stat

    heads: dict[str, str] = {}
    for joined, resolved, directory in checks:
        head, tail = os.path.split(joined)
        if tail in ("", ".", ".."):
            if not _resolved_in_full(joined, resolved, directory):
                return False
            continue
        try:
            mode = os.lstat(joined).st_mode
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            if not _resolved_in_full(joined, resolved, directory):
                return False
            continue
        real_head = heads.get(head)
        if real_head is None:
            real_head = heads[head] = os.path.realpath(head)
        if os.path.join(real_head, tail) != resolved or (directory and not stat.S_ISDIR(mode)):
            return False
    return True


def _resolved_in_full(joined: str, resolved: str, directory: bool) -> bool:
    if os.path.realpath(joined) != resolved:
        return False
    return os.path.isdir(resolved) if directory else os.path.exists(resolved)


def load(path: Path | str, cache: ParseCache) -> Inventory:
    """:func:`~rocetune.inventory.load_inventory`, from the cache when the inventory file and
    the snapshot paths it resolved are unchanged."""
    from rocetune import cacheauth, inputs
    from rocetune.parsecache import CACHE_VERSION, code_fingerprint, runtime

    path = Path(path)
    secret = cacheauth.secret()
    try:
        data = inputs.read_bytes(path) if secret is not None else None
    except (OSError, inputs.InputRefused):
        data = None
    if secret is None or data is None:
        return load_inventory(path)  # errors worded as without a cache
    where = os.path.abspath(path).encode("utf-8", "surrogatepass")
    h = hashlib.blake2b(digest_size=20)
    for part in (str(FORMAT), CACHE_VERSION, code_fingerprint(), runtime()):
        _feed(h, part.encode())
    _feed(h, where)
    _feed(h, data)
    key = h.hexdigest().encode()
    name = hashlib.blake2b(where, digest_size=16).hexdigest()
    entry = cache.directory / CACHE_VERSION / "inventory" / f"{name}.pickle"
    got = _read(entry, key, secret)
    if got is not None and _still_resolved(got[1]):
        return dataclasses.replace(got[0], path=path)
    checks: _Checks = []
    inv = load_inventory(path, resolved=checks)
    try:
        unchanged = inputs.read_bytes(path) == data  # not edited while it was loaded
    except (OSError, inputs.InputRefused):
        unchanged = False
    if unchanged and cache.writable:
        body = pickle.dumps((inv, checks), protocol=pickle.HIGHEST_PROTOCOL)
        tag = cacheauth.mac(secret, key, body).encode()
        try:
            cache.prepare()
            from rocetune.outputs import replace_bytes

            replace_bytes(entry, key + b"\n" + tag + b"\n" + body)
        except OSError:
            cache.write_errors += 1
    return inv


def _read(entry: Path, key: bytes, secret: bytes) -> tuple[Inventory, _Checks] | None:
    """The stored inventory of ``key`` whose MAC verifies; None for anything else."""
    from rocetune import cacheauth

    try:
        raw = entry.read_bytes()
        stored, tag, body = raw.split(b"\n", 2)
    except (OSError, ValueError):
        return None
    if stored != key or not cacheauth.verify(secret, tag.decode("ascii", "replace"), key, body):
        return None
    try:
        inv, checks = pickle.loads(body)  # authenticated: written by this user
    except Exception:  # another layout: loaded again
        return None
    return (inv, checks) if isinstance(inv, Inventory) else None
