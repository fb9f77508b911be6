"""Entry points: the CLI, settings (one file + env overrides) and the wiring of the layers.

gRPC and HTTP endpoints and routing come with the service issue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hybridkg.server.config import Settings, load_settings

if TYPE_CHECKING:
    from hybridkg.server.app import open_knowledge_base, open_structural


def __getattr__(name: str) -> Any:
    """``open_knowledge_base`` and ``open_structural`` on first use: importing the package (as every CLI command
    does) does not import every layer."""
    if name in ("open_knowledge_base", "open_structural"):
        from hybridkg.server import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Settings", "load_settings", "open_knowledge_base", "open_structural"]
