"""An independent checker for explanation trees.

Transcribed separately from ``hybridkg.semantic.reasoning.rules`` (which it must not import), straight
from OWL 2 Profiles section 4.3 tables 4-9, so that a bug in the explainer's rule engine cannot hide:
every inferred node must be an instance of the rule it names, every leaf must be asserted, and no
triple may repeat along a root-to-leaf path.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pyoxigraph import Literal, NamedNode, Triple

from hybridkg.semantic.base import Explanation

_PREFIXES = {
    "rdf:": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs:": "http://www.w3.org/2000/01/rdf-schema#",
    "owl:": "http://www.w3.org/2002/07/owl#",
    "xsd:": "http://www.w3.org/2001/XMLSchema#",
}


def _iri(curie: str) -> NamedNode:
    for prefix, ns in _PREFIXES.items():
        if curie.startswith(prefix):
            return NamedNode(ns + curie[len(prefix) :])
    raise ValueError(curie)


TYPE, FIRST, REST, NIL = _iri("rdf:type"), _iri("rdf:first"), _iri("rdf:rest"), _iri("rdf:nil")
SAME = _iri("owl:sameAs")

# Premises ". "-separated, then "=>", then the conclusion; "?x" are variables. "#1" is the literal 1.
_SPEC: dict[str, list[str]] = {
    "eq-sym": ["?x owl:sameAs ?y => ?y owl:sameAs ?x"],
    "eq-trans": ["?x owl:sameAs ?y . ?y owl:sameAs ?z => ?x owl:sameAs ?z"],
    "eq-rep-s": ["?s owl:sameAs ?s2 . ?s ?p ?o => ?s2 ?p ?o"],
    "eq-rep-p": ["?p owl:sameAs ?p2 . ?s ?p ?o => ?s ?p2 ?o"],
    "eq-rep-o": ["?o owl:sameAs ?o2 . ?s ?p ?o => ?s ?p ?o2"],
    "prp-dom": ["?p rdfs:domain ?c . ?x ?p ?y => ?x rdf:type ?c"],
    "prp-rng": ["?p rdfs:range ?c . ?x ?p ?y => ?y rdf:type ?c"],
    "prp-fp": ["?p rdf:type owl:FunctionalProperty . ?x ?p ?y1 . ?x ?p ?y2 => ?y1 owl:sameAs ?y2"],
    "prp-ifp": ["?p rdf:type owl:InverseFunctionalProperty . ?x1 ?p ?y . ?x2 ?p ?y => ?x1 owl:sameAs ?x2"],
    "prp-symp": ["?p rdf:type owl:SymmetricProperty . ?x ?p ?y => ?y ?p ?x"],
    "prp-trp": ["?p rdf:type owl:TransitiveProperty . ?x ?p ?y . ?y ?p ?z => ?x ?p ?z"],
    "prp-spo1": ["?p1 rdfs:subPropertyOf ?p2 . ?x ?p1 ?y => ?x ?p2 ?y"],
    "prp-eqp1": ["?p1 owl:equivalentProperty ?p2 . ?x ?p1 ?y => ?x ?p2 ?y"],
    "prp-eqp2": ["?p1 owl:equivalentProperty ?p2 . ?x ?p2 ?y => ?x ?p1 ?y"],
    "prp-inv1": ["?p1 owl:inverseOf ?p2 . ?x ?p1 ?y => ?y ?p2 ?x"],
    "prp-inv2": ["?p1 owl:inverseOf ?p2 . ?x ?p2 ?y => ?y ?p1 ?x"],
    "cls-thing": ["=> owl:Thing rdf:type owl:Class"],
    "cls-nothing1": ["=> owl:Nothing rdf:type owl:Class"],
    "prp-ap": [
        f"=> {p} rdf:type owl:AnnotationProperty"
        for p in [
            "rdfs:label",
            "rdfs:comment",
            "rdfs:seeAlso",
            "rdfs:isDefinedBy",
            "owl:deprecated",
            "owl:versionInfo",
            "owl:priorVersion",
            "owl:backwardCompatibleWith",
            "owl:incompatibleWith",
        ]
    ],
    "dt-type1": [
        f"=> {dt} rdf:type rdfs:Datatype"
        for dt in [
            "rdf:PlainLiteral",
            "rdf:XMLLiteral",
            "rdf:langString",
            "rdf:HTML",
            "rdfs:Literal",
            "xsd:decimal",
            "xsd:integer",
            "xsd:nonNegativeInteger",
            "xsd:nonPositiveInteger",
            "xsd:positiveInteger",
            "xsd:negativeInteger",
            "xsd:long",
            "xsd:int",
            "xsd:short",
            "xsd:byte",
            "xsd:unsignedLong",
            "xsd:unsignedInt",
            "xsd:unsignedShort",
            "xsd:unsignedByte",
            "xsd:float",
            "xsd:double",
            "xsd:string",
            "xsd:normalizedString",
            "xsd:token",
            "xsd:language",
            "xsd:Name",
            "xsd:NCName",
            "xsd:NMTOKEN",
            "xsd:boolean",
            "xsd:hexBinary",
            "xsd:base64Binary",
            "xsd:anyURI",
            "xsd:dateTime",
            "xsd:dateTimeStamp",
            "xsd:date",
            "xsd:time",
        ]
    ],
    "cls-svf1": ["?x owl:someValuesFrom ?y . ?x owl:onProperty ?p . ?u ?p ?v . ?v rdf:type ?y => ?u rdf:type ?x"],
    "cls-svf2": ["?x owl:someValuesFrom owl:Thing . ?x owl:onProperty ?p . ?u ?p ?v => ?u rdf:type ?x"],
    "cls-avf": ["?x owl:allValuesFrom ?y . ?x owl:onProperty ?p . ?u rdf:type ?x . ?u ?p ?v => ?v rdf:type ?y"],
    "cls-hv1": ["?x owl:hasValue ?y . ?x owl:onProperty ?p . ?u rdf:type ?x => ?u ?p ?y"],
    "cls-hv2": ["?x owl:hasValue ?y . ?x owl:onProperty ?p . ?u ?p ?y => ?u rdf:type ?x"],
    "cls-maxc2": [
        "?x owl:maxCardinality #1 . ?x owl:onProperty ?p . ?u rdf:type ?x . ?u ?p ?y1 . ?u ?p ?y2 => ?y1 owl:sameAs ?y2"
    ],
    "cls-maxqc3": [
        "?x owl:maxQualifiedCardinality #1 . ?x owl:onProperty ?p . ?x owl:onClass ?c . ?u rdf:type ?x"
        " . ?u ?p ?y1 . ?y1 rdf:type ?c . ?u ?p ?y2 . ?y2 rdf:type ?c => ?y1 owl:sameAs ?y2"
    ],
    "cls-maxqc4": [
        "?x owl:maxQualifiedCardinality #1 . ?x owl:onProperty ?p . ?x owl:onClass owl:Thing"
        " . ?u rdf:type ?x . ?u ?p ?y1 . ?u ?p ?y2 => ?y1 owl:sameAs ?y2"
    ],
    "cax-sco": ["?c1 rdfs:subClassOf ?c2 . ?x rdf:type ?c1 => ?x rdf:type ?c2"],
    "cax-eqc1": ["?c1 owl:equivalentClass ?c2 . ?x rdf:type ?c1 => ?x rdf:type ?c2"],
    "cax-eqc2": ["?c1 owl:equivalentClass ?c2 . ?x rdf:type ?c2 => ?x rdf:type ?c1"],
    "scm-cls": [
        "?c rdf:type owl:Class => ?c rdfs:subClassOf ?c",
        "?c rdf:type owl:Class => ?c owl:equivalentClass ?c",
        "?c rdf:type owl:Class => ?c rdfs:subClassOf owl:Thing",
        "?c rdf:type owl:Class => owl:Nothing rdfs:subClassOf ?c",
    ],
    "scm-sco": ["?c1 rdfs:subClassOf ?c2 . ?c2 rdfs:subClassOf ?c3 => ?c1 rdfs:subClassOf ?c3"],
    "scm-eqc1": [
        "?c1 owl:equivalentClass ?c2 => ?c1 rdfs:subClassOf ?c2",
        "?c1 owl:equivalentClass ?c2 => ?c2 rdfs:subClassOf ?c1",
    ],
    "scm-eqc2": ["?c1 rdfs:subClassOf ?c2 . ?c2 rdfs:subClassOf ?c1 => ?c1 owl:equivalentClass ?c2"],
    "scm-op": [
        "?p rdf:type owl:ObjectProperty => ?p rdfs:subPropertyOf ?p",
        "?p rdf:type owl:ObjectProperty => ?p owl:equivalentProperty ?p",
    ],
    "scm-dp": [
        "?p rdf:type owl:DatatypeProperty => ?p rdfs:subPropertyOf ?p",
        "?p rdf:type owl:DatatypeProperty => ?p owl:equivalentProperty ?p",
    ],
    "scm-spo": ["?p1 rdfs:subPropertyOf ?p2 . ?p2 rdfs:subPropertyOf ?p3 => ?p1 rdfs:subPropertyOf ?p3"],
    "scm-eqp1": [
        "?p1 owl:equivalentProperty ?p2 => ?p1 rdfs:subPropertyOf ?p2",
        "?p1 owl:equivalentProperty ?p2 => ?p2 rdfs:subPropertyOf ?p1",
    ],
    "scm-eqp2": ["?p1 rdfs:subPropertyOf ?p2 . ?p2 rdfs:subPropertyOf ?p1 => ?p1 owl:equivalentProperty ?p2"],
    "scm-dom1": ["?p rdfs:domain ?c1 . ?c1 rdfs:subClassOf ?c2 => ?p rdfs:domain ?c2"],
    "scm-dom2": ["?p2 rdfs:domain ?c . ?p1 rdfs:subPropertyOf ?p2 => ?p1 rdfs:domain ?c"],
    "scm-rng1": ["?p rdfs:range ?c1 . ?c1 rdfs:subClassOf ?c2 => ?p rdfs:range ?c2"],
    "scm-rng2": ["?p2 rdfs:range ?c . ?p1 rdfs:subPropertyOf ?p2 => ?p1 rdfs:range ?c"],
    "scm-hv": [
        "?c1 owl:hasValue ?i . ?c1 owl:onProperty ?p1 . ?c2 owl:hasValue ?i . ?c2 owl:onProperty ?p2"
        " . ?p1 rdfs:subPropertyOf ?p2 => ?c1 rdfs:subClassOf ?c2"
    ],
    "scm-svf1": [
        "?c1 owl:someValuesFrom ?y1 . ?c1 owl:onProperty ?p . ?c2 owl:someValuesFrom ?y2"
        " . ?c2 owl:onProperty ?p . ?y1 rdfs:subClassOf ?y2 => ?c1 rdfs:subClassOf ?c2"
    ],
    "scm-svf2": [
        "?c1 owl:someValuesFrom ?y . ?c1 owl:onProperty ?p1 . ?c2 owl:someValuesFrom ?y"
        " . ?c2 owl:onProperty ?p2 . ?p1 rdfs:subPropertyOf ?p2 => ?c1 rdfs:subClassOf ?c2"
    ],
    "scm-avf1": [
        "?c1 owl:allValuesFrom ?y1 . ?c1 owl:onProperty ?p . ?c2 owl:allValuesFrom ?y2"
        " . ?c2 owl:onProperty ?p . ?y1 rdfs:subClassOf ?y2 => ?c1 rdfs:subClassOf ?c2"
    ],
    "scm-avf2": [
        "?c1 owl:allValuesFrom ?y . ?c1 owl:onProperty ?p1 . ?c2 owl:allValuesFrom ?y"
        " . ?c2 owl:onProperty ?p2 . ?p1 rdfs:subPropertyOf ?p2 => ?c2 rdfs:subClassOf ?c1"
    ],
}

_LIST_RULES = {"cls-int1", "cls-int2", "cls-uni", "cls-oo", "scm-int", "scm-uni", "prp-spo2", "prp-key"}
KNOWN_RULES = frozenset(_SPEC) | _LIST_RULES | {"eq-ref"}

_Pat = tuple[object, object, object]


def _parse_node(token: str) -> object:
    if token.startswith("?"):
        return token
    if token == "#1":
        return _ONE
    return _iri(token)


class _One:
    """Matches any literal whose value is the integer 1 (cardinality restrictions)."""


_ONE = _One()


def _parse(text: str) -> tuple[list[_Pat], _Pat]:
    body, head = (part.strip() for part in text.split("=>"))
    premises = [tuple(_parse_node(tok) for tok in p.split()) for p in body.split(" . ") if p.strip()]
    return premises, tuple(_parse_node(tok) for tok in head.split())  # type: ignore[return-value]


_PARSED = {name: [_parse(v) for v in variants] for name, variants in _SPEC.items()}


def _bind(pattern: _Pat, triple: Triple, env: dict[str, object]) -> dict[str, object] | None:
    env = dict(env)
    for node, term in zip(pattern, (triple.subject, triple.predicate, triple.object), strict=True):
        if isinstance(node, str):
            if node in env and env[node] != term:
                return None
            env[node] = term
        elif isinstance(node, _One):
            if not isinstance(term, Literal):
                return None
            try:
                if int(term.value.strip()) != 1:
                    return None
            except ValueError:
                return None
        elif node != term:
            return None
    return env


def _assign(patterns: list[_Pat], premises: list[Triple], env: dict[str, object], head: _Pat, goal: Triple) -> bool:
    if not patterns:
        return not premises and _bind(head, goal, env) is not None
    first, rest = patterns[0], patterns[1:]
    for i, premise in enumerate(premises):
        env2 = _bind(first, premise, env)
        if env2 is not None and _assign(rest, premises[:i] + premises[i + 1 :], env2, head, goal):
            return True
    return False


def _read_list(head: object, cells: list[Triple]) -> list[object] | None:
    """Consume the list at ``head`` from ``cells``; None unless it is well formed and uses every cell."""
    firsts = {t.subject: t.object for t in cells if t.predicate == FIRST}
    rests = {t.subject: t.object for t in cells if t.predicate == REST}
    items: list[object] = []
    node, seen = head, set()
    while node != NIL:
        if node in seen or node not in firsts or node not in rests:
            return None
        seen.add(node)
        items.append(firsts[node])
        node = rests[node]
    if len(cells) != 2 * len(items) or len(firsts) != len(items) or seen != set(firsts):
        return None
    return items


def _owl(name: str) -> NamedNode:
    return _iri("owl:" + name)


def _check_list_rule(rule: str, goal: Triple, premises: Sequence[Triple]) -> bool:
    cells = [t for t in premises if t.predicate in (FIRST, REST)]
    others = [t for t in premises if t.predicate not in (FIRST, REST)]
    link_predicate = {
        "cls-int1": "intersectionOf",
        "cls-int2": "intersectionOf",
        "scm-int": "intersectionOf",
        "cls-uni": "unionOf",
        "scm-uni": "unionOf",
        "cls-oo": "oneOf",
        "prp-spo2": "propertyChainAxiom",
        "prp-key": "hasKey",
    }[rule]
    links = [t for t in others if t.predicate == _owl(link_predicate)]
    if len(links) != 1:
        return False
    link = links[0]
    items = _read_list(link.object, cells)
    if items is None or not items:
        return False
    rest = [t for t in others if t is not link and t != link]
    s, p, o = goal.subject, goal.predicate, goal.object
    sco = _iri("rdfs:subClassOf")
    if rule == "cls-int1":
        return (
            p == TYPE
            and link.subject == o
            and sorted(map(str, rest))
            == sorted(
                str(Triple(s, TYPE, c))
                for c in items  # type: ignore[arg-type]
            )
        )
    if rule == "cls-int2":
        return p == TYPE and o in items and rest == [Triple(s, TYPE, link.subject)]
    if rule == "cls-uni":
        return (
            p == TYPE
            and link.subject == o
            and len(rest) == 1
            and rest[0].subject == s
            and rest[0].predicate == TYPE
            and rest[0].object in items
        )
    if rule == "cls-oo":
        return p == TYPE and link.subject == o and s in items and not rest
    if rule == "scm-int":
        return p == sco and link.subject == s and o in items and not rest
    if rule == "scm-uni":
        return p == sco and link.subject == o and s in items and not rest
    if rule == "prp-spo2":
        if link.subject != p or len(rest) != len(items):
            return False
        node: object = s
        pool = list(rest)
        for prop in items:
            step = next((t for t in pool if t.subject == node and t.predicate == prop), None)
            if step is None:
                return False
            pool.remove(step)
            node = step.object
        return node == o and not pool
    # prp-key
    c = link.subject
    if p != SAME or s == o:
        return False
    pool = list(rest)
    for needed in (Triple(s, TYPE, c), Triple(o, TYPE, c)):  # type: ignore[arg-type]
        if needed not in pool:
            return False
        pool.remove(needed)
    for prop in items:
        xs = [t for t in pool if t.subject == s and t.predicate == prop]
        pair = next(((a, b) for a in xs for b in pool if b == Triple(o, prop, a.object)), None)  # type: ignore[arg-type]
        if pair is None:
            return False
        pool.remove(pair[0])
        pool.remove(pair[1])
    return not pool


def check_step(rule: str, goal: Triple, premises: Sequence[Triple]) -> bool:
    """True if ``premises`` entail ``goal`` by one application of ``rule``."""
    if rule == "eq-ref":
        x = goal.subject
        return (
            goal.predicate == SAME
            and goal.object == x
            and len(premises) == 1
            and x in (premises[0].subject, premises[0].predicate, premises[0].object)
        )
    if rule in _LIST_RULES:
        return _check_list_rule(rule, goal, premises)
    return any(_assign(body, list(premises), {}, head, goal) for body, head in _PARSED.get(rule, []))


def check_explanation(explanation: Explanation, asserted: Collection[Triple]) -> list[str]:
    """Every problem with a derivation tree; an empty list means the tree is a valid proof."""
    problems: list[str] = []

    def visit(node: Explanation, ancestors: frozenset[Triple], where: str) -> None:
        triple = node.triple
        if triple in ancestors:
            problems.append(f"{where}: {triple} repeats one of its ancestors (cycle)")
            return
        if node.status == "asserted":
            if triple not in asserted:
                problems.append(f"{where}: {triple} is marked asserted but is not")
            if node.premises:
                problems.append(f"{where}: asserted node has premises")
            return
        if node.status != "inferred":
            problems.append(f"{where}: {triple} has status {node.status} inside a proof")
            return
        if node.rule is None:
            problems.append(f"{where}: {triple} has no derivation (rule None)")
            return
        if node.rule not in KNOWN_RULES:
            problems.append(f"{where}: unknown rule {node.rule}")
            return
        premise_triples = [p.triple for p in node.premises]
        if not check_step(node.rule, triple, premise_triples):
            problems.append(f"{where}: {node.rule} does not derive {triple} from {premise_triples}")
        below = ancestors | {triple}
        for i, premise in enumerate(node.premises):
            visit(premise, below, f"{where}/{i}")

    visit(explanation, frozenset(), "root")
    return problems
