"""The ``CypherValue`` message (``knowledge.proto``: a oneof of boolean, sint64 integer, double, string, list, map,
node, relationship, path; none set is null) to and from Python values, for both ends of the ``Cypher`` and
``Translate`` RPCs (docs/bridge.md §5.3):

* parameters, client -> server (:func:`param_message`, :func:`param_values`): null, booleans, integers within
  int64, floats, strings, and lists and string-keyed maps of them; anything else is refused on either side with
  :class:`hybridkg.errors.InvalidInput` naming the parameter, never sent as its ``str``;
* values, server -> client (:func:`message`, :func:`value`): those, plus nodes, relationships and paths as
  :mod:`hybridkg.structural.base`'s ``GraphNode``, ``GraphRelationship``, ``GraphPath`` (loaded only when a
  graph value is met: the client does not load the graph layer for scalars).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hybridkg.errors import InvalidInput
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb

if TYPE_CHECKING:
    from google.protobuf.internal.containers import MessageMap

    from hybridkg.structural.base import GraphNode, GraphRelationship

__all__ = ["message", "param_message", "param_messages", "param_values", "properties", "value"]

_SCALARS = ("boolean", "integer", "float", "string")


# ------------------------------------------------------------------------------------------- parameters


def param_messages(params: Mapping[str, Any] | None) -> dict[str, pb.CypherValue]:
    """The ``params`` map of a ``CypherRequest`` or ``TranslateRequest`` (``None``: no parameters)."""
    if params is None:
        return {}
    out: dict[str, pb.CypherValue] = {}
    for name, v in params.items():
        if not isinstance(name, str):
            raise InvalidInput(f"Cypher parameter names are strings, not {name!r}")
        out[name] = param_message(v, name)
    return out


def param_message(v: Any, where: str) -> pb.CypherValue:
    """A Python value as a ``CypherValue`` parameter; anything but null, bool, int, float, str, list/tuple and
    str-keyed maps is refused (never sent as its ``str``)."""
    msg = pb.CypherValue()
    if v is None:
        pass
    elif isinstance(v, bool):
        msg.boolean = v
    elif isinstance(v, int):
        if not -(1 << 63) <= v < 1 << 63:
            raise InvalidInput(f"Cypher parameter {where} = {v} does not fit in 64 bits")
        msg.integer = v
    elif isinstance(v, float):
        msg.float = v
    elif isinstance(v, str):
        msg.string = v
    elif isinstance(v, Mapping):
        msg.map.SetInParent()
        for k, item in v.items():
            if not isinstance(k, str):
                raise InvalidInput(f"Cypher parameter {where}: map keys are strings, not {k!r}")
            msg.map.entries[k].CopyFrom(param_message(item, f"{where}.{k}"))
    elif isinstance(v, list | tuple):
        msg.list.SetInParent()
        msg.list.values.extend(param_message(item, f"{where}[{i}]") for i, item in enumerate(v))
    else:
        raise InvalidInput(f"Cypher parameter {where} is a {type(v).__name__}; a parameter is None, a bool, int, "
                           "float, str, or a list or str-keyed map of them")
    return msg


def param_values(params: Mapping[str, pb.CypherValue]) -> dict[str, Any]:
    """A request's ``params`` map as the Python values the store takes."""
    return {name: param_value(msg, name) for name, msg in params.items()}


def param_value(msg: pb.CypherValue, where: str) -> Any:
    """A parameter's value from a ``CypherValue``; nodes, relationships and paths are not parameters."""
    kind = msg.WhichOneof("kind")
    if kind is None:
        return None
    if kind in _SCALARS:
        return getattr(msg, kind)
    if kind == "list":
        return [param_value(v, where) for v in msg.list.values]
    if kind == "map":
        return {k: param_value(v, f"{where}.{k}") for k, v in msg.map.entries.items()}
    raise InvalidInput(f"parameter {where} is a {kind}; a parameter is a boolean, integer, float, string, list or map")


# ------------------------------------------------------------------------------------------- values


def message(v: Any) -> pb.CypherValue:
    """A Cypher value (as :class:`hybridkg.bridge.queries.CypherRows` holds them) as a ``CypherValue``: map keys as
    strings, a value of any other type as its ``str``."""
    msg = pb.CypherValue()
    if v is None:
        return msg
    if isinstance(v, bool):
        msg.boolean = v
    elif isinstance(v, int):
        msg.integer = v
    elif isinstance(v, float):
        msg.float = v
    elif isinstance(v, str):
        msg.string = v
    elif isinstance(v, dict):
        msg.map.SetInParent()
        for k, item in v.items():
            msg.map.entries[str(k)].CopyFrom(message(item))
    elif isinstance(v, list | tuple):
        msg.list.SetInParent()
        msg.list.values.extend(message(item) for item in v)
    else:
        from hybridkg.structural.base import GraphNode, GraphPath, GraphRelationship

        if isinstance(v, GraphNode):
            msg.node.CopyFrom(_node_message(v))
        elif isinstance(v, GraphRelationship):
            msg.relationship.CopyFrom(_relationship_message(v))
        elif isinstance(v, GraphPath):
            msg.path.nodes.extend(_node_message(n) for n in v.nodes)
            msg.path.relationships.extend(_relationship_message(r) for r in v.relationships)
        else:
            msg.string = str(v)
    return msg


def properties(target: MessageMap[str, pb.CypherValue], props: Mapping[Any, Any]) -> None:
    """Fill a ``map<string, CypherValue>`` field with ``props`` (keys as strings)."""
    for k, v in props.items():
        target[str(k)].CopyFrom(message(v))


def _node_message(node: GraphNode) -> pb.CypherNode:
    msg = pb.CypherNode(id=node.element_id, labels=list(node.labels))
    properties(msg.properties, node.props)
    return msg


def _relationship_message(rel: GraphRelationship) -> pb.CypherRelationship:
    msg = pb.CypherRelationship(id=rel.element_id, type=rel.type, start=rel.start, end=rel.end)
    properties(msg.properties, rel.props)
    return msg


def value(msg: pb.CypherValue) -> Any:
    """A ``CypherValue`` as the value the server's store gave (nodes, relationships, paths as
    :mod:`hybridkg.structural.base`'s graph values, which :func:`hybridkg.bridge.queries.json_value` renders)."""
    kind = msg.WhichOneof("kind")
    if kind is None:
        return None
    if kind == "list":
        return [value(v) for v in msg.list.values]
    if kind == "map":
        return {k: value(v) for k, v in msg.map.entries.items()}
    if kind == "node":
        return _node(msg.node)
    if kind == "relationship":
        return _relationship(msg.relationship)
    if kind == "path":
        from hybridkg.structural.base import GraphPath

        return GraphPath(tuple(_node(n) for n in msg.path.nodes),
                         tuple(_relationship(r) for r in msg.path.relationships))
    return getattr(msg, kind)


def _node(msg: pb.CypherNode) -> GraphNode:
    from hybridkg.structural.base import GraphNode

    return GraphNode(msg.id, tuple(msg.labels), {k: value(v) for k, v in msg.properties.items()})


def _relationship(msg: pb.CypherRelationship) -> GraphRelationship:
    from hybridkg.structural.base import GraphRelationship

    return GraphRelationship(msg.id, msg.type, msg.start, msg.end, {k: value(v) for k, v in msg.properties.items()})
