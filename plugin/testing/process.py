"""`autohost serve` in a process of its own, as a club runs it: on a free loopback port with
its SQLite log; SIGKILL (a crash) or SIGTERM (a clean stop); started again with the very
same command; its CPU time and memory read from /proc."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import httpx

from plugin.paths import ROOT

from .loopback import free_port
from .protocol import socket_url

ADMIN_KEY = "test-admin-key"
SECRET = "test-secret-0123456789abcdef0123"  # 32 bytes: the signer refuses shorter ones


class ServerProcess:
    """`python -m plugin.cli serve` as a subprocess; `start()` after `kill()` runs the same
    command again (the same port, log, admin key and secret)."""

    def __init__(
        self,
        db: Path,
        *,
        port: int | None = None,
        admin_key: str = ADMIN_KEY,
        secret: str = SECRET,
        options: Sequence[str] = (),
    ) -> None:
        self.db = db
        self.port = port or free_port()
        self.admin_key = admin_key
        self.secret = secret
        self.command = [sys.executable, "-m", "plugin.cli", "serve", "--port", str(self.port),
                        "--db", str(db), "--admin-key", admin_key, *options]  # fmt: skip
        self.output: list[str] = []  # what the server printed, for a failure's message
        self.process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    @property
    def base(self) -> str:
        """The server's HTTP address."""
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, token: str) -> str:
        """The game protocol's WebSocket address for this token."""
        return socket_url(self.port, token)

    @property
    def pid(self) -> int:
        assert self.process is not None, "the server was not started"
        return self.process.pid

    def start(self, timeout: float = 60) -> float:
        """Spawn and wait for its "listening" line; the seconds that took."""
        started = time.perf_counter()
        env = {**os.environ, "AUTOHOST_SECRET": self.secret}
        self.process = subprocess.Popen(
            self.command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        # A thread reads stdout for as long as the process runs, so a wait is bounded here
        # and the server never blocks on a full pipe later.
        self._reader = threading.Thread(
            target=self._read, args=(self.process.stdout, lines), daemon=True
        )
        self._reader.start()
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:  # stdout closed: the process is gone
                break
            if "listening" in line:
                return time.perf_counter() - started
        code = self.process.poll()
        self.kill()
        printed = "".join(self.output[-20:])
        raise RuntimeError(f"autohost serve did not start (exit {code}):\n{printed}")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs (a crash)."""
        assert self.process is not None, "the server was not started"
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._close_pipe()

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM and wait: a clean stop; its exit status (0 expected). Killed if it takes
        longer than `timeout`."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        self._close_pipe()
        return self.process.returncode

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far (/proc/PID/stat)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def http(self) -> httpx.AsyncClient:
        """An HTTP client of the server's API, with the admin key."""
        headers = {"Authorization": f"Bearer {self.admin_key}"}
        return httpx.AsyncClient(base_url=self.base, headers=headers, timeout=60)

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _read(self, stdout: IO[str], lines: queue.Queue[str | None]) -> None:
        with contextlib.suppress(ValueError, OSError):  # the pipe closed under the thread
            for line in stdout:
                self.output.append(line)
                lines.put(line)
        lines.put(None)

    def _close_pipe(self) -> None:
        if self._reader is not None:
            self._reader.join(timeout=5)  # the pipe ends with the process
            self._reader = None
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()
