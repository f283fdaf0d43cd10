"""Snapshot layout: one directory per device, one file per command output.

Layout (the same for live collection, offline audits and tests)::

    <snapshot-dir>/
        meta.json                     # {"format": 1, "device": ..., "platform": ...,
                                      #  "collected_at": ..., "commands": [...]}
        <file name of command 1>
        <file name of command 2>
        ...

File name rule (:func:`command_filename`): the command is lower-cased, every run of
characters outside ``[a-z0-9]`` becomes one ``_``, leading and trailing ``_`` are dropped,
the result is cut to 120 characters, and the extension of the output encoding is appended
(``.txt`` for text, ``.json`` for JSON, ``.yaml`` for YAML). Example: ``nv config show -o
yaml`` -> ``nv_config_show_o_yaml.yaml``; ``show runningconfiguration all`` (JSON) ->
``show_runningconfiguration_all.json``.

A snapshot can also be a single saved config file (the pull-request case); then the
platform's driver decides which command that file stands for.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

from rocetune import inputs
from rocetune.errors import SnapshotError

Encoding = Literal["text", "json", "yaml"]
META_FILE = "meta.json"
META_FORMAT = 1
_EXT: dict[str, str] = {"text": ".txt", "json": ".json", "yaml": ".yaml"}
_MAX_STEM = 120


@lru_cache(maxsize=1024)
def command_filename(command: str, encoding: Encoding) -> str:
    """Return the snapshot file name for a command's output (memoised: a snapshot looks its
    commands' files up by name, about a hundred times per host snapshot)."""
    stem = re.sub(r"[^a-z0-9]+", "_", command.lower()).strip("_")[:_MAX_STEM].strip("_")
    if not stem:
        msg = f"command {command!r} yields an empty file name"
        raise ValueError(msg)
    return stem + _EXT[encoding]


@dataclass(frozen=True)
class Command:
    """One command a platform collects, and where its output lives in a snapshot."""

    id: str
    """Stable identifier the parser uses (e.g. ``running_config``)."""
    command: str
    encoding: Encoding = "text"
    required: bool = True

    @property
    def filename(self) -> str:
        """The snapshot file name of this command's output."""
        return command_filename(self.command, self.encoding)


@dataclass(frozen=True)
class SourceFile:
    """A raw output as read from disk: its display path and its text."""

    path: str
    text: str


@dataclass(frozen=True)
class CommandRecord:
    """What the metadata says about one collected command."""

    command: str
    file: str
    status: Literal["ok", "error", "truncated"] = "ok"
    """``truncated``: the output went past the output cap; its file holds what came before
    the cap, cut after the last complete line (what followed was not read)."""
    error: str | None = None
    seconds: float | None = None
    cap_bytes: int | None = None
    """The output cap a truncated output went past."""


@dataclass(frozen=True)
class SnapshotMeta:
    """Contents of ``meta.json``."""

    device: str | None = None
    platform: str | None = None
    collected_at: str | None = None
    commands: tuple[CommandRecord, ...] = ()

    def to_json(self) -> str:
        """Serialise deterministically."""
        data = {
            "format": META_FORMAT,
            "device": self.device,
            "platform": self.platform,
            "collected_at": self.collected_at,
            "commands": [
                {k: v for k, v in vars(c).items() if v is not None} for c in self.commands
            ],
        }
        return json.dumps(data, indent=2, sort_keys=True) + "\n"


@dataclass(frozen=True)
class Snapshot:
    """The raw outputs of one device, keyed by snapshot file name."""

    files: Mapping[str, SourceFile]
    meta: SnapshotMeta = field(default_factory=SnapshotMeta)
    origin: str = ""
    """The directory or file the snapshot was read from (for messages)."""
    refused: tuple[tuple[str, str], ...] = ()
    """Entries of the snapshot directory that were not read (path, why): symbolic links,
    FIFOs, devices, files over the size limit. Reported as RT001, never followed."""

    def get(self, command: Command) -> SourceFile | None:
        """Return the output of ``command`` or None when it was not collected."""
        return self.files.get(command.filename)

    def __iter__(self) -> Iterator[SourceFile]:
        return iter(self.files.values())


def read_text(path: Path | str, *, follow_symlinks: bool = True) -> str:
    """Read a raw output file as UTF-8 (undecodable bytes replaced), SnapshotError if unreadable.

    Only regular files of bounded size are read (:mod:`rocetune.inputs`).
    """
    try:
        return inputs.read_text(path, follow_symlinks=follow_symlinks)
    except inputs.InputRefused as exc:
        raise SnapshotError(str(exc), file=path) from None
    except OSError as exc:
        raise SnapshotError(f"cannot read: {exc.strerror}", file=path) from exc


def read_meta(directory: Path) -> SnapshotMeta:
    """Read ``meta.json`` of a snapshot directory (an empty meta when absent)."""
    path = directory / META_FILE
    if not path.is_file() or path.is_symlink():
        return SnapshotMeta()
    return _read_meta_file(path)


def _read_meta_file(path: Path) -> SnapshotMeta:
    """:func:`read_meta` of a ``meta.json`` known to be there and no symbolic link."""
    try:
        raw = json.loads(read_text(path, follow_symlinks=False))
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"invalid JSON: {exc.msg}", file=path, line=exc.lineno) from exc
    if not isinstance(raw, dict):
        raise SnapshotError("metadata must be a JSON object", file=path, line=1)
    records = []
    for item in raw.get("commands") or []:
        if isinstance(item, dict) and "command" in item and "file" in item:
            status = item.get("status")
            cap = item.get("cap_bytes")
            records.append(
                CommandRecord(
                    command=str(item["command"]),
                    file=str(item["file"]),
                    status=status if status in ("error", "truncated") else "ok",
                    error=item.get("error"),
                    seconds=item.get("seconds"),
                    cap_bytes=cap if isinstance(cap, int) and not isinstance(cap, bool) else None,
                )
            )
    return SnapshotMeta(
        device=raw.get("device"),
        platform=raw.get("platform"),
        collected_at=raw.get("collected_at"),
        commands=tuple(records),
    )


def read_directory(directory: Path) -> Snapshot:
    """Read every output file of a snapshot directory."""
    if not directory.is_dir():
        raise SnapshotError("snapshot directory does not exist", file=directory)
    files: dict[str, SourceFile] = {}
    refused: list[tuple[str, str]] = []
    with os.scandir(directory) as scan:  # the entries' types without a stat per file
        entries = sorted(scan, key=_path_order)
    # str(directory / name) for every name scandir gives (no separator, not "." or ".."),
    # without a Path per file: a host snapshot has ~60 files
    prefix = str(directory / "_")[:-1]
    meta_entry: os.DirEntry[str] | None = None
    for entry in entries:
        name = entry.name
        if name == META_FILE:
            meta_entry = entry
            continue
        if name.startswith("."):
            continue
        p = prefix + name
        if entry.is_symlink() or not entry.is_file():
            why = "a symbolic link: not followed" if entry.is_symlink() else "not a regular file"
            refused.append((p, why))
            continue
        try:
            files[name] = SourceFile(path=p, text=read_text(p, follow_symlinks=False))
        except SnapshotError as exc:
            refused.append((p, exc.message))
    # as read_meta, from the entry scandir gave: no stat of meta.json to find it
    meta = (
        SnapshotMeta()
        if meta_entry is None or meta_entry.is_symlink() or not meta_entry.is_file()
        else _read_meta_file(directory / META_FILE)
    )
    return Snapshot(files=files, meta=meta, origin=str(directory), refused=tuple(refused))


def _path_order(entry: os.DirEntry[str]) -> str:
    """Sort key of directory entries: the order of their paths (case-blind on Windows)."""
    return entry.name.lower() if os.name == "nt" else entry.name


def read_single_file(path: Path, as_command: Command, text: str | None = None) -> Snapshot:
    """Read one saved config file as if it were the output of ``as_command`` (``text``: its
    content, read already)."""
    if text is None:
        if not path.is_file():
            why = "not a regular file" if path.exists() else "snapshot file does not exist"
            raise SnapshotError(why, file=path)
        text = read_text(path)
    source = SourceFile(path=str(path), text=text)
    return Snapshot(files={as_command.filename: source}, origin=str(path))


def write_directory(directory: Path, outputs: Mapping[str, str], meta: SnapshotMeta) -> None:
    """Write a snapshot directory (file name -> text) plus its metadata."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in outputs.items():
        if "/" in name or name in {"", ".", "..", META_FILE}:
            msg = f"invalid snapshot file name {name!r}"
            raise ValueError(msg)
        (directory / name).write_text(text, encoding="utf-8")
    (directory / META_FILE).write_text(meta.to_json(), encoding="utf-8")
