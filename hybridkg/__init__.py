"""hybridkg: a semantic-web hybrid knowledge service.

Layers (each a subpackage whose ``__init__`` names its public surface): ``hybridkg.semantic`` (RDF
store, OWL 2 RL reasoning, SHACL validation), ``hybridkg.structural`` (property graph, vectors,
retrieval), ``hybridkg.bridge`` (RDF <-> property graph, SPARQL <-> Cypher), ``hybridkg.server``
(CLI, settings, endpoints) and ``hybridkg.ontology`` (bundled ontologies, shapes, domain policies).
The one error hierarchy is :mod:`hybridkg.errors`.
"""

__version__ = "0.1.0"
