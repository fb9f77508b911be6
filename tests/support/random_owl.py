"""Random small OWL 2 RL graphs (seeded): every axiom kind the duckdb engine compiles, and data (types, edges,
literal values, owl:sameAs). Shared by the engine's comparison with the reference engines and its random changes."""

from __future__ import annotations

import random

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.semantic.vocab import (
    ALL,
    CHAIN,
    DOMAIN,
    EQ_CLASS,
    EQ_PROPERTY,
    FIRST,
    HAS_KEY,
    HAS_VALUE,
    INTERSECTION,
    INVERSE,
    MAX_CARD,
    NIL,
    ON_PROPERTY,
    RANGE,
    REST,
    SAME_AS,
    SOME,
    SUBCLASS,
    SUBPROPERTY,
    THING,
    TYPE,
    UNION,
    XSD,
)

OWLNS = "http://www.w3.org/2002/07/owl#"
E = "http://e/"


def n(x: str) -> NamedNode:
    return NamedNode(E + x)


def owl(x: str) -> NamedNode:
    return NamedNode(OWLNS + x)


def rdf_list(items: list[NamedNode], out: list[Triple]) -> BlankNode:
    head = BlankNode()
    cur = head
    for i, item in enumerate(items):
        out.append(Triple(cur, FIRST, item))
        nxt: NamedNode | BlankNode = NIL if i == len(items) - 1 else BlankNode()
        out.append(Triple(cur, REST, nxt))
        cur = nxt  # type: ignore[assignment]
    return head


CHARACTERISTICS = ["SymmetricProperty", "TransitiveProperty", "FunctionalProperty", "InverseFunctionalProperty"]
ONE = Literal("1", datatype=NamedNode(XSD + "nonNegativeInteger"))


def restriction(p: NamedNode, out: list[Triple]) -> BlankNode:
    r = BlankNode()
    out += [Triple(r, TYPE, owl("Restriction")), Triple(r, ON_PROPERTY, p)]
    return r


#: Axiom kinds that equate individuals (functional, inverse functional, max-cardinality 1, keys), for the
#: equality-heavy graphs.
EQUATING = [5, 15, 12]


def axiom(rng: random.Random, classes: list[NamedNode], props: list[NamedNode], people: list[NamedNode],
          out: list[Triple], *, equality: bool = False) -> None:
    a, b = rng.choice(classes), rng.choice(classes)
    p, q = rng.choice(props), rng.choice(props)
    k = rng.choice(EQUATING) if equality and rng.random() < 0.5 else rng.randrange(16)
    simple = {0: (a, SUBCLASS, b), 1: (p, SUBPROPERTY, q), 2: (p, DOMAIN, a), 3: (p, RANGE, a), 4: (p, INVERSE, q),
              13: (a, EQ_CLASS, b), 14: (p, EQ_PROPERTY, q)}
    if k in simple:
        out.append(Triple(*simple[k]))  # type: ignore[arg-type]
    elif k == 5:
        kinds = CHARACTERISTICS[2:] if equality else CHARACTERISTICS
        out.append(Triple(p, TYPE, owl(rng.choice(kinds))))
    elif k in (6, 7, 8, 15):
        r = restriction(p, out)
        if k == 6:
            out.append(Triple(r, SOME, rng.choice([*classes, THING])))
        elif k == 7:
            out.append(Triple(r, ALL, b))
        elif k == 8:
            out.append(Triple(r, HAS_VALUE, rng.choice(people)))
        else:
            out.append(Triple(r, MAX_CARD, ONE))
        out.append(Triple(r, SUBCLASS, a) if k != 15 and rng.random() < 0.5 else Triple(a, SUBCLASS, r))
    elif k == 9:
        out.append(Triple(a, INTERSECTION, rdf_list(rng.sample(classes, 2), out)))
    elif k == 10:
        out.append(Triple(a, UNION, rdf_list(rng.sample(classes, 2), out)))
    elif k == 11:
        out.append(Triple(p, CHAIN, rdf_list([rng.choice(props), rng.choice(props)], out)))
    else:
        out.append(Triple(a, HAS_KEY, rdf_list([p], out)))


def gen(rng: random.Random, *, equality: bool = False) -> list[Triple]:
    """A random graph; ``equality``: half the axioms equate individuals, more data, owl:sameAs in a third of it
    (classes of several individuals, merged by asserted and derived equalities alike)."""
    classes = [n(f"C{i}") for i in range(5)]
    props = [n(f"p{i}") for i in range(4)]
    people = [n(f"i{i}") for i in range(10 if equality else 6)]
    out: list[Triple] = []
    for _ in range(rng.randint(3, 12)):
        axiom(rng, classes, props, people, out, equality=equality)
    for _ in range(rng.randint(10, 30) if equality else rng.randint(3, 15)):
        x, y = rng.choice(people), rng.choice(people)
        k = rng.randrange(4)
        if k == 0:
            out.append(Triple(x, TYPE, rng.choice(classes)))
        elif k == 1:
            out.append(Triple(x, rng.choice(props), y))
        elif k == 2 and rng.random() < (0.9 if equality else 0.3):
            out.append(Triple(x, SAME_AS, y))
        else:
            out.append(Triple(x, rng.choice(props), Literal(str(rng.randrange(3)))))
    return out
