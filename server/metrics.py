"""Prometheus metrics of one service instance (its own registry: no global state)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class _Sizes(Collector):
    def __init__(self, sizes: Callable[[], dict[str, int]]) -> None:
        self._sizes = sizes

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily("hybridkg_store_size", "Size of each store, by what is counted.", labels=["what"])
        try:
            sizes = self._sizes()
        except Exception:  # a scrape must not fail because a store is busy or closed
            sizes = {}
        for what, n in sorted(sizes.items()):
            family.add_metric([what], float(n))
        yield family


class Metrics:
    """``api`` is grpc or http; ``method`` the RPC or endpoint; ``route`` strict/fuzzy for Ask, else ``-``."""

    def __init__(self, sizes: Callable[[], dict[str, int]] | None = None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "hybridkg_requests", "Requests served, by outcome.", ["api", "method", "route", "code"],
            registry=self.registry,
        )
        self.errors = Counter(
            "hybridkg_errors", "Requests that failed, by status.", ["api", "method", "code"], registry=self.registry
        )
        self.latency = Histogram(
            "hybridkg_request_seconds", "Request latency in seconds.", ["api", "method", "route"],
            buckets=BUCKETS, registry=self.registry,
        )
        if sizes is not None:
            self.registry.register(_Sizes(sizes))

    def observe(self, api: str, method: str, code: str, seconds: float, *, route: str = "-", ok: bool = True) -> None:
        self.requests.labels(api, method, route, code).inc()
        self.latency.labels(api, method, route).observe(seconds)
        if not ok:
            self.errors.labels(api, method, code).inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
