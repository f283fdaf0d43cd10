"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import click

from rocetune.cli.settings import CONFIG_OPTIONS
from rocetune.cli.signals import EXIT_SIGINT, EXIT_SIGTERM, Terminated, interrupted

__all__ = ["EXIT_SIGINT", "EXIT_SIGTERM", "Terminated", "interrupted"]
from rocetune.errors import RocetuneError
from rocetune.report import FORMATS

if TYPE_CHECKING:
    from rocetune.config import Settings
    from rocetune.engine import Selection
    from rocetune.model import AuditResult, Intent
    from rocetune.parsecache import ParseCache
    from rocetune.report.text import TextOptions
    from rocetune.runcache import Replay

EXIT_INPUT = 2
F = TypeVar("F", bound=Callable[..., Any])


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v.strip() for raw in values for v in raw.split(",") if v.strip())


def common_options(func: F) -> F:
    """Add --format, --select, --ignore, --fail-on, --output and the config options."""
    decorators = [
        click.option(
            "--format",
            "fmt",
            type=click.Choice(list(FORMATS)),
            default="text",
            show_default=True,
            help="Output format.",
        ),
        click.option(
            "--select",
            multiple=True,
            help="Rules to run: codes, code prefixes (RT2) or names; comma-separated or repeated.",
        ),
        click.option("--ignore", multiple=True, help="Rules to skip (same forms as --select)."),
        click.option(
            "--fail-on",
            type=click.Choice(["error", "warning", "info"]),
            default=None,
            help="Exit 1 when a finding at or above this severity is reported"
            " [default: the config's fail-on, else error].",
        ),
        click.option(
            "-o",
            "--output",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Write the report to this file instead of standard output.",
        ),
        *CONFIG_OPTIONS,
        *OUTPUT_OPTIONS,
    ]
    for deco in reversed(decorators):
        func = deco(func)
    return func


COLOR_OPTION = click.option(
    "--color",
    "color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the text output: auto = on a terminal unless NO_COLOR is set"
    " (FORCE_COLOR forces it).",
)

OUTPUT_OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--output-format",
        "text_style",
        type=click.Choice(["grouped", "concise"]),
        default="grouped",
        show_default=True,
        help="Text layout: grouped by device, or concise (one line per finding, like ruff).",
    ),
    click.option(
        "--statistics",
        is_flag=True,
        help="Text: print the number of findings per rule code instead of the findings.",
    ),
    click.option(
        "-q",
        "--quiet",
        is_flag=True,
        help="Text: print the findings only (no coverage, no summary).",
    ),
    click.option(
        "--exit-zero",
        is_flag=True,
        help="Exit 0 even when findings are reported (input errors still exit 2, devices not"
        " collected 3).",
    ),
    COLOR_OPTION,
]
"""Text-output options of the checking commands (added by ``common_options``)."""


def use_colour(choice: str, tty: bool, env: Mapping[str, str] | None = None) -> bool:
    """Whether to colour: ``--color always|never`` wins; else a non-empty ``NO_COLOR``
    disables it (no-color.org), a non-empty ``FORCE_COLOR`` forces it, else a terminal."""
    env = os.environ if env is None else env
    if choice in ("always", "never"):
        return choice == "always"
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return tty


def text_width(tty: bool, env: Mapping[str, str] | None = None) -> int | None:
    """Wrapping width of the text report: the terminal's on a terminal (or ``COLUMNS`` when
    set), none when writing to a pipe or file (one line per message, grep-friendly)."""
    env = os.environ if env is None else env
    columns = env.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if not tty:
        return None
    import shutil

    return shutil.get_terminal_size((100, 24)).columns


def selection_from(opts: dict[str, Any]) -> Selection:
    """Build the rule selection from --select/--ignore."""
    from rocetune.engine import Selection

    return Selection(select=_split(opts["select"]) or ("ALL",), ignore=_split(opts["ignore"]))


def emit(
    result: AuditResult,
    opts: dict[str, Any],
    settings: Settings | None = None,
    cache: ParseCache | None = None,
    record: Callable[[Replay], object] | None = None,
) -> int:
    """Print per-device input errors on stderr, write the report, return the exit code.

    ``cache``: the run's parse cache, which also keeps the ``fix:`` lines' plan. ``record``:
    given what the run printed when it had no input error (rocetune.runcache)."""
    from rocetune.api.parsing import frozen
    from rocetune.cli.settings import finish
    from rocetune.report import render

    done = finish(result, opts)
    if done is not None:
        return done
    for err in result.errors:
        click.echo(f"rocetune: error: {err}", err=True)
    output: Path | None = opts["output"]
    tty = output is None and sys.stdout.isatty()
    text = text_options(opts, tty)
    colour = opts["fmt"] == "text" and use_colour(opts.get("color") or "auto", tty)
    with frozen():  # the collections of the fix: lines' plan and the report skip the audit
        if opts["fmt"] != "junit":  # JUnit lists findings per rule; the others: root causes
            from rocetune import api

            # root causes sharing a fix group, in every format
            api.attach_fixes(result, cache, opts.get("processes"))
        body = render(opts["fmt"], result, colour=colour, text=text)
    if output is None:
        click.echo(body, nl=False, color=colour)
    else:
        from rocetune.outputs import write_atomic

        write_atomic(output, body)
    if settings is not None:
        fail_on = settings.fail_on
    else:
        from rocetune.model import Severity

        fail_on = Severity(opts["fail_on"] or "error")
    code = result.exit_code(fail_on)
    code = 0 if code == 1 and opts.get("exit_zero") else code
    if record is not None and not result.errors:
        from rocetune.runcache import Replay

        notes = result.policy.notes() if result.policy is not None else []
        record(Replay(body, colour, tuple(f"rocetune: {n}" for n in notes), code))
    return code


def replay(done: Replay, opts: dict[str, Any]) -> int:
    """Print what a stored run printed (rocetune.runcache), as :func:`emit` printed it."""
    for line in done.notes:
        click.echo(line, err=True)
    output: Path | None = opts["output"]
    if output is None:
        click.echo(done.body, nl=False, color=done.colour)
    else:
        from rocetune.outputs import write_atomic

        write_atomic(output, done.body)
    return done.code


def text_options(opts: dict[str, Any], tty: bool) -> TextOptions:
    """The text layout chosen by --output-format, --statistics and -q; ``--statistics`` and
    ``--output-format concise`` only apply to ``--format text`` (a usage error otherwise)."""
    from rocetune.errors import ConfigError
    from rocetune.report.text import TextOptions

    statistics = bool(opts.get("statistics"))
    style: Literal["grouped", "concise"] = (
        "concise" if opts.get("text_style") == "concise" else "grouped"
    )
    if opts["fmt"] != "text" and (statistics or style != "grouped"):
        flag = "--statistics" if statistics else "--output-format"
        raise ConfigError(f"{flag} applies to --format text only")
    return TextOptions(
        style=style, statistics=statistics, quiet=bool(opts.get("quiet")), width=text_width(tty)
    )


def run_guarded(job: Callable[[], int]) -> int:
    """Run a command body; turn input errors into one stderr line and exit 2."""
    try:
        return job()
    except KeyboardInterrupt as exc:
        interrupted(exc)
        raise  # not reached: interrupted() ends the process
    except EOFError:
        click.echo("rocetune: error: input ended (EOF) while waiting for an answer", err=True)
        return EXIT_INPUT
    except RocetuneError as exc:
        click.echo(f"rocetune: error: {exc}", err=True)
        return EXIT_INPUT
    except Exception as exc:
        if os.environ.get("ROCETUNE_DEBUG"):
            raise
        msg = f"{type(exc).__name__}: {exc}".splitlines()[0]
        click.echo(f"rocetune: internal error: {msg} (set ROCETUNE_DEBUG=1 for details)", err=True)
        return EXIT_INPUT


def load_intent(path: Path) -> Intent:
    """Load an intent from a YAML file (an inventory's `intent:` or a bare intent mapping)."""
    from rocetune.inventory import load_intent_file

    return load_intent_file(path)


__all__ = [
    "COLOR_OPTION",
    "EXIT_INPUT",
    "common_options",
    "emit",
    "load_intent",
    "replay",
    "run_guarded",
    "selection_from",
    "text_width",
    "use_colour",
]
