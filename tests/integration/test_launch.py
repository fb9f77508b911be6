"""The console script's allocator (server/launch.py): the command starts again once under mimalloc, child processes
get the caller's environment back, and ``HYBRIDKG_ALLOCATOR=system`` keeps the system allocator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.prerequisites import missing

from hybridkg.server import launch

# what a process started through the launcher reports: whether mimalloc is mapped, and what it passes on to children
PROBE = """
import json, os
from hybridkg.server.launch import prepare
prepare()
maps = open("/proc/self/maps").read()
print(json.dumps({"mimalloc": "libmimalloc" in maps, "LD_PRELOAD": os.environ.get("LD_PRELOAD"),
                  "marker": any(k.startswith("_HYBRIDKG") for k in os.environ),
                  "thp": os.environ.get("MIMALLOC_ALLOW_THP"),
                  "openblas": os.environ.get("OPENBLAS_THREAD_TIMEOUT")}))
"""


def probe(**env: str) -> dict[str, object]:
    base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", launch.ALLOCATOR_ENV)
            and not k.startswith(("MIMALLOC_", "OPENBLAS_"))}
    proc = subprocess.run([sys.executable, "-c", PROBE], env={**base, **env}, capture_output=True, text=True,
                          timeout=60, check=True)
    assert "cannot be preloaded" not in proc.stderr, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["stderr"] = proc.stderr
    return result


@pytest.fixture
def library() -> str:
    lib = launch.mimalloc_library()
    if lib is None:
        if sys.platform == "linux" and os.uname().machine == "x86_64":
            missing("mimalloc (cmeel-mimalloc)", "pip install -e '.[dev]' installs it on x86-64 Linux")
        pytest.skip("mimalloc is a dependency on x86-64 Linux only")
    return lib


def test_started_again_under_mimalloc_and_children_get_the_callers_environment(library: str) -> None:
    got = probe()
    assert got["mimalloc"] is True
    assert got["LD_PRELOAD"] is None  # the caller had none: children do not inherit mimalloc
    assert got["marker"] is False
    assert got["thp"] == "1"
    assert got["openblas"] == "4"


def test_the_callers_own_preload_is_kept_and_given_back(library: str) -> None:
    libm = "/lib/x86_64-linux-gnu/libm.so.6"
    if not os.path.exists(libm):
        pytest.skip("no libm at the Debian path to preload")
    got = probe(LD_PRELOAD=libm)
    assert got["mimalloc"] is True
    assert got["LD_PRELOAD"] == libm


def test_system_allocator_on_request(library: str) -> None:
    got = probe(**{launch.ALLOCATOR_ENV: "system"})
    assert got["mimalloc"] is False
    assert got["openblas"] == "4"


def test_callers_own_options_win(library: str) -> None:
    got = probe(MIMALLOC_ALLOW_THP="0", OPENBLAS_THREAD_TIMEOUT="20")
    assert got["thp"] == "0"
    assert got["openblas"] == "20"


def test_unknown_allocator_is_named_and_runs_on_the_system_allocator(library: str) -> None:
    got = probe(**{launch.ALLOCATOR_ENV: "tcmalloc"})
    assert got["mimalloc"] is False
    assert "HYBRIDKG_ALLOCATOR='tcmalloc' is not 'mimalloc' or 'system'" in str(got["stderr"])


def test_preload_environment_rules() -> None:
    lib = "/x/libmimalloc.so"
    env = launch.preload_environment({"PATH": "/bin"}, lib, platform="linux")
    assert env is not None
    assert env["LD_PRELOAD"] == lib
    assert env["PATH"] == "/bin"
    assert env["MIMALLOC_PURGE_DELAY"] == "1000"
    assert launch.preload_environment({}, lib, platform="darwin") is None
    assert launch.preload_environment({}, None, platform="linux") is None
    assert launch.preload_environment({launch.ALLOCATOR_ENV: "System "}, lib, platform="linux") is None
    again = launch.preload_environment(env, lib, platform="linux")  # already started again: never a loop
    assert again is None
    theirs = {"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"}  # the caller's own allocator stays
    assert launch.preload_environment(theirs, lib, platform="linux") is None
    kept = launch.preload_environment({"LD_PRELOAD": "/lib/libm.so.6"}, lib, platform="linux")
    assert kept is not None
    assert kept["LD_PRELOAD"] == f"{lib} /lib/libm.so.6"


def test_mimalloc_library_is_found_on_a_path_entry(tmp_path: Path) -> None:
    lib = tmp_path / "cmeel.prefix" / "lib" / "libmimalloc.so"
    lib.parent.mkdir(parents=True)
    lib.touch()
    assert launch.mimalloc_library([str(tmp_path / "none"), str(tmp_path)]) == str(lib)
    assert launch.mimalloc_library([str(tmp_path / "none")]) is None
