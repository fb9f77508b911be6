"""Locate ../shared test data (override with HYBRIDKG_SHARED); missing data skips a test, or fails it under CI."""

from __future__ import annotations

import os
from pathlib import Path

from support.prerequisites import missing

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("HYBRIDKG_SHARED", REPO.parent / "shared")) / "data"
SHARED_FIX = (
    "point HYBRIDKG_SHARED at the folder that holds the project's shared data/"
    if "HYBRIDKG_SHARED" in os.environ
    else f"put the project's shared data at {SHARED} (../shared/data beside the repository) "
    "or set HYBRIDKG_SHARED to the folder that holds data/"
)


def shared_location(*parts: str) -> Path:
    """Where ``parts`` would be in the shared data, without checking (for module level, at collection)."""
    return SHARED.joinpath(*parts)


def shared_path(*parts: str) -> Path:
    """The shared data at ``parts``; when it is missing the test is skipped, or under CI failed."""
    p = shared_location(*parts)
    if not p.exists():
        missing(f"shared test data {p}", SHARED_FIX)
    return p
