"""Command line: click commands only. Each builds options, calls rocetune.api, reports.

The group loads a command's module only when that command runs (:class:`LazyGroup`), so
``rocetune --help`` and ``--version`` import no checker, platform or SSH code. The table
:data:`COMMANDS` names each command's module and its one-line help (a test keeps them equal
to the commands' own).
"""

from __future__ import annotations

import importlib

import click

from rocetune import __version__

COMMANDS: dict[str, tuple[str, str]] = {
    "apply": ("rocetune.cli.apply:apply", "Apply PLAN.json (from `rocetune plan..."),
    "audit": ("rocetune.cli.check:audit", "Audit every device of INVENTORY against..."),
    "cache": ("rocetune.cli.cache:cache_cmd", "Show or remove the cache of parsed..."),
    "collect": (
        "rocetune.cli.collect:collect_cmd",
        "Collect every device of INVENTORY over SSH...",
    ),
    "diff": ("rocetune.cli.diff:diff", "Compare BASE and HEAD: RoCE state that..."),
    "explain": ("rocetune.cli.explain:explain", "Print the documentation of RULE (a code..."),
    "init": ("rocetune.cli.init:init", "Scaffold an inventory from Ansible,..."),
    "lint": ("rocetune.cli.check:lint", "Lint saved config files and outputs: SONiC..."),
    "plan": ("rocetune.cli.plan:plan", "Show per device of INVENTORY the smallest..."),
    "render": ("rocetune.cli.render:render", "Render each device's intended QoS config..."),
    "rules": ("rocetune.cli.check:rules_cmd", "List the rule catalogue (code, name,..."),
    "verify": ("rocetune.cli.verify:verify", "Run perftest (ib_write_bw, ib_send_lat)..."),
}
"""Command name -> (``module:attribute``, short help as ``rocetune --help`` lists it)."""


class LazyGroup(click.Group):
    """A click group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, without importing any."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import the command's module now."""
        if cmd_name not in COMMANDS:
            return None
        module, _, attr = COMMANDS[cmd_name][0].partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help`` from the table (no import)."""
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rocetune")
def cli() -> None:
    """Keep lossless RoCE v2 fabrics lossless: audit PFC, DSCP, ECN, ETS, MTU and buffers."""


def main() -> None:
    """Console-script entry point."""
    from rocetune.cli.signals import install_signal_handlers, interrupted, leave

    install_signal_handlers()
    try:
        cli(prog_name="rocetune")
    except KeyboardInterrupt as exc:
        interrupted(exc)
    except SystemExit as done:
        leave(done)
