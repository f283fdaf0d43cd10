"""NetBox devices (REST API ``/api/dcim/devices/``) -> :class:`Scaffold`.

Plain ``urllib`` (no pynetbox dependency): ``GET <url>/api/dcim/devices/?limit=..`` with the
optional ``site`` and ``role`` filters (slugs), following the paginated ``next`` links. Each
device gives its ``name``, ``primary_ip`` (the address without its prefix length),
``platform.slug``, ``role.slug`` (NetBox 4; ``device_role.slug`` before) and ``site``. The API
token comes from the environment variable ``NETBOX_TOKEN`` and is sent as
``Authorization: Token ...``; it is never printed or written.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any

from rocetune.errors import RocetuneError
from rocetune.importers.scaffold import ImportedDevice, Scaffold, platform_for

TOKEN_ENV = "NETBOX_TOKEN"
PAGE_SIZE = 200
MAX_PAGES = 1000


class NetboxUnreachable(RocetuneError):
    """NetBox did not answer (network error): exit 3 like an unreachable device."""


def _slug(obj: Any) -> str | None:
    if isinstance(obj, Mapping):
        value = obj.get("slug") or obj.get("name")
        return str(value) if value else None
    return None


def _address(obj: Any) -> str | None:
    if isinstance(obj, Mapping) and obj.get("address"):
        return str(obj["address"]).split("/", 1)[0]
    return None


def _get(url: str, token: str | None, timeout: float) -> dict[str, Any]:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if token:
        request.add_header("Authorization", f"Token {token}")
    shown = url.split("?", 1)[0]
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        hint = f" (set {TOKEN_ENV} to an API token that can read devices)"
        extra = hint if exc.code in (401, 403) else ""
        raise RocetuneError(
            f"NetBox answered HTTP {exc.code} {exc.reason}{extra}", file=shown
        ) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise NetboxUnreachable(f"cannot reach NetBox: {reason}", file=shown) from None
    try:
        data = json.loads(body)
    except ValueError:
        raise RocetuneError(
            "NetBox's answer is not JSON (is this the NetBox URL?)", file=shown
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise RocetuneError("not a NetBox device list (no results)", file=shown)
    return data


def fetch_devices(
    url: str,
    *,
    site: str | None = None,
    role: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> Iterator[dict[str, Any]]:
    """Every device NetBox lists at ``url`` (its base URL), with the filters applied."""
    token = (os.environ if env is None else env).get(TOKEN_ENV) or None
    query = {"limit": str(PAGE_SIZE)}
    if site:
        query["site"] = site
    if role:
        query["role"] = role
    base = url.rstrip("/")
    if not base.endswith("/api/dcim/devices"):
        base += "/api/dcim/devices"
    next_url: str | None = f"{base}/?{urllib.parse.urlencode(query)}"
    for _ in range(MAX_PAGES):
        if next_url is None:
            return
        page = _get(next_url, token, timeout)
        for item in page["results"]:
            if isinstance(item, dict):
                yield item
        nxt = page.get("next")
        next_url = str(nxt) if nxt else None
    raise RocetuneError(f"NetBox listed more than {MAX_PAGES} pages of devices", file=base)


def _matches(device: Mapping[str, Any], key: str, wanted: str | None) -> bool:
    if wanted is None:
        return True
    obj = device.get(key)
    if key == "role" and obj is None:
        obj = device.get("device_role")
    if not isinstance(obj, Mapping):
        return False
    return wanted in (obj.get("slug"), obj.get("name"))


def scaffold_from(
    devices: Iterator[dict[str, Any]] | list[dict[str, Any]],
    source: str,
    site: str | None = None,
    role: str | None = None,
) -> Scaffold:
    """The scaffold of NetBox device records (the filters are applied again here, so an
    older NetBox that ignores one does not widen the result)."""
    scaffold = Scaffold(source=source)
    unnamed = 0
    for item in devices:
        if not _matches(item, "site", site) or not _matches(item, "role", role):
            continue
        name = item.get("name")
        if not name:
            unnamed += 1
            continue
        slug = _slug(item.get("platform"))
        role_slug = _slug(item.get("role")) or _slug(item.get("device_role"))
        address = _address(item.get("primary_ip")) or _address(item.get("primary_ip4"))
        dev = ImportedDevice(
            name=str(name), host=address, platform=platform_for(slug), role=role_slug
        )
        site_slug = _slug(item.get("site"))
        if site_slug:
            dev.notes.append(f"NetBox site {site_slug}")
        if address is None:
            dev.notes.append("no primary IP in NetBox: set host:")
        if slug and dev.platform is None:
            dev.notes.append(
                f"NetBox platform {slug!r} is not one rocetune reads: set platform: (sonic,"
                " cumulus, eos, nxos, linux_host) or leave the device out"
            )
        elif not slug:
            dev.notes.append("no platform in NetBox: set platform:")
        scaffold.add(dev)
    if unnamed:
        scaffold.notes.append(f"{unnamed} NetBox device(s) without a name were left out")
    return scaffold


def import_netbox(
    url: str,
    *,
    site: str | None = None,
    role: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Scaffold:
    """Read the devices of the NetBox at ``url`` (``https://netbox.example.com``)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RocetuneError(f"not an http(s) URL: {url!r}")
    netloc = parts.netloc.rsplit("@", 1)[-1]  # never show user:password@
    shown = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    filters = "".join(f", {k} {v}" for k, v in (("site", site), ("role", role)) if v)
    devices = list(fetch_devices(url, site=site, role=role, env=env))
    return scaffold_from(devices, f"NetBox {shown}{filters}", site=site, role=role)
