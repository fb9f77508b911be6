"""The ``hybridkg`` console script: the CLI (:mod:`hybridkg.server.cli`) run under the mimalloc allocator.

Oxigraph's bulk loader (and RocksDB under it) makes and frees millions of small keys a batch. Under glibc's malloc
a quarter of a large load's CPU went to the allocator and to the kernel zeroing pages that were handed back and
taken again. Under mimalloc (options below) the LUBM(50) load through the CLI took 77.5 s against 91.8 s, one
run each side by side (``bench/RESULTS.md``). An allocator is chosen when a process starts, so when mimalloc is
installed (the ``cmeel-mimalloc`` wheel, a dependency on x86-64 Linux) the script starts the same command line
again once, with mimalloc preloaded (about 10 ms). Child processes get the caller's own environment back.

``HYBRIDKG_ALLOCATOR=system`` keeps the system allocator, and an allocator the caller preloads is kept. Only the
console script does this: a program that imports hybridkg keeps its own allocator, and nothing here is global
state of the library.

The script also sets ``OPENBLAS_THREAD_TIMEOUT=4`` unless the caller set it: numpy's OpenBLAS threads otherwise
spin about 0.1 s each after numpy is imported before they sleep, CPU a two-core machine's load needs (LUBM(1):
50-200 ms of CPU in ``blas_thread_server``, none with it). A BLAS call wakes them as before.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Mapping

#: ``mimalloc`` (the default) or ``system``.
ALLOCATOR_ENV = "HYBRIDKG_ALLOCATOR"
#: Set in the started-again process: the caller's own ``LD_PRELOAD`` (empty when it had none), put back there.
_CALLER_PRELOAD = "_HYBRIDKG_CALLER_LD_PRELOAD"
#: mimalloc's options unless the caller sets them. Freed memory goes back to the system after 1 s, not 10 ms (a bulk
#: load frees and takes again its batch memory). Transparent huge pages on (Oxigraph's batch hash sets: LUBM(10)'s
#: asserted load alone 8.6 s without them, 6.2-6.7 s with), but an arena's memory is committed as it is used, not at
#: once (committed at once, a small load zeroed 2 MiB pages it never needed: LUBM(1) ~0.5 s of CPU).
MIMALLOC_OPTIONS = {"MIMALLOC_PURGE_DELAY": "1000", "MIMALLOC_ALLOW_THP": "1", "MIMALLOC_ARENA_EAGER_COMMIT": "0"}


def mimalloc_library(paths: list[str] | None = None) -> str | None:
    """The path of mimalloc's shared library as the ``cmeel-mimalloc`` wheel installs it, or ``None``."""
    for entry in sys.path if paths is None else paths:
        lib = os.path.join(entry or os.curdir, "cmeel.prefix", "lib", "libmimalloc.so")
        if os.path.isfile(lib):
            return os.path.abspath(lib)
    return None


def preload_environment(environ: Mapping[str, str], library: str | None,
                        platform: str = sys.platform) -> dict[str, str] | None:
    """The environment to start the command again in, with ``library`` preloaded; ``None`` to run as it is (not
    Linux, no library, ``HYBRIDKG_ALLOCATOR=system``, an allocator already in ``LD_PRELOAD``, or already started
    again)."""
    choice = environ.get(ALLOCATOR_ENV, "mimalloc").strip().lower()
    if choice not in ("mimalloc", "system"):
        sys.stderr.write(f"hybridkg: {ALLOCATOR_ENV}={environ[ALLOCATOR_ENV]!r} is not 'mimalloc' or 'system'; "
                         "running with the system allocator\n")
        return None
    if choice == "system" or platform != "linux" or library is None or _CALLER_PRELOAD in environ:
        return None
    caller = environ.get("LD_PRELOAD", "")
    if any("malloc" in os.path.basename(lib) for lib in caller.replace(":", " ").split()):
        return None  # the caller preloads an allocator of its own (jemalloc, tcmalloc, mimalloc): theirs
    env = dict(environ)
    env[_CALLER_PRELOAD] = caller
    env["LD_PRELOAD"] = f"{library} {caller}".strip()
    for option, value in MIMALLOC_OPTIONS.items():  # the caller's own settings win
        env.setdefault(option, value)
    return env


#: Process options the console script sets unless the caller did (see the module's docstring).
PROCESS_OPTIONS = {"OPENBLAS_THREAD_TIMEOUT": "4"}


def prepare() -> None:
    """What the console script does before the CLI: :data:`PROCESS_OPTIONS`, then :func:`ensure_allocator`."""
    for option, value in PROCESS_OPTIONS.items():
        os.environ.setdefault(option, value)
    ensure_allocator()


def ensure_allocator() -> None:
    """Start this process's command line again under mimalloc when :func:`preload_environment` says so (this does
    not return then); in the started-again process, give the caller's ``LD_PRELOAD`` back to ``os.environ`` so
    that child processes (gzip, servers) start as the caller would start them."""
    env = preload_environment(os.environ, mimalloc_library())
    if env is not None:
        try:
            os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)
        except OSError:  # cannot start again (e.g. no executable path): run on the system allocator
            return
    caller = os.environ.pop(_CALLER_PRELOAD, None)
    if caller is not None:
        if caller:
            os.environ["LD_PRELOAD"] = caller
        else:
            os.environ.pop("LD_PRELOAD", None)


def main() -> int:
    prepare()
    # the CLI's imports (settings models) make many objects that all live to the end: no collections while they
    # are made (0.02 s of a 0.24 s start), and none of them scanned again by later ones
    gc.disable()
    try:
        from hybridkg.server.cli import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
