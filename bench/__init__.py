"""Benchmarks (run as modules: ``python -m bench.reasoning``); not part of the test suite."""
