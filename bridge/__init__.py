"""Bridge: RDF <-> property-graph mapping and SPARQL <-> Cypher translation."""
