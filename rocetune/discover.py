"""Which files a directory tree holds for ``lint`` and ``diff``: recursion, include/exclude globs.

A path given on the command line is taken as it is (a file is linted even if a glob would
skip it, as ruff does), unless ``force`` (``--force-exclude``, for pre-commit and changed-file
lists) applies the globs to it too. A directory is walked recursively, in name order:

- a directory with ``meta.json`` is one snapshot (one device), not walked into; so is a
  directory holding a file named like a collected command's output (``snapshot_files``,
  e.g. ``show_running_config.txt``: a snapshot saved without its ``meta.json``);
- hidden entries (``.git``, ``.github``, ``.rocetune_cache``) are skipped;
- files matching :data:`DEFAULT_EXCLUDE` (documentation, images, templates, CI and packaging
  files) are skipped, and so is anything matching an ``exclude`` glob (``--exclude`` and the
  config's ``exclude``);
- when ``include`` globs are given, only files matching one of them are taken.

Globs match the path relative to the directory given (``site-a/*.json``): ``*`` and ``?``
within one path segment, ``**/`` any depth; a glob without ``/`` also matches the bare file
name (``*.md``), as in ``.gitignore``. A directory that matches an exclude glob is not walked into.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

META_FILE = "meta.json"

DEFAULT_EXCLUDE: tuple[str, ...] = (
    "*.md",
    "*.rst",
    "*.adoc",
    "*.html",
    "*.pdf",
    "*.png",
    "*.jpg",
    "*.jpeg",
    "*.gif",
    "*.svg",
    "*.j2",
    "*.jinja",
    "*.py",
    "*.pyc",
    "*.toml",
    "*.lock",
    "*.sarif",
    "*.xml",
    "README*",
    "LICENSE*",
    "COPYING*",
    "CODEOWNERS",
    "Makefile",
    "Dockerfile",
    "__pycache__",
    "node_modules",
)
"""Files and directories that are never configs (a path named on the command line still is)."""


@functools.cache
def _compile(pattern: str) -> re.Pattern[str]:
    """A path glob as a regex: ``*`` and ``?`` stay within one path segment, ``**/`` spans
    any number of segments (also none), a trailing ``/**`` everything below."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape(pattern[i]))
                i += 1
                continue
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            out.append(f"[{'^' if negate else ''}{body.replace(chr(92), chr(92) * 2)}]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches(relative: str, globs: Iterable[str]) -> bool:
    """True when ``relative`` (a POSIX path) matches one of ``globs``."""
    name = relative.rsplit("/", 1)[-1]
    for glob in globs:
        pattern = glob.rstrip("/")
        if pattern.startswith("./"):
            pattern = pattern[2:]
        if not pattern:
            continue
        target = relative if "/" in pattern else name
        if _compile(pattern).match(target):
            return True
    return False


def _skipped(path: Path, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """For ``force``: a named path the globs would skip (matched as given, and by name)."""
    if path.is_absolute():  # globs are about the repository, not where it is checked out
        with contextlib.suppress(ValueError):
            path = path.relative_to(Path.cwd())
    parts = [p for p in path.as_posix().split("/") if p not in ("", ".")]
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    # the file or any directory above it, as any trailing part of the path
    spans = ["/".join(parts[i:j]) for j in range(1, len(parts) + 1) for i in range(j)]
    if any(matches(span, exclude) for span in spans):
        return True
    if path.is_dir() or not include:
        return False
    return not any(matches(tail, include) for tail in tails)


def _is_snapshot(directory: Path, snapshot_files: frozenset[str]) -> bool:
    if (directory / META_FILE).is_file():
        return True
    return bool(snapshot_files) and any((directory / name).is_file() for name in snapshot_files)


def _walk(
    root: Path,
    directory: Path,
    *,
    include: Sequence[str],
    exclude: Sequence[str],
    out: list[Path],
    snapshot_files: frozenset[str],
) -> None:
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith("."):
            continue
        relative = entry.relative_to(root).as_posix()
        if matches(relative, exclude):
            continue
        if entry.is_symlink():
            continue  # a link inside a tree is not followed (inputs refuse it when named)
        if entry.is_dir():
            if _is_snapshot(entry, snapshot_files):
                out.append(entry)
            else:
                _walk(
                    root,
                    entry,
                    include=include,
                    exclude=exclude,
                    out=out,
                    snapshot_files=snapshot_files,
                )
        elif entry.is_file() and (not include or matches(relative, include)):
            out.append(entry)


def discover(
    paths: Sequence[Path],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    *,
    default_exclude: bool = True,
    force: bool = False,
    snapshot_files: frozenset[str] = frozenset(),
) -> list[Path]:
    """The config files and snapshot directories ``paths`` stand for, in order, no repeats.

    ``snapshot_files``: output file names of collected commands (the platforms'), which
    make a directory a snapshot even without ``meta.json``."""
    skip = (*DEFAULT_EXCLUDE, *exclude) if default_exclude else tuple(exclude)
    out: list[Path] = []
    for path in paths:
        if not path.is_dir() or _is_snapshot(path, snapshot_files):
            if force and _skipped(path, include, skip):
                continue
            out.append(path)
        else:
            _walk(path, path, include=include, exclude=skip, out=out, snapshot_files=snapshot_files)
    return list(dict.fromkeys(out))
