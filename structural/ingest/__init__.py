"""ingest of the structural layer."""
