from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Term(_message.Message):
    __slots__ = ("iri", "blank_node", "literal", "triple")
    IRI_FIELD_NUMBER: _ClassVar[int]
    BLANK_NODE_FIELD_NUMBER: _ClassVar[int]
    LITERAL_FIELD_NUMBER: _ClassVar[int]
    TRIPLE_FIELD_NUMBER: _ClassVar[int]
    iri: str
    blank_node: str
    literal: Literal
    triple: Triple
    def __init__(self, iri: _Optional[str] = ..., blank_node: _Optional[str] = ..., literal: _Optional[_Union[Literal, _Mapping]] = ..., triple: _Optional[_Union[Triple, _Mapping]] = ...) -> None: ...

class Literal(_message.Message):
    __slots__ = ("value", "datatype", "language")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    DATATYPE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    value: str
    datatype: str
    language: str
    def __init__(self, value: _Optional[str] = ..., datatype: _Optional[str] = ..., language: _Optional[str] = ...) -> None: ...

class Triple(_message.Message):
    __slots__ = ("subject", "predicate", "object")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    subject: Term
    predicate: Term
    object: Term
    def __init__(self, subject: _Optional[_Union[Term, _Mapping]] = ..., predicate: _Optional[_Union[Term, _Mapping]] = ..., object: _Optional[_Union[Term, _Mapping]] = ...) -> None: ...

class ValidationReport(_message.Message):
    __slots__ = ("conforms", "results", "engine", "results_omitted")
    CONFORMS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    RESULTS_OMITTED_FIELD_NUMBER: _ClassVar[int]
    conforms: bool
    results: _containers.RepeatedCompositeFieldContainer[ValidationResult]
    engine: str
    results_omitted: int
    def __init__(self, conforms: _Optional[bool] = ..., results: _Optional[_Iterable[_Union[ValidationResult, _Mapping]]] = ..., engine: _Optional[str] = ..., results_omitted: _Optional[int] = ...) -> None: ...

class ValidationResult(_message.Message):
    __slots__ = ("focus", "path", "constraint", "value", "severity", "message", "source_shape")
    FOCUS_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_SHAPE_FIELD_NUMBER: _ClassVar[int]
    focus: str
    path: str
    constraint: str
    value: str
    severity: str
    message: str
    source_shape: str
    def __init__(self, focus: _Optional[str] = ..., path: _Optional[str] = ..., constraint: _Optional[str] = ..., value: _Optional[str] = ..., severity: _Optional[str] = ..., message: _Optional[str] = ..., source_shape: _Optional[str] = ...) -> None: ...

class ParseErrorDetail(_message.Message):
    __slots__ = ("format", "line", "column", "detail")
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    format: str
    line: int
    column: int
    detail: str
    def __init__(self, format: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., detail: _Optional[str] = ...) -> None: ...
