"""hybridkg: a semantic-web hybrid knowledge service.

The repository root is the ``hybridkg`` package: ``semantic`` (RDF store, OWL 2 RL reasoning,
SHACL validation), ``structural`` (property graph and vectors), ``bridge`` (RDF <-> property
graph, SPARQL <-> Cypher), ``server`` (CLI, gRPC and HTTP endpoints, config) and ``ontology``
(bundled ontologies, shapes and domain policies).
"""

__version__ = "0.1.0"
