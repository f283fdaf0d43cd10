"""``rocetune init -o inventory.yaml --from-...``: scaffold an inventory from another source."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from rocetune.cli.common import EXIT_INPUT, run_guarded

EXIT_UNREACHABLE = 3


def _scaffold_text(
    *,
    ansible: Path | None,
    nornir: Path | None,
    netbox: str | None,
    hosts: Path | None,
    lldp: Path | None,
    site: str | None,
    role: str | None,
) -> tuple[str, int, int, int]:
    """The inventory text, and its counts: devices, devices without platform, links."""
    from rocetune.errors import ConfigError
    from rocetune.importers import render

    given = [x for x in (ansible, nornir, netbox, hosts, lldp) if x is not None]
    if len(given) != 1:
        msg = (
            "give exactly one of --from-ansible, --from-nornir, --from-netbox, --hosts, --from-lldp"
        )
        raise ConfigError(msg)
    if (site or role) and netbox is None:
        raise ConfigError("--site and --role filter --from-netbox only")
    if ansible is not None:
        from rocetune.importers.ansible import import_ansible

        scaffold = import_ansible(ansible)
    elif nornir is not None:
        from rocetune.importers.nornir import import_nornir

        scaffold = import_nornir(nornir)
    elif netbox is not None:
        from rocetune.importers.netbox import import_netbox

        scaffold = import_netbox(netbox, site=site, role=role)
    elif hosts is not None:
        from rocetune.importers.hostlist import import_hosts

        scaffold = import_hosts(hosts)
    else:
        assert lldp is not None
        from rocetune.importers.lldp import import_lldp

        scaffold = import_lldp(lldp)
    devices = scaffold.devices.values()
    unknown = sum(1 for d in devices if d.platform is None)
    return render(scaffold), len(scaffold.devices), unknown, len(scaffold.links)


def _check_loads(text: str) -> None:
    """Load the text as rocetune will (a failure is a bug of the importer, said plainly)."""
    from rocetune.errors import RocetuneError
    from rocetune.inventory import load_inventory

    with tempfile.TemporaryDirectory(prefix="rocetune-init-") as tmp:
        path = Path(tmp) / "inventory.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            load_inventory(path)
        except RocetuneError as exc:
            msg = f"internal error: the scaffolded inventory does not load ({exc.message})"
            raise RocetuneError(msg) from None


@click.command("init")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("inventory.yaml"),
    show_default=True,
    help="The inventory file to write.",
)
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
@click.option(
    "--from-ansible",
    "ansible",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="An Ansible inventory file (INI or YAML).",
)
@click.option(
    "--from-nornir",
    "nornir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A Nornir SimpleInventory directory (hosts.yaml, groups.yaml, defaults.yaml).",
)
@click.option(
    "--from-netbox",
    "netbox",
    metavar="URL",
    help="A NetBox base URL; reads /api/dcim/devices/ with the token in $NETBOX_TOKEN.",
)
@click.option("--site", help="With --from-netbox: only devices of this site (slug).")
@click.option("--role", help="With --from-netbox: only devices of this role (slug).")
@click.option(
    "--hosts",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A host list: one `name [address]` per line.",
)
@click.option(
    "--from-lldp",
    "lldp",
    type=click.Path(exists=True, path_type=Path),
    metavar="SNAPSHOT",
    help="One collected device's snapshot: it and its LLDP neighbours, with the links.",
)
def init(
    *,
    output: Path,
    force: bool,
    ansible: Path | None,
    nornir: Path | None,
    netbox: str | None,
    site: str | None,
    role: str | None,
    hosts: Path | None,
    lldp: Path | None,
) -> None:
    """Scaffold an inventory from Ansible, Nornir, NetBox, a host list or LLDP.

    The result has the default intent, groups by platform and role, and devices with their
    address and platform; comments mark what is left to fill in. Passwords are never copied.
    """

    def job() -> int:
        from rocetune.errors import ConfigError
        from rocetune.importers.netbox import NetboxUnreachable
        from rocetune.outputs import write_atomic

        if output.exists() and not force:
            raise ConfigError(f"{output} exists: use --force to overwrite it")
        try:
            text, count, unknown, links = _scaffold_text(
                ansible=ansible,
                nornir=nornir,
                netbox=netbox,
                hosts=hosts,
                lldp=lldp,
                site=site,
                role=role,
            )
        except NetboxUnreachable as exc:
            click.echo(f"rocetune: error: {exc}", err=True)
            return EXIT_UNREACHABLE
        _check_loads(text)
        write_atomic(output, text)
        todo = f"; {unknown} without a platform (see the comments)" if unknown else ""
        click.echo(f"wrote {output}: {count} device(s), {links} link(s){todo}", err=True)
        click.echo(f"next: review it, then `rocetune audit {output}`", err=True)
        return 0

    sys.exit(run_guarded(job))


__all__ = ["EXIT_INPUT", "init"]
