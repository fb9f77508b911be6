"""Entry points: the CLI, settings (one file + env overrides) and the wiring of the layers.

gRPC and HTTP endpoints and routing come with the service issue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hybridkg.server.app import open_knowledge_base, open_structural
    from hybridkg.server.config import Settings, load_settings


def __getattr__(name: str) -> Any:
    """The public names on first use: importing the package does not import every layer, nor the settings (the
    console script, :mod:`hybridkg.server.launch`, starts before them)."""
    if name in ("open_knowledge_base", "open_structural"):
        from hybridkg.server import app

        return getattr(app, name)
    if name in ("Settings", "load_settings"):
        from hybridkg.server import config

        return getattr(config, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Settings", "load_settings", "open_knowledge_base", "open_structural"]
