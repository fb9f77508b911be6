"""The one place where pyoxigraph terms and rdflib terms meet (owlrl and pyshacl speak rdflib)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import rdflib
from pyoxigraph import BlankNode, Literal, NamedNode, Triple

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


_URIREF, _BNODE, _LITERAL = rdflib.URIRef, rdflib.BNode, rdflib.Literal
_SWAP_LOCK = threading.Lock()


class URIRef(str):
    """A bare IRI node for ``reasonable``'s input (the engine dispatches on the class *name*).

    rdflib's ``URIRef`` lacks the ``datatype``/``language`` attributes the engine reads for every
    term, so each read raised and caught an AttributeError; these class attributes make the read
    free, which halves the engine's input conversion on LUBM(1). Used only inside
    :class:`RdflibCodec` (``light=True``); IRIs and blank node ids never share a string (an IRI
    has a scheme colon, a blank node label cannot), and rdflib literals always carry a datatype or
    a language, so hashing them with plain ``str`` semantics cannot confuse kinds.
    """

    __slots__ = ()
    datatype = None
    language = None


class BNode(str):
    """A bare blank-node id for ``reasonable``'s input (see :class:`URIRef`)."""

    __slots__ = ()
    datatype = None
    language = None


class _TermFactory(dict[Any, Any]):
    """A memo of rdflib terms that can stand in for an rdflib term class while a native engine runs.

    Calling it with one argument is a C-level dict lookup (misses build the real term); ``isinstance``
    and attribute access are delegated to the class it stands for.
    """

    real: type

    def __init__(self, real: type, stands_for: type | None = None) -> None:
        super().__init__()
        self.real = real
        self.stands_for = stands_for or real

    __call__ = dict.__getitem__

    def __missing__(self, key: Any) -> Any:
        node = self[key] = self.real(key)
        return node

    def __instancecheck__(self, obj: object) -> bool:
        return isinstance(obj, (self.real, self.stands_for))

    def __subclasscheck__(self, cls: type) -> bool:
        return issubclass(cls, (self.real, self.stands_for))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stands_for, name)

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)


class _LiteralFactory(_TermFactory):
    """Keyed by ``(lexical form, language, datatype IRI)``, called as ``Literal(value, lang, datatype)``."""

    def __call__(  # type: ignore[override]
        self, value: Any, lang: str | None = None, datatype: Any = None, *args: Any, **kwargs: Any
    ) -> Any:
        if args or kwargs or type(value) is not str:
            return self.real(value, lang, datatype, *args, **kwargs)
        key = (value, lang, None if datatype is None else str.__str__(datatype))
        node = self.get(key)
        if node is None:
            node = self[key] = self.real(value, lang, datatype)
        return node

    def __missing__(self, key: Any) -> Any:
        raise KeyError(key)


def to_rdflib_term(term: NamedNode | BlankNode | Literal, *, normalize: bool | None = None) -> rdflib.term.Node:
    """Convert to rdflib; ``normalize=False`` keeps literal lexical forms exactly as given.

    ``None`` uses rdflib's global default (which rewrites e.g. ``"01"^^xsd:integer`` to ``"1"``).
    """
    if isinstance(term, NamedNode):
        return rdflib.URIRef(term.value)
    if isinstance(term, BlankNode):
        return rdflib.BNode(term.value)
    if isinstance(term, Literal):
        if term.language:
            return rdflib.Literal(term.value, lang=term.language, normalize=normalize)
        return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value), normalize=normalize)
    raise TypeError(f"cannot convert {type(term).__name__} to rdflib (RDF-star is not supported here)")


def from_rdflib_term(term: rdflib.term.Node) -> NamedNode | BlankNode | Literal:
    if isinstance(term, rdflib.URIRef):
        return NamedNode(str(term))
    if isinstance(term, rdflib.BNode):
        return BlankNode(str(term))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return Literal(str(term), language=term.language)
        datatype = term.datatype or rdflib.URIRef(_XSD_STRING)
        return Literal(str(term), datatype=NamedNode(str(datatype)))
    raise TypeError(f"cannot convert {type(term).__name__} from rdflib")


def to_rdflib_graph(
    triples: Iterable[Triple], graph: rdflib.Graph | None = None, *, normalize: bool | None = None
) -> rdflib.Graph:
    g = graph if graph is not None else rdflib.Graph()
    add = g.add
    for t in triples:
        add((
            to_rdflib_term(t.subject),  # type: ignore[arg-type]
            to_rdflib_term(t.predicate),
            to_rdflib_term(t.object, normalize=normalize),  # type: ignore[arg-type]
        ))
    return g


def from_rdflib_triples(
    triples: Iterable[tuple[rdflib.term.Node, rdflib.term.Node, rdflib.term.Node]],
) -> Iterable[Triple]:
    """Convert rdflib triples, skipping those that are not valid RDF (literal subject or predicate)."""
    for s, p, o in triples:
        if isinstance(s, rdflib.Literal) or not isinstance(p, rdflib.URIRef):
            continue
        yield Triple(from_rdflib_term(s), from_rdflib_term(p), from_rdflib_term(o))  # type: ignore[arg-type]


class RdflibCodec:
    """Memoised two-way conversion for engines that exchange whole graphs with rdflib repeatedly.

    IRIs become ``rdflib.URIRef``, blank nodes ``rdflib.BNode`` and literals ``rdflib.Literal`` in
    rdflib's normalised form (``"01"^^xsd:integer`` becomes ``"1"``, language tags lower-case,
    plain strings ``xsd:string``), which is what rdflib-based engines hand back. Decoding maps such a
    node back to the first pyoxigraph term that encoded to it, so an asserted literal comes back
    unchanged; nodes the engine invented are converted with :func:`from_rdflib_term`.
    RDF-star triple terms cannot be encoded and raise ``TypeError``.
    """

    def __init__(self, *, light: bool = False) -> None:
        """``light=True``: IRIs and blank nodes become the bare :class:`URIRef`/:class:`BNode` of
        this module (for ``reasonable`` only); literals stay ``rdflib.Literal``."""
        self._encoded: dict[NamedNode | BlankNode | Literal, rdflib.term.Node] = {}
        self._decoded: dict[rdflib.term.Node, NamedNode | BlankNode | Literal] = {}
        self._iri_type: type = URIRef if light else _URIREF
        self._bnode_type: type = BNode if light else _BNODE
        self._uris = _TermFactory(self._iri_type, _URIREF)
        self._bnodes = _TermFactory(self._bnode_type, _BNODE)
        self._literals = _LiteralFactory(_LITERAL)

    def encode(self, term: NamedNode | BlankNode | Literal) -> rdflib.term.Node:
        try:
            return self._encoded[term]
        except KeyError:
            pass
        node: rdflib.term.Node
        kind = type(term)
        if kind is NamedNode:
            node = self._uris(term.value)
        elif kind is BlankNode:
            node = self._bnodes(term.value)
        elif kind is Literal:
            lit: Literal = term  # type: ignore[assignment]
            if lit.language:
                node = _LITERAL(lit.value, lang=lit.language)
            else:
                node = _LITERAL(lit.value, datatype=_URIREF(lit.datatype.value))
            dt = node.datatype  # type: ignore[attr-defined]
            key = (str.__str__(node), node.language, None if dt is None else str.__str__(dt))  # type: ignore[attr-defined]
            node = self._literals.setdefault(key, node)
        else:
            raise TypeError(f"cannot convert {kind.__name__} to rdflib (RDF-star is not supported here)")
        self._encoded[term] = node
        self._decoded.setdefault(node, term)
        return node

    def encode_triple(self, triple: Triple) -> tuple[rdflib.term.Node, rdflib.term.Node, rdflib.term.Node]:
        return self.encode(triple.subject), self.encode(triple.predicate), self.encode(triple.object)  # type: ignore[arg-type]

    def encode_triples(
        self, triples: Iterable[Triple]
    ) -> list[tuple[rdflib.term.Node, rdflib.term.Node, rdflib.term.Node]]:
        """Encode many triples; raises ``TypeError`` on an RDF-star triple."""
        get, encode = self._encoded.get, self.encode
        return [(get(s) or encode(s), get(p) or encode(p), get(o) or encode(o)) for s, p, o in triples]  # type: ignore[misc]

    @contextmanager
    def engine_constructors(self) -> Iterator[None]:
        """Let a native engine build its rdflib output from this codec's terms.

        Engines written against rdflib (``reasonable``) call ``rdflib.URIRef``, ``rdflib.BNode`` and
        ``rdflib.Literal`` for every output term; URIRef validation alone costs more than the
        reasoning. Inside this context those three module attributes are memoising factories that
        return the very objects :meth:`encode` produced (so decoding and set membership hit the
        identity fast path) and fall back to the real constructors for anything else; they pass
        ``isinstance`` checks like the real classes. The swap is global, hence the lock; code that
        imported the classes directly (``from rdflib import URIRef``) is unaffected.
        """
        with _SWAP_LOCK:
            rdflib.URIRef, rdflib.BNode, rdflib.Literal = self._uris, self._bnodes, self._literals  # type: ignore[misc,assignment]
            try:
                yield
            finally:
                rdflib.URIRef, rdflib.BNode, rdflib.Literal = _URIREF, _BNODE, _LITERAL  # type: ignore[misc]

    def decode(self, node: rdflib.term.Node) -> NamedNode | BlankNode | Literal:
        try:
            return self._decoded[node]
        except KeyError:
            pass
        kind = type(node)
        term: NamedNode | BlankNode | Literal
        if kind is self._iri_type:
            term = NamedNode(str.__str__(node))
        elif kind is self._bnode_type:
            term = BlankNode(str.__str__(node))
        else:
            term = from_rdflib_term(node)
        self._decoded[node] = term
        return term

    def decode_triples(
        self, triples: Iterable[tuple[rdflib.term.Node, rdflib.term.Node, rdflib.term.Node]]
    ) -> list[Triple]:
        """Convert rdflib triples, skipping generalised ones (literal subject, non-IRI predicate)."""
        cache = self._decoded
        decode = self.decode
        literal, uriref = _LITERAL, self._iri_type  # not rdflib.*: another thread may have swapped them
        out: list[Triple] = []
        append = out.append
        for s, p, o in triples:
            if type(s) is literal or type(p) is not uriref:
                continue
            append(
                Triple(
                    cache.get(s) or decode(s),  # type: ignore[arg-type]
                    cache.get(p) or decode(p),  # type: ignore[arg-type]
                    cache.get(o) or decode(o),
                )
            )
        return out
