"""``--no-cache`` and ``--cache-dir``: the parse cache options (rocetune.parsecache)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from rocetune.parsecache import ParseCache

F = TypeVar("F", bound=Callable[..., Any])


_CACHE_DIR = click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="ROCETUNE_CACHE_DIR",
    help="The cache directory [default: .rocetune_cache; env ROCETUNE_CACHE_DIR].",
)


def cache_options(func: F) -> F:
    """Add --no-cache and --cache-dir (passed to the command as ``no_cache``, ``cache_dir``)."""
    func = _CACHE_DIR(func)
    return click.option(
        "--no-cache",
        is_flag=True,
        help="Parse every snapshot again; neither read nor write the cache.",
    )(func)


def parse_cache(no_cache: bool, cache_dir: Path | None) -> ParseCache | None:
    """The parse cache of a run, None with --no-cache."""
    if no_cache:
        return None
    from rocetune.parsecache import ParseCache, default_dir

    return ParseCache(cache_dir if cache_dir is not None else default_dir())


@click.group("cache")
def cache_cmd() -> None:
    """Show or remove the cache of parsed snapshots and check results (.rocetune_cache)."""


@cache_cmd.command("clean")
@_CACHE_DIR
def clean(cache_dir: Path | None) -> None:
    """Remove the cache directory (every rocetune version's entries)."""
    from rocetune.cli.common import run_guarded
    from rocetune.parsecache import default_dir, remove

    directory = cache_dir if cache_dir is not None else default_dir()

    def job() -> int:
        click.echo(remove(directory))
        return 0

    raise SystemExit(run_guarded(job))


@cache_cmd.command("info")
@_CACHE_DIR
def info(cache_dir: Path | None) -> None:
    """Print the cache directory's entries and size per rocetune version."""
    from rocetune.parsecache import default_dir, summary

    directory = cache_dir if cache_dir is not None else default_dir()
    click.echo(summary(directory))
