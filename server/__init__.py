"""Entry points: the CLI, settings (one file + env overrides) and the wiring of the layers.

gRPC and HTTP endpoints and routing come with the service issue.
"""

from hybridkg.server.app import open_knowledge_base, open_structural
from hybridkg.server.config import Settings, load_settings

__all__ = ["Settings", "load_settings", "open_knowledge_base", "open_structural"]
