"""graphstore of the structural layer."""
