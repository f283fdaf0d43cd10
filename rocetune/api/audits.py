"""Audit an inventory, lint config files.

Nothing here prints; callers pick a reporter. Input problems of one device never stop the
others: they are collected in :attr:`AuditResult.errors` (exit 2) or as device problems
(RT002, not collected: exit 3).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from rocetune.api.parsing import Job, load_all, long_lived
from rocetune.checkcache import scope_of
from rocetune.checks.base import RuleOptions
from rocetune.checks.registry import all_rules
from rocetune.engine import MISSING_CODE, Selection, run_checks, select_rules
from rocetune.errors import RocetuneError
from rocetune.fleet import expected_hosts, with_snapshots
from rocetune.inventory import Inventory, ResolvedDevice, load_inventory
from rocetune.load import (
    Loaded,
    host_command_file,
    load_device,
    load_host_files,
    load_script_over,
)
from rocetune.model import (
    AuditResult,
    Device,
    DeviceProblem,
    DeviceStatus,
    Fabric,
    Finding,
    Intent,
    Link,
    Provenance,
)
from rocetune.model.share import Sharer, sharing
from rocetune.platforms import KNOWN_PLATFORMS
from rocetune.platforms.base import ParseResult
from rocetune.suppress import Policy, apply_to_result
from rocetune.topology import merge_links

if TYPE_CHECKING:
    from rocetune.parsecache import ParseCache


def _check(
    fabric: Fabric,
    provenance: dict[str, Provenance],
    selection: Selection,
    options: dict[str, RuleOptions] | None,
    only: frozenset[str] | None = None,
    *,
    cached: _Cached | None = None,
    keep: bool = False,
) -> list[Finding]:
    """The findings of the selected rules; ``cached``: with the check cache, whose records
    the plan of the ``fix:`` lines re-reads when ``keep`` (rocetune.checkcache.keep)."""
    rules = select_rules(all_rules(), selection)
    report_missing = any(r.meta.code == MISSING_CODE for r in rules)
    if cached is None or only is not None:
        return run_checks(
            fabric, rules, options, provenance, report_missing=report_missing, only=only
        )
    from rocetune.checkcache import CheckStore, context_key

    cache, scope, content = cached
    context = context_key(fabric.intent, rules, options, report_missing=report_missing)
    store = CheckStore(cache, scope, fabric, content, context)
    findings = run_checks(
        fabric, rules, options, provenance, report_missing=report_missing, store=store
    )
    store.save()
    if keep:
        from rocetune.checkcache import keep as keep_store

        keep_store(store, fabric)
    return findings


def _for_plan(options: dict[str, RuleOptions] | None, cache: ParseCache | None) -> bool:
    """Whether the run of an audit through the parse cache (the CLI's re-audit: the plan of
    its ``fix:`` lines follows) keeps its whole-fabric results and its check records for
    that plan (rocetune.checks.memo.keeping, rocetune.checkcache.keep): when the plan's
    re-checks would compute the same, every rule's options being the defaults (the plan
    runs the rules with them). Not without the cache: a library caller may never plan, and
    the results outlive the run."""
    if cache is None:
        return False
    rules = {r.meta.code: r for r in all_rules()}
    return all(
        code in rules and opts == rules[code].options_model()
        for code, opts in (options or {}).items()
    )


def _kept_for_plan(fabric: Fabric, keep: bool) -> AbstractContextManager[None]:
    """:func:`rocetune.checks.memo.keeping` of ``fabric`` when ``keep`` (:func:`_for_plan`)."""
    from rocetune.checks.memo import keeping

    return keeping(fabric) if keep else nullcontext()


_Cached = tuple["ParseCache", str, dict[str, str]]
"""The parse cache, the scope of the run (rocetune.checkcache.scope_of), and the parse cache
key of every device read through it: check results are cached per device and link."""


def _assemble(
    loaded: Iterable[tuple[str, str | None, Loaded]],
    intent: Intent,
    links: tuple[Link, ...],
    selection: Selection,
    options: dict[str, RuleOptions] | None,
    *,
    cache: ParseCache | None = None,
    scope: str = "",
) -> AuditResult:
    devices: dict[str, Device] = {}
    content: dict[str, str] = {}
    prov: dict[str, Provenance] = {}
    problems: list[DeviceProblem] = []
    status: dict[str, DeviceStatus] = {}
    errors: list[RocetuneError] = []
    for name, platform, item in loaded:
        if item.result is not None:
            devices[name] = item.result.device
            prov[name] = item.result.provenance
            if item.key is not None:
                content[name] = item.key
            status[name] = DeviceStatus(name, item.result.device.platform, "ok")
        elif item.problem is not None:
            problems.append(item.problem)
            if item.source is not None:
                prov[name] = Provenance()
                prov[name].add("", item.source, None)
            status[name] = DeviceStatus(name, platform, "error", item.problem.message)
        elif item.error is not None:
            errors.append(item.error)
            status[name] = DeviceStatus(name, platform, "error", str(item.error))
    fabric = Fabric(
        intent=intent,
        devices=devices,
        links=merge_links(devices, links, intent, known=status),
        problems=tuple(problems),
        known_devices=tuple(status),
    )
    cached = (cache, scope, content) if cache is not None else None
    keep = _for_plan(options, cache)
    with _kept_for_plan(fabric, keep):  # fixplan: for the fix: lines' plan
        findings = _check(fabric, prov, selection, options, cached=cached, keep=keep)
    ran = tuple(r.meta.code for r in select_rules(all_rules(), selection))
    return AuditResult(fabric, findings, status, errors, prov, ran, content=content)


def audit(
    inventory: Path | str | None,
    selection: Selection | None = None,
    options: dict[str, RuleOptions] | None = None,
    *,
    policy: Policy | None = None,
    collector: Callable[[Inventory], Mapping[str, Path | str]] | None = None,
    snapshots: Path | None = None,
    processes: int | None = None,
    cache: ParseCache | None = None,
) -> AuditResult:
    """Audit every device of an inventory from its saved snapshot.

    ``collector`` (rocetune.cli.collect.live_collector) collects the devices that have no
    ``snapshot:`` first: name -> snapshot directory, or why it failed (exit 3).
    ``snapshots``: a directory whose ``<device>/meta.json`` are devices too (rocetune.fleet;
    overrides the inventory's ``snapshots_dir:``); with no inventory, they are the fabric
    (default intent). ``processes``: snapshots parsed by that many forked processes
    (default: one per 64 devices, up to the CPUs; rocetune.api.parsing). ``cache``: parse
    only the snapshots that changed since a run that used the same cache
    (:mod:`rocetune.parsecache`). Raises InventoryError for an invalid inventory.
    """
    if inventory is None:
        if snapshots is None:
            raise RocetuneError("nothing to audit: give an inventory or snapshots")
        inv = Inventory(path=snapshots, intent=Intent(), devices={}, links=())
    elif cache is not None:
        from rocetune import invcache

        inv = invcache.load(inventory, cache)
    else:
        inv = load_inventory(inventory)
    result = audit_inventory(
        inv,
        selection,
        options,
        policy=policy,
        collector=collector,
        snapshots=snapshots,
        processes=processes,
        cache=cache,
    )
    result.inventory = str(inventory) if inventory is not None else None
    return result


def audit_inventory(
    inv: Inventory,
    selection: Selection | None = None,
    options: dict[str, RuleOptions] | None = None,
    *,
    policy: Policy | None = None,
    collector: Callable[[Inventory], Mapping[str, Path | str]] | None = None,
    snapshots: Path | None = None,
    processes: int | None = None,
    cache: ParseCache | None = None,
) -> AuditResult:
    """:func:`audit` of an inventory already loaded (callers that need it too load it once)."""
    inv, missing = _with_snapshots(inv, snapshots)
    ask = dataclasses.replace(
        inv, devices={n: d for n, d in inv.devices.items() if n not in missing}
    )
    live: dict[str, Path | str] = dict(collector(ask)) if collector is not None else {}
    live.update(missing)
    sources = {d.name: live.get(d.name, d.snapshot) for d in inv.devices.values()}
    sharer = Sharer()  # equal maps/profiles of all devices held once (rocetune.model.share)
    entries = list(inv.devices.values())
    jobs = [Job(d.name, sources[d.name], d.platform, d.role, d.asic) for d in entries]
    scope = scope_of([inv.path])
    if cache is not None:
        from rocetune.parsebundle import use_bundle

        use_bundle(cache, scope)  # every device of the last audit in one read
    with long_lived() as settle:  # the parsed fabric is not re-scanned by the cyclic GC
        with sharing(sharer):  # ports share their maps as they are built
            loaded = []
            for d, item in zip(entries, load_all(jobs, processes, cache), strict=True):
                loaded.append((d.name, d.platform, _shared(sharer, _declare(item, d))))
                settle(collect=not (item.cached or item.decoded))  # decoding makes no cycle
        del sharer  # its pool's keys are not needed while checking
        if cache is not None:
            cache.save_bundle()  # after the sharing: equal maps are pickled once
        sel = selection or Selection()
        result = _assemble(loaded, inv.intent, inv.links, sel, options, cache=cache, scope=scope)
    for name, st in result.devices.items():
        role = inv.devices[name].role if name in inv.devices else None
        if role is not None:
            result.devices[name] = dataclasses.replace(st, role=role)
    result.inventory = str(inv.path)
    if policy is not None or inv.suppressions:
        apply_to_result(result, policy or Policy(), inv.suppressions)
    return result


def _with_snapshots(inv: Inventory, snapshots: Path | None) -> tuple[Inventory, dict[str, str]]:
    """``inv`` with the snapshot directory's devices, and its expected hosts without one."""
    directory = snapshots if snapshots is not None else inv.snapshots_dir
    if directory is None:
        return inv, {}
    inv = with_snapshots(inv, directory)
    why = "not collected: no snapshot {} in {} (the inventory expects this host)"
    return inv, {n: why.format(f"{n}/", directory) for n in expected_hosts(inv)}


def _shared(sharer: Sharer, item: Loaded) -> Loaded:
    """Share the device's equal values with the devices loaded before it (in place); not
    for a device from the parse cache (sharing costs more than decoding it)."""
    if item.result is not None and not item.cached:
        sharer.device(item.result.device)
    return item


def _declare(item: Loaded, entry: ResolvedDevice) -> Loaded:
    """Carry the inventory's ``roce_ports`` into the parsed device (rocetune.checks.scope);
    the parse cache key stays (the check and fix caches key ``roce_ports`` besides it)."""
    if item.result is None or entry.roce_ports is None:
        return item
    device = item.result.device.model_copy(update={"roce_ports": entry.roce_ports})
    return dataclasses.replace(item, result=ParseResult(device, item.result.provenance))


def _host_groups(
    entries: Sequence[tuple[Path, str, Loaded]], platform: str | None
) -> list[list[int]]:
    """Which saved host files given to lint are one host (indexes into ``entries``).

    Host files (single files that parse as a host) with the same hostname (from a prompt or
    a ``hostname`` output) are one host. Files without a hostname join the host when all the
    host files name at most one host; when they name several, a file without a hostname
    cannot be placed and stays a device of its own. Two files that stand for the same
    command (two ``mlnx_qos -i eth2`` outputs) are never merged: the later one stays apart.
    """
    hosts: list[tuple[int, str | None]] = []
    for i, (path, _, item) in enumerate(entries):
        dev = item.result.device if item.result is not None else None
        if dev is not None and dev.kind == "host" and path.is_file():
            hosts.append((i, dev.hostname.casefold() if dev.hostname else None))
    named = {h for _, h in hosts if h is not None}
    by_host: dict[str | None, list[int]] = {}
    for i, host in hosts:
        key = host if host is not None or len(named) != 1 else next(iter(named))
        if key is None and len(named) > 1:
            continue
        by_host.setdefault(key, []).append(i)
    groups = []
    for members in by_host.values():
        seen: set[str | None] = set()
        group = []
        for i in members:
            command = host_command_file(entries[i][0], platform)
            if command is not None and command not in seen:
                seen.add(command)
                group.append(i)
        if len(group) > 1:
            groups.append(group)
    return groups


def _unique_name(wanted: str, fallback: str, taken: set[str]) -> str:
    for candidate in (wanted, fallback):
        if candidate not in taken:
            return candidate
    n = 2
    while f"{fallback}#{n}" in taken:
        n += 1
    return f"{fallback}#{n}"


def lint(
    paths: Sequence[Path | str],
    platform: str | None = None,
    intent: Intent | None = None,
    selection: Selection | None = None,
    options: dict[str, RuleOptions] | None = None,
    *,
    policy: Policy | None = None,
    cache: ParseCache | None = None,
) -> AuditResult:
    """Lint saved config files (or snapshot directories) against an intent.

    Each file is one device, named after the hostname in its config, else the file stem;
    except saved host outputs (``mlnx_qos``, ``show_gids``, ``ethtool`` ...), which are read
    together as one host per hostname (see :func:`_host_groups`).
    """
    if platform is not None and platform not in KNOWN_PLATFORMS:
        raise RocetuneError(f"unknown platform {platform!r}; known: {', '.join(KNOWN_PLATFORMS)}")
    entries: list[tuple[Path, str, Loaded]] = []
    sharer = Sharer()
    for raw in paths:
        path = Path(raw)
        stem = path.stem if path.is_file() else path.name
        with sharing(sharer):  # ports share their maps as they are built
            read = load_device(stem, path, platform, None, cache=cache)
        entries.append((path, stem, _shared(sharer, read)))
    del sharer  # its pool's keys are not needed while checking
    if cache is not None:
        cache.save_index()
    for group in _host_groups(entries, platform):
        first_path, stem, first = entries[group[0]]
        assert first.result is not None
        name = first.result.device.hostname or stem
        merged = load_host_files(name, [entries[i][0] for i in group], platform)
        entries[group[0]] = (first_path, stem, merged)
        for i in group[1:]:
            entries[i] = (entries[i][0], "", Loaded())
    loaded: list[tuple[str, str | None, Loaded]] = []
    taken: set[str] = set()
    for _, stem, entry in entries:
        if not stem:
            continue  # read as part of a host group
        item = entry
        name = stem
        if item.result is not None:
            name = _unique_name(item.result.device.hostname or stem, stem, taken)
            if name != item.result.device.name:
                device = item.result.device.model_copy(update={"name": name})
                item = Loaded(result=ParseResult(device, item.result.provenance))
        elif item.problem is not None:
            name = _unique_name(stem, stem, taken)
            problem = item.problem.model_copy(update={"device": name})
            item = Loaded(problem=problem, source=item.source)
        taken.add(name)
        loaded.append((name, platform, item))
    sel = selection or Selection()
    scope = scope_of(["lint", *paths])
    result = _assemble(loaded, intent or Intent(), (), sel, options, cache=cache, scope=scope)
    if policy is not None:
        apply_to_result(result, policy, ())
    return result


def lint_script_over(
    snapshot: Path,
    script: Path,
    platform: str | None = None,
    intent: Intent | None = None,
    selection: Selection | None = None,
    *,
    options: dict[str, RuleOptions] | None = None,
    policy: Policy | None = None,
) -> AuditResult:
    """Lint a collected host (snapshot directory or saved file) as a setup script would leave
    it: the script's values laid over the snapshot's (``rocetune diff SNAPSHOT setup.sh``)."""
    name = snapshot.name if snapshot.is_dir() else snapshot.stem
    item = load_script_over(name, snapshot, script, platform)
    if item.result is not None:
        name = item.result.device.hostname or name
        device = item.result.device.model_copy(update={"name": name})
        item = Loaded(result=ParseResult(device, item.result.provenance))
    sel = selection or Selection()
    result = _assemble([(name, platform, item)], intent or Intent(), (), sel, options)
    if policy is not None:
        apply_to_result(result, policy, ())
    return result
