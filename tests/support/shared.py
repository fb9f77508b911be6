"""Locate ../shared test data (override with HYBRIDKG_SHARED)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("HYBRIDKG_SHARED", REPO.parent / "shared")) / "data"


def shared_path(*parts: str) -> Path:
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared test data {p} is missing (set HYBRIDKG_SHARED)")
    return p
