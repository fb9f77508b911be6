"""extract of the structural layer."""
