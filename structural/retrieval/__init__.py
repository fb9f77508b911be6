"""retrieval of the structural layer."""
