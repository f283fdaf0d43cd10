"""The explicit list of platforms rocetune can render (``templates/<platform>/``)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocetune.platforms.spec import RenderSpec


@cache
def renderers() -> dict[str, RenderSpec]:
    """Platform name -> its renderer, in a fixed order."""
    from rocetune.platforms.cumulus.context import RENDER as CUMULUS
    from rocetune.platforms.eos.context import RENDER as EOS
    from rocetune.platforms.linux_host.context import RENDER as LINUX_HOST
    from rocetune.platforms.nxos.context import RENDER as NXOS
    from rocetune.platforms.sonic.context import RENDER as SONIC

    return {spec.platform: spec for spec in (SONIC, CUMULUS, EOS, NXOS, LINUX_HOST)}


def get_renderer(platform: str) -> RenderSpec | None:
    """The renderer of ``platform`` or None when it is not supported yet."""
    return renderers().get(platform)
