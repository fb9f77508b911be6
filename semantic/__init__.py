"""Semantic layer: RDF store, OWL 2 RL reasoning with explanations, SHACL-gated writes."""
