"""The running configuration a plan starts from (remediation and change sets of CLI switches)."""

from __future__ import annotations

from rocetune.snapshot import Command, Snapshot, SourceFile


def running_config(snapshot: Snapshot, command: Command) -> SourceFile:
    """The output of ``command`` (the running configuration), else the snapshot's first file
    (a saved configuration linted as one file); ValueError when the snapshot has neither."""
    source = snapshot.get(command) or next(iter(snapshot), None)
    if source is None:
        raise ValueError(f"the snapshot has no running-config ({command.command})")
    return source
