"""Where the bridge's property graphs live: beside the structural layer's graph, on its FalkorDB server
(issue 11 §1, "Sync": "in the same store the structural layer uses").

The structural layer owns the managed server (it starts, restarts and stops it); a bridge graph is another graph
(Redis key) of that server, ``hybridkg_bridge`` or ``hybridkg_bridge_<domain>``, opened by :func:`graph_beside`
without owning the server: closing it leaves the server to the structural layer.
"""

from __future__ import annotations

from hybridkg.errors import Unsupported
from hybridkg.structural.base import GraphStore

__all__ = ["graph_beside"]


def graph_beside(structural: GraphStore, graph_name: str) -> GraphStore:
    """The graph ``graph_name`` on the server of ``structural`` (the structural layer's graph store, mirrored or
    not). Unsupported unless that is a FalkorDB store on a server hybridkg manages."""
    from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
    from hybridkg.structural.graphstore.mirror import MirroredGraphStore

    primary = structural.primary if isinstance(structural, MirroredGraphStore) else structural
    if isinstance(primary, FalkorDBGraphStore) and primary.server is not None:
        return FalkorDBGraphStore(graph_name=graph_name, server=primary.server, owns_server=False)
    raise Unsupported(
        f"the bridge's property graph {graph_name} lives on the structural layer's managed FalkorDB, but its graph "
        f"store is {type(primary).__name__}: set structural.graph.backend to falkordb (the default), or set "
        "bridge.enabled to false"
    )
