"""Helpers shared by the benchmarks."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HYBRIDKG_SHARED", REPO.parent / "shared")) / "data"


def shared(*parts: str) -> Path:
    p = SHARED.joinpath(*parts)
    if not p.exists():
        raise SystemExit(f"benchmark data {p} is missing; put ../shared beside the repo or set HYBRIDKG_SHARED")
    return p
