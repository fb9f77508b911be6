"""A bounded, thread-safe memo for the retriever's caches that live across queries."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """A dict of at most ``capacity`` entries: when it is full, the oldest quarter (by insertion) goes.

    Reads take no lock; writes (and the eviction) do."""

    def __init__(self, capacity: int) -> None:
        self._capacity = max(1, capacity)
        self._items: dict[K, V] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            items = self._items
            if len(items) >= self._capacity and key not in items:
                for old in list(itertools.islice(items, max(1, self._capacity // 4))):
                    items.pop(old, None)
            items[key] = value
