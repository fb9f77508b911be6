"""SHACL validation speed: the `auto` validator against the reference pySHACL on the same synthetic
data in the same run, printing both times, the ratio and which engine `auto` ran.

    python -m bench.shacl [--nodes 20000]
    python -m bench.shacl --mixed-ages   # 1 % of ages are strings: auto's worst case (all on pySHACL)

With ``--mixed-ages`` the ``sh:minInclusive`` on ages compares integers and strings, kinds that ``auto``
does not trust turbo to order as pySHACL does, so it routes the shape to pySHACL (docs/shacl.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter

from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, parse

from hybridkg.semantic.settings import ValidationConfig
from hybridkg.semantic.validation.factory import make_validator

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
SUBCLASS = NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf")
SHAPES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
  sh:property [ sh:path ex:name ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:string ] ;
  sh:property [ sh:path ex:age ; sh:datatype xsd:integer ; sh:minInclusive 0 ; sh:maxCount 1 ] ;
  sh:property [ sh:path ex:email ; sh:pattern "^[^@]+@[^@]+$" ; sh:severity sh:Warning ] ;
  sh:property [ sh:path ex:knows ; sh:class ex:Person ; sh:nodeKind sh:IRI ] .
"""


def n(local: str) -> NamedNode:
    return NamedNode(EX + local)


def synthetic(nodes: int, mixed_ages: bool = False) -> list[Triple]:
    """People with ~5% defects: missing names, negative ages, malformed e-mails (and string ages)."""
    data = []
    for i in range(nodes):
        p = n(f"p{i}")
        data.append(Triple(p, RDF_TYPE, n("Student" if i % 3 else "Person")))
        if i % 50:
            data.append(Triple(p, n("name"), Literal(f"Person {i}")))
        age = str(i % 90 if i % 97 else -1)
        if mixed_ages and i % 100 == 7:
            data.append(Triple(p, n("age"), Literal("unknown")))
        else:
            data.append(Triple(p, n("age"), Literal(age, datatype=NamedNode(XSD + "integer"))))
        data.append(Triple(p, n("email"), Literal(f"p{i}@example.org" if i % 71 else "bad")))
        data.append(Triple(p, n("knows"), n(f"p{(i + 1) % nodes}")))
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--nodes", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mixed-ages", action="store_true", help="write 1 %% of ages as strings")
    args = ap.parse_args()
    data = synthetic(args.nodes, args.mixed_ages)
    shapes = [q.triple for q in parse(SHAPES.encode(), format=RdfFormat.TURTLE)]
    ontology = [Triple(n("Student"), SUBCLASS, n("Person"))]
    print(f"{args.nodes} nodes, {len(data)} triples")
    times: dict[str, float] = {}
    engines: dict[str, str] = {}
    results: dict[str, Counter[tuple[object, ...]]] = {}
    for name in ("auto", "pyshacl"):
        v = make_validator(ValidationConfig(engine=name))
        runs = []
        for _ in range(args.runs):
            t = time.perf_counter()
            report = v.validate(data, shapes, ontology)
            runs.append(time.perf_counter() - t)
        times[name] = statistics.median(runs)
        results[name] = Counter(
            (r.focus, r.path, r.constraint, r.value, r.severity, r.source_shape) for r in report.results
        )
        engines[name] = report.engine
        print(f"{name}: {times[name]:.3f} s, {len(report.results)} results (engine {report.engine})")
    if results["auto"] != results["pyshacl"]:
        raise SystemExit("auto and pySHACL report different results")
    ratio = times["pyshacl"] / times["auto"]
    print(f"speed-up auto vs pyshacl: {ratio:.1f}x")
    print(json.dumps({"nodes": args.nodes, "mixed_ages": args.mixed_ages, "auto_engine": engines["auto"],
                      "auto_s": round(times["auto"], 3), "pyshacl_s": round(times["pyshacl"], 3),
                      "speedup": round(ratio, 2)}))


if __name__ == "__main__":
    main()
