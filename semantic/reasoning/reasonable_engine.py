"""The default OWL 2 RL engine: ``reasonable`` (Rust, datalog) plus the rules it lacks.

``reasonable`` (https://github.com/gtfierro/reasonable) implements most of the OWL 2 RL rule set;
:mod:`hybridkg.semantic.reasoning.complete` supplies the rest and both run to a joint fixpoint:
reason, apply the completion rules to the schema triples and the few data triples they need, feed
what they derive back, re-reason, until nothing is new. Conversion to and from rdflib terms
dominates the cost on large inputs, so one :class:`~hybridkg.semantic.convert.RdflibCodec`
memoises it for the life of a :class:`ReasonableClosure`.
"""

from __future__ import annotations

from collections.abc import Iterable

import rdflib
from pyoxigraph import BlankNode, NamedNode, Triple

from hybridkg.semantic.base import ReasoningSession
from hybridkg.semantic.convert import RdflibCodec
from hybridkg.semantic.perf import gc_paused
from hybridkg.semantic.reasoning.complete import (
    DECLARATIONS,
    OWL_SAME_AS,
    RDF_FIRST,
    RDF_REST,
    instance_rules,
    requirements,
    schema_rules,
)
from hybridkg.semantic.reasoning.normalize import (
    META_CLASSES,
    OWL,
    RDF_TYPE,
    RDFS,
    normalize_inferred,
    schema_terms,
)

_RdflibTriple = tuple[rdflib.term.Node, rdflib.term.Node, rdflib.term.Node]

#: Safety net against a completion loop that never stops (it cannot: the rules create no terms).
_MAX_ROUNDS = 1000


def _reasonable_module():  # type: ignore[no-untyped-def]
    import reasonable

    return reasonable


def _reasonable_triples(triples: Iterable[Triple]) -> list[Triple]:
    """The triples the engine can see: RDF-star triples (quoted-triple terms) are kept out."""
    return [t for t in triples if type(t.subject) is not Triple and type(t.object) is not Triple]


class ReasonableClosure:
    """A live ``reasonable.PyReasoner`` over an asserted set, kept closed under the completion rules.

    ``add`` reasons incrementally; ``rebuild`` re-materialises from the asserted set (the only
    sound way to retract with a forward-chaining engine that does not record derivations).
    """

    def __init__(self, asserted: Iterable[Triple]) -> None:
        self.codec = RdflibCodec(light=True)
        self.asserted: set[Triple] = set(asserted)
        self._keys: set[_RdflibTriple] = set()
        self._output: list[_RdflibTriple] = []
        self._schema: list[Triple] = []
        self._schema_extra: set[Triple] = set()
        encode = self.codec.encode
        self._rdf_type = encode(RDF_TYPE)
        self._declarations = {encode(c) for c in DECLARATIONS}
        self._schema_exact = {encode(p) for p in (RDF_FIRST, RDF_REST, OWL_SAME_AS)}
        self._meta_classes = {encode(c) for c in META_CLASSES}
        self._reasoner = _reasonable_module().PyReasoner()
        self.rebuild()

    def _encode(self, triples: Iterable[Triple]) -> list[_RdflibTriple]:
        visible = triples if isinstance(triples, list) else list(triples)
        try:
            return self.codec.encode_triples(visible)
        except TypeError:
            return self.codec.encode_triples(_reasonable_triples(visible))

    def _load(self, triples: Iterable[Triple]) -> list[_RdflibTriple]:
        encoded = self._encode(triples)
        if encoded:
            self._reasoner.from_graph(encoded)
        return encoded

    def _run_engine(self) -> None:
        with self.codec.engine_constructors():
            self._output = self._reasoner.reason()

    def _schema_part(self, triples: list[_RdflibTriple]) -> list[Triple]:
        """The triples :func:`~hybridkg.semantic.reasoning.complete.schema_rules` reads."""
        rdf_type, declarations, exact = self._rdf_type, self._declarations, self._schema_exact
        vocabulary = (OWL, RDFS)
        startswith = str.startswith  # rdflib's Identifier.startswith does not take a tuple
        return self.codec.decode_triples(
            [
                t
                for t in triples
                if t[1] in exact
                or startswith(t[1], vocabulary)  # type: ignore[arg-type]
                or (t[1] is rdf_type and t[2] in declarations)
            ]
        )

    def _completion_round(self) -> set[Triple]:
        """Apply the completion rules to the current output; returns what must be fed back."""
        output = self._output
        schema = self._schema_part(output)
        derived, feedback = schema_rules(schema)
        self._schema, self._schema_extra = schema, derived
        needs = requirements(schema)
        if not needs.active and not feedback:
            return set()
        encode, rdf_type = self.codec.encode, self._rdf_type
        predicates = {encode(p) for p in needs.predicates}  # type: ignore[arg-type]
        classes = {encode(c) for c in needs.classes}  # type: ignore[arg-type]
        data = self.codec.decode_triples(
            [t for t in output if t[1] in predicates or (t[1] is rdf_type and t[2] in classes)]
        )
        fresh = instance_rules({*schema, *data}) | feedback
        if not fresh:
            return set()
        present = set(output)
        return {t for t, key in zip(fresh, self._encode(fresh), strict=True) if key not in present}

    def _reason(self, loaded: list[_RdflibTriple] | None = None) -> None:
        if loaded:
            # Schema completion of the new triples alone usually finds all the feedback up front,
            # saving a second pass of the engine.
            _, feedback = schema_rules(self._schema_part(loaded))
            if feedback:
                self._load(feedback)
        self._run_engine()
        for _ in range(_MAX_ROUNDS):
            fresh = self._completion_round()
            if not fresh:
                return
            self._load(fresh)
            self._run_engine()
        raise RuntimeError("OWL 2 RL completion did not reach a fixpoint")  # pragma: no cover

    def rebuild(self) -> None:
        """Forget every inference and re-materialise from the asserted set."""
        self._reasoner = _reasonable_module().PyReasoner()
        loaded = self._load(self.asserted)
        self._keys = set(loaded)
        self._reason(loaded)

    def add(self, triples: Iterable[Triple]) -> None:
        """Assert more triples and reason incrementally."""
        new = [t for t in triples if t not in self.asserted]
        if not new:
            return
        self.asserted.update(new)
        loaded = self._load(new)
        self._keys.update(loaded)
        self._reason(loaded)

    def close(self) -> None:
        """Free the engine now, on this thread: ``reasonable``'s reasoner is thread-bound, and left to the
        cyclic garbage collector it could be dropped on whichever thread collects, which is an error."""
        self._reasoner = None

    def remove(self, triples: Iterable[Triple]) -> None:
        """Retract asserted triples; everything they alone supported goes with them."""
        gone = [t for t in triples if t in self.asserted]
        if not gone:
            return
        self.asserted.difference_update(gone)
        self.rebuild()

    def _schema_terms(self) -> set[NamedNode | BlankNode]:
        """:func:`~hybridkg.semantic.reasoning.normalize.schema_terms` of the closure, computed on
        the engine's output (memoised terms compare by identity, far faster than pyoxigraph terms)."""
        output, rdf_type, meta = self._output, self._rdf_type, self._meta_classes
        nodes = {t[1] for t in output}
        typed = [t for t in output if t[1] is rdf_type]
        nodes.update(t[2] for t in typed)
        nodes.update(t[0] for t in typed if t[2] in meta)
        decode = self.codec.decode
        terms: set[NamedNode | BlankNode] = {decode(n) for n in nodes}  # type: ignore[misc]
        return terms | schema_terms(self._schema) | schema_terms(self._schema_extra)

    def inferred(self) -> set[Triple]:
        """The normalised inferred set: closure minus asserted."""
        keys = self._keys
        fresh = self.codec.decode_triples([t for t in self._output if t not in keys])
        fresh.extend(self._schema_extra)
        return normalize_inferred(fresh, self.asserted, self._schema_terms())


class ReasonableReasoner:
    """OWL 2 RL with ``reasonable`` plus the rules it lacks (the default engine)."""

    name = "reasonable"

    def materialize(self, triples: Iterable[Triple]) -> set[Triple]:
        with gc_paused():
            closure = ReasonableClosure(triples)
            try:
                return closure.inferred()
            finally:
                closure.close()  # free the engine here, on the thread that made it

    def session(self, triples: Iterable[Triple]) -> ReasoningSession:
        from hybridkg.semantic.reasoning.session import ReasonableSession

        return ReasonableSession(triples)
