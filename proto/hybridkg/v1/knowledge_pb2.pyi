from google.protobuf import struct_pb2 as _struct_pb2
from hybridkg.proto.hybridkg.v1 import rdf_pb2 as _rdf_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ResultEncoding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESULT_ENCODING_ROWS: _ClassVar[ResultEncoding]
    RESULT_ENCODING_TEXT: _ClassVar[ResultEncoding]

class QueryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    QUERY_KIND_UNSPECIFIED: _ClassVar[QueryKind]
    QUERY_KIND_SELECT: _ClassVar[QueryKind]
    QUERY_KIND_ASK: _ClassVar[QueryKind]
    QUERY_KIND_GRAPH: _ClassVar[QueryKind]

class QueryLanguage(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    QUERY_LANGUAGE_UNSPECIFIED: _ClassVar[QueryLanguage]
    QUERY_LANGUAGE_CYPHER: _ClassVar[QueryLanguage]
    QUERY_LANGUAGE_SPARQL: _ClassVar[QueryLanguage]
RESULT_ENCODING_ROWS: ResultEncoding
RESULT_ENCODING_TEXT: ResultEncoding
QUERY_KIND_UNSPECIFIED: QueryKind
QUERY_KIND_SELECT: QueryKind
QUERY_KIND_ASK: QueryKind
QUERY_KIND_GRAPH: QueryKind
QUERY_LANGUAGE_UNSPECIFIED: QueryLanguage
QUERY_LANGUAGE_CYPHER: QueryLanguage
QUERY_LANGUAGE_SPARQL: QueryLanguage

class IngestRequest(_message.Message):
    __slots__ = ("metadata", "chunk")
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    metadata: IngestMetadata
    chunk: bytes
    def __init__(self, metadata: _Optional[_Union[IngestMetadata, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class IngestMetadata(_message.Message):
    __slots__ = ("domain", "graph", "format", "name")
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    domain: str
    graph: str
    format: str
    name: str
    def __init__(self, domain: _Optional[str] = ..., graph: _Optional[str] = ..., format: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class IngestResponse(_message.Message):
    __slots__ = ("kind", "graph", "domain", "format", "triples_asserted", "triples_inferred", "shacl", "documents_added", "chunks_added", "entities_added", "relations_added", "took_ms")
    KIND_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    TRIPLES_ASSERTED_FIELD_NUMBER: _ClassVar[int]
    TRIPLES_INFERRED_FIELD_NUMBER: _ClassVar[int]
    SHACL_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_ADDED_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_ADDED_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_ADDED_FIELD_NUMBER: _ClassVar[int]
    RELATIONS_ADDED_FIELD_NUMBER: _ClassVar[int]
    TOOK_MS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    graph: str
    domain: str
    format: str
    triples_asserted: int
    triples_inferred: int
    shacl: _rdf_pb2.ValidationReport
    documents_added: int
    chunks_added: int
    entities_added: int
    relations_added: int
    took_ms: float
    def __init__(self, kind: _Optional[str] = ..., graph: _Optional[str] = ..., domain: _Optional[str] = ..., format: _Optional[str] = ..., triples_asserted: _Optional[int] = ..., triples_inferred: _Optional[int] = ..., shacl: _Optional[_Union[_rdf_pb2.ValidationReport, _Mapping]] = ..., documents_added: _Optional[int] = ..., chunks_added: _Optional[int] = ..., entities_added: _Optional[int] = ..., relations_added: _Optional[int] = ..., took_ms: _Optional[float] = ...) -> None: ...

class SparqlRequest(_message.Message):
    __slots__ = ("query", "inference", "default_graph_uri", "named_graph_uri", "encoding")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    INFERENCE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_GRAPH_URI_FIELD_NUMBER: _ClassVar[int]
    NAMED_GRAPH_URI_FIELD_NUMBER: _ClassVar[int]
    ENCODING_FIELD_NUMBER: _ClassVar[int]
    query: str
    inference: bool
    default_graph_uri: _containers.RepeatedScalarFieldContainer[str]
    named_graph_uri: _containers.RepeatedScalarFieldContainer[str]
    encoding: ResultEncoding
    def __init__(self, query: _Optional[str] = ..., inference: _Optional[bool] = ..., default_graph_uri: _Optional[_Iterable[str]] = ..., named_graph_uri: _Optional[_Iterable[str]] = ..., encoding: _Optional[_Union[ResultEncoding, str]] = ...) -> None: ...

class SparqlResponse(_message.Message):
    __slots__ = ("kind", "variables", "boolean", "rows", "text")
    KIND_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    BOOLEAN_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    kind: QueryKind
    variables: _containers.RepeatedScalarFieldContainer[str]
    boolean: bool
    rows: _containers.RepeatedCompositeFieldContainer[Row]
    text: bytes
    def __init__(self, kind: _Optional[_Union[QueryKind, str]] = ..., variables: _Optional[_Iterable[str]] = ..., boolean: _Optional[bool] = ..., rows: _Optional[_Iterable[_Union[Row, _Mapping]]] = ..., text: _Optional[bytes] = ...) -> None: ...

class Row(_message.Message):
    __slots__ = ("values", "triple")
    VALUES_FIELD_NUMBER: _ClassVar[int]
    TRIPLE_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[_rdf_pb2.Term]
    triple: _rdf_pb2.Triple
    def __init__(self, values: _Optional[_Iterable[_Union[_rdf_pb2.Term, _Mapping]]] = ..., triple: _Optional[_Union[_rdf_pb2.Triple, _Mapping]] = ...) -> None: ...

class UpdateRequest(_message.Message):
    __slots__ = ("update",)
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    update: str
    def __init__(self, update: _Optional[str] = ...) -> None: ...

class UpdateResponse(_message.Message):
    __slots__ = ("asserted_added", "asserted_removed", "inferred_added", "inferred_removed", "domain", "warnings")
    ASSERTED_ADDED_FIELD_NUMBER: _ClassVar[int]
    ASSERTED_REMOVED_FIELD_NUMBER: _ClassVar[int]
    INFERRED_ADDED_FIELD_NUMBER: _ClassVar[int]
    INFERRED_REMOVED_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    asserted_added: int
    asserted_removed: int
    inferred_added: int
    inferred_removed: int
    domain: str
    warnings: _containers.RepeatedCompositeFieldContainer[_rdf_pb2.ValidationResult]
    def __init__(self, asserted_added: _Optional[int] = ..., asserted_removed: _Optional[int] = ..., inferred_added: _Optional[int] = ..., inferred_removed: _Optional[int] = ..., domain: _Optional[str] = ..., warnings: _Optional[_Iterable[_Union[_rdf_pb2.ValidationResult, _Mapping]]] = ...) -> None: ...

class AskRequest(_message.Message):
    __slots__ = ("question", "domain", "mode", "top_k")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    question: str
    domain: str
    mode: str
    top_k: int
    def __init__(self, question: _Optional[str] = ..., domain: _Optional[str] = ..., mode: _Optional[str] = ..., top_k: _Optional[int] = ...) -> None: ...

class AskResponse(_message.Message):
    __slots__ = ("question", "route", "domain", "abstained", "reason", "answers", "sparql", "explanations", "evidence", "took_ms")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    ROUTE_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    ABSTAINED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    SPARQL_FIELD_NUMBER: _ClassVar[int]
    EXPLANATIONS_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    TOOK_MS_FIELD_NUMBER: _ClassVar[int]
    question: str
    route: str
    domain: str
    abstained: bool
    reason: str
    answers: _containers.RepeatedCompositeFieldContainer[Answer]
    sparql: str
    explanations: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    evidence: _struct_pb2.Struct
    took_ms: float
    def __init__(self, question: _Optional[str] = ..., route: _Optional[str] = ..., domain: _Optional[str] = ..., abstained: _Optional[bool] = ..., reason: _Optional[str] = ..., answers: _Optional[_Iterable[_Union[Answer, _Mapping]]] = ..., sparql: _Optional[str] = ..., explanations: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., evidence: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., took_ms: _Optional[float] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("value", "label", "score")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    value: str
    label: str
    score: float
    def __init__(self, value: _Optional[str] = ..., label: _Optional[str] = ..., score: _Optional[float] = ...) -> None: ...

class ExplainRequest(_message.Message):
    __slots__ = ("triple",)
    TRIPLE_FIELD_NUMBER: _ClassVar[int]
    triple: str
    def __init__(self, triple: _Optional[str] = ...) -> None: ...

class ExplainResponse(_message.Message):
    __slots__ = ("explanation",)
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    explanation: Explanation
    def __init__(self, explanation: _Optional[_Union[Explanation, _Mapping]] = ...) -> None: ...

class Explanation(_message.Message):
    __slots__ = ("triple", "status", "rule", "premises")
    TRIPLE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    PREMISES_FIELD_NUMBER: _ClassVar[int]
    triple: str
    status: str
    rule: str
    premises: _containers.RepeatedCompositeFieldContainer[Explanation]
    def __init__(self, triple: _Optional[str] = ..., status: _Optional[str] = ..., rule: _Optional[str] = ..., premises: _Optional[_Iterable[_Union[Explanation, _Mapping]]] = ...) -> None: ...

class ValidateRequest(_message.Message):
    __slots__ = ("data", "domain", "format", "graph")
    DATA_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    domain: str
    format: str
    graph: str
    def __init__(self, data: _Optional[bytes] = ..., domain: _Optional[str] = ..., format: _Optional[str] = ..., graph: _Optional[str] = ...) -> None: ...

class ValidateResponse(_message.Message):
    __slots__ = ("report",)
    REPORT_FIELD_NUMBER: _ClassVar[int]
    report: _rdf_pb2.ValidationReport
    def __init__(self, report: _Optional[_Union[_rdf_pb2.ValidationReport, _Mapping]] = ...) -> None: ...

class RetrieveRequest(_message.Message):
    __slots__ = ("query", "mode", "top_k", "domain")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    query: str
    mode: str
    top_k: int
    domain: str
    def __init__(self, query: _Optional[str] = ..., mode: _Optional[str] = ..., top_k: _Optional[int] = ..., domain: _Optional[str] = ...) -> None: ...

class RetrieveResponse(_message.Message):
    __slots__ = ("mode", "items", "relations", "chunks", "took_ms", "embed_ms", "iterations", "subgraph", "context", "context_tokens")
    MODE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    TOOK_MS_FIELD_NUMBER: _ClassVar[int]
    EMBED_MS_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    SUBGRAPH_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    mode: str
    items: _containers.RepeatedCompositeFieldContainer[RetrievedEntity]
    relations: _containers.RepeatedCompositeFieldContainer[RetrievedRelation]
    chunks: _containers.RepeatedCompositeFieldContainer[RetrievedChunk]
    took_ms: float
    embed_ms: float
    iterations: int
    subgraph: Subgraph
    context: str
    context_tokens: int
    def __init__(self, mode: _Optional[str] = ..., items: _Optional[_Iterable[_Union[RetrievedEntity, _Mapping]]] = ..., relations: _Optional[_Iterable[_Union[RetrievedRelation, _Mapping]]] = ..., chunks: _Optional[_Iterable[_Union[RetrievedChunk, _Mapping]]] = ..., took_ms: _Optional[float] = ..., embed_ms: _Optional[float] = ..., iterations: _Optional[int] = ..., subgraph: _Optional[_Union[Subgraph, _Mapping]] = ..., context: _Optional[str] = ..., context_tokens: _Optional[int] = ...) -> None: ...

class RetrievedEntity(_message.Message):
    __slots__ = ("id", "name", "type", "score", "alpha", "beta")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    type: str
    score: float
    alpha: float
    beta: float
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[str] = ..., score: _Optional[float] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ...) -> None: ...

class RetrievedRelation(_message.Message):
    __slots__ = ("id", "src", "dst", "src_name", "dst_name", "type", "keywords", "description", "score")
    ID_FIELD_NUMBER: _ClassVar[int]
    SRC_FIELD_NUMBER: _ClassVar[int]
    DST_FIELD_NUMBER: _ClassVar[int]
    SRC_NAME_FIELD_NUMBER: _ClassVar[int]
    DST_NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    id: str
    src: str
    dst: str
    src_name: str
    dst_name: str
    type: str
    keywords: _containers.RepeatedScalarFieldContainer[str]
    description: str
    score: float
    def __init__(self, id: _Optional[str] = ..., src: _Optional[str] = ..., dst: _Optional[str] = ..., src_name: _Optional[str] = ..., dst_name: _Optional[str] = ..., type: _Optional[str] = ..., keywords: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., score: _Optional[float] = ...) -> None: ...

class RetrievedChunk(_message.Message):
    __slots__ = ("id", "doc", "text", "score")
    ID_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    id: str
    doc: str
    text: str
    score: float
    def __init__(self, id: _Optional[str] = ..., doc: _Optional[str] = ..., text: _Optional[str] = ..., score: _Optional[float] = ...) -> None: ...

class Subgraph(_message.Message):
    __slots__ = ("nodes", "edges")
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedScalarFieldContainer[str]
    edges: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, nodes: _Optional[_Iterable[str]] = ..., edges: _Optional[_Iterable[str]] = ...) -> None: ...

class FeedbackRequest(_message.Message):
    __slots__ = ("scores",)
    class ScoresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    SCORES_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.ScalarMap[str, float]
    def __init__(self, scores: _Optional[_Mapping[str, float]] = ...) -> None: ...

class FeedbackResponse(_message.Message):
    __slots__ = ("epoch", "edges_updated", "nodes")
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    EDGES_UPDATED_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    epoch: int
    edges_updated: int
    nodes: int
    def __init__(self, epoch: _Optional[int] = ..., edges_updated: _Optional[int] = ..., nodes: _Optional[int] = ...) -> None: ...

class StatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StatsResponse(_message.Message):
    __slots__ = ("sizes", "domains", "reasoner", "validator")
    class SizesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class DomainsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SIZES_FIELD_NUMBER: _ClassVar[int]
    DOMAINS_FIELD_NUMBER: _ClassVar[int]
    REASONER_FIELD_NUMBER: _ClassVar[int]
    VALIDATOR_FIELD_NUMBER: _ClassVar[int]
    sizes: _containers.ScalarMap[str, int]
    domains: _containers.ScalarMap[str, str]
    reasoner: str
    validator: str
    def __init__(self, sizes: _Optional[_Mapping[str, int]] = ..., domains: _Optional[_Mapping[str, str]] = ..., reasoner: _Optional[str] = ..., validator: _Optional[str] = ...) -> None: ...

class CypherRequest(_message.Message):
    __slots__ = ("query", "domain", "params")
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: CypherValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[CypherValue, _Mapping]] = ...) -> None: ...
    QUERY_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    query: str
    domain: str
    params: _containers.MessageMap[str, CypherValue]
    def __init__(self, query: _Optional[str] = ..., domain: _Optional[str] = ..., params: _Optional[_Mapping[str, CypherValue]] = ...) -> None: ...

class CypherResponse(_message.Message):
    __slots__ = ("columns", "rows")
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    columns: _containers.RepeatedScalarFieldContainer[str]
    rows: _containers.RepeatedCompositeFieldContainer[CypherRow]
    def __init__(self, columns: _Optional[_Iterable[str]] = ..., rows: _Optional[_Iterable[_Union[CypherRow, _Mapping]]] = ...) -> None: ...

class CypherRow(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[CypherValue]
    def __init__(self, values: _Optional[_Iterable[_Union[CypherValue, _Mapping]]] = ...) -> None: ...

class CypherValue(_message.Message):
    __slots__ = ("boolean", "integer", "float", "string", "list", "map", "node", "relationship", "path")
    BOOLEAN_FIELD_NUMBER: _ClassVar[int]
    INTEGER_FIELD_NUMBER: _ClassVar[int]
    FLOAT_FIELD_NUMBER: _ClassVar[int]
    STRING_FIELD_NUMBER: _ClassVar[int]
    LIST_FIELD_NUMBER: _ClassVar[int]
    MAP_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    RELATIONSHIP_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    boolean: bool
    integer: int
    float: float
    string: str
    list: CypherList
    map: CypherMap
    node: CypherNode
    relationship: CypherRelationship
    path: CypherPath
    def __init__(self, boolean: _Optional[bool] = ..., integer: _Optional[int] = ..., float: _Optional[float] = ..., string: _Optional[str] = ..., list: _Optional[_Union[CypherList, _Mapping]] = ..., map: _Optional[_Union[CypherMap, _Mapping]] = ..., node: _Optional[_Union[CypherNode, _Mapping]] = ..., relationship: _Optional[_Union[CypherRelationship, _Mapping]] = ..., path: _Optional[_Union[CypherPath, _Mapping]] = ...) -> None: ...

class CypherList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[CypherValue]
    def __init__(self, values: _Optional[_Iterable[_Union[CypherValue, _Mapping]]] = ...) -> None: ...

class CypherMap(_message.Message):
    __slots__ = ("entries",)
    class EntriesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: CypherValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[CypherValue, _Mapping]] = ...) -> None: ...
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.MessageMap[str, CypherValue]
    def __init__(self, entries: _Optional[_Mapping[str, CypherValue]] = ...) -> None: ...

class CypherNode(_message.Message):
    __slots__ = ("id", "labels", "properties")
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: CypherValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[CypherValue, _Mapping]] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    id: str
    labels: _containers.RepeatedScalarFieldContainer[str]
    properties: _containers.MessageMap[str, CypherValue]
    def __init__(self, id: _Optional[str] = ..., labels: _Optional[_Iterable[str]] = ..., properties: _Optional[_Mapping[str, CypherValue]] = ...) -> None: ...

class CypherRelationship(_message.Message):
    __slots__ = ("id", "type", "start", "end", "properties")
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: CypherValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[CypherValue, _Mapping]] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    start: str
    end: str
    properties: _containers.MessageMap[str, CypherValue]
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., start: _Optional[str] = ..., end: _Optional[str] = ..., properties: _Optional[_Mapping[str, CypherValue]] = ...) -> None: ...

class CypherPath(_message.Message):
    __slots__ = ("nodes", "relationships")
    NODES_FIELD_NUMBER: _ClassVar[int]
    RELATIONSHIPS_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[CypherNode]
    relationships: _containers.RepeatedCompositeFieldContainer[CypherRelationship]
    def __init__(self, nodes: _Optional[_Iterable[_Union[CypherNode, _Mapping]]] = ..., relationships: _Optional[_Iterable[_Union[CypherRelationship, _Mapping]]] = ...) -> None: ...

class TranslateRequest(_message.Message):
    __slots__ = ("query", "to", "domain", "params")
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: CypherValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[CypherValue, _Mapping]] = ...) -> None: ...
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    query: str
    to: QueryLanguage
    domain: str
    params: _containers.MessageMap[str, CypherValue]
    def __init__(self, query: _Optional[str] = ..., to: _Optional[_Union[QueryLanguage, str]] = ..., domain: _Optional[str] = ..., params: _Optional[_Mapping[str, CypherValue]] = ...) -> None: ...

class TranslateResponse(_message.Message):
    __slots__ = ("query", "language", "params", "columns", "kind", "guards")
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: CypherValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[CypherValue, _Mapping]] = ...) -> None: ...
    QUERY_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    GUARDS_FIELD_NUMBER: _ClassVar[int]
    query: str
    language: QueryLanguage
    params: _containers.MessageMap[str, CypherValue]
    columns: _containers.RepeatedScalarFieldContainer[str]
    kind: str
    guards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, query: _Optional[str] = ..., language: _Optional[_Union[QueryLanguage, str]] = ..., params: _Optional[_Mapping[str, CypherValue]] = ..., columns: _Optional[_Iterable[str]] = ..., kind: _Optional[str] = ..., guards: _Optional[_Iterable[str]] = ...) -> None: ...
