"""vectors of the structural layer."""
