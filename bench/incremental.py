"""Cost of keeping the closure up to date: LUBM(1) + 1,000 triples added, then deleted.

    python -m bench.incremental [--engine reasonable|owlrl]

Adds 200 new graduate students (5 triples each) to a materialised LUBM(1), then deletes them, and
checks that the inferred graph afterwards equals a from-scratch materialisation, so every
retraction is complete and nothing still supported was lost.
"""

from __future__ import annotations

import argparse
import json
import time

from pyoxigraph import NamedNode, Quad

from bench.common import shared
from hybridkg.semantic.base import ShapeValidator
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig, ValidatorEngine
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator


def _validator(engine: str = "pyshacl") -> ShapeValidator:
    return make_validator(ValidationConfig(engine=ValidatorEngine(engine)))

UB = "http://www.lehigh.edu/~zhp2/2004/0401/univ-bench.owl#"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
GRAPH = NamedNode("urn:lubm:extra")


def extra_triples(n_students: int = 200) -> list[Quad]:
    out = []
    for i in range(n_students):
        s = NamedNode(f"http://www.Department{i % 15}.University0.edu/NewGraduateStudent{i}")
        dept = NamedNode(f"http://www.Department{i % 15}.University0.edu")
        out += [
            Quad(s, RDF_TYPE, NamedNode(UB + "GraduateStudent"), GRAPH),
            Quad(s, NamedNode(UB + "memberOf"), dept, GRAPH),
            Quad(s, NamedNode(UB + "takesCourse"), NamedNode(f"{dept.value}/GraduateCourse{i % 20}"), GRAPH),
            Quad(s, NamedNode(UB + "advisor"), NamedNode(f"{dept.value}/FullProfessor{i % 7}"), GRAPH),
            Quad(s, NamedNode(UB + "undergraduateDegreeFrom"), NamedNode(f"http://www.University{i % 50}.edu"), GRAPH),
        ]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--engine", default="reasonable")
    args = ap.parse_args()
    lubm = shared("lubm")
    kb = KnowledgeBase(make_store(StoreConfig(backend="memory")),
                       reasoner=make_reasoner(ReasoningConfig(engine=args.engine)),
                       validator=_validator("pyshacl"))
    t0 = time.perf_counter()
    kb.load(lubm / "univ-bench.ttl", graph="urn:lubm:ontology")
    kb.load(lubm / "lubm1-University0.nt", graph="urn:lubm:data", bulk=True)
    base_s = time.perf_counter() - t0
    before = kb.inferred_triples()
    extra = extra_triples()
    assert len(extra) == 1000

    t0 = time.perf_counter()
    added = kb.write(extra)
    add_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    removed = kb.write(removed=extra)
    del_s = time.perf_counter() - t0
    after = kb.inferred_triples()
    if after != before:
        raise SystemExit(f"closure after delete differs from before: +{len(after - before)} -{len(before - after)}")
    out = {
        "engine": args.engine,
        "lubm1_load_materialise_s": round(base_s, 3),
        "add_1000_s": round(add_s, 3),
        "add_inferred": len(added.inferred_added),
        "delete_1000_s": round(del_s, 3),
        "delete_retracted": len(removed.inferred_removed),
        "closure_restored": True,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
