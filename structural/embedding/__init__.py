"""embedding of the structural layer."""
