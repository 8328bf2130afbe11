"""The command line in a process of its own, as a club runs it.

- `AutohostProcess`: any `autohost ...` command (`python -m plugin.cli`); a thread reads
  what it prints (`output`), so every wait for a line is bounded and the pipe never fills;
  SIGKILL (a crash), SIGTERM or SIGINT (a clean stop); its CPU time and memory from /proc.
- `ServerProcess`: `autohost serve` on a free loopback port with its SQLite log, started
  again after a crash with the very same command.
- `bound_by_permissions()`: what to run a command under so that file permissions bind it
  as they bind a service's user, even when the tests run as root.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

import httpx

from plugin.paths import ROOT

from .loopback import free_port
from .socket_client import socket_url


def bound_by_permissions() -> list[str]:
    """A prefix for a command so that a file it has no permission to read or write stays
    closed to it: nothing for a user; for root, setpriv without CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH (the capabilities that let root open any file). Raises
    RuntimeError as root without setpriv (util-linux)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("running as root without setpriv (util-linux) to drop file access")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}", "--"]


ADMIN_KEY = "test-admin-key"
SECRET = "test-secret-0123456789abcdef0123"  # 32 bytes: the signer refuses shorter ones


class AutohostProcess:
    """`python -m plugin.cli *args` with `env` added to this process's environment (and
    PYTHONUNBUFFERED, so every line arrives when it is printed). stderr is inherited."""

    def __init__(
        self, args: Sequence[str], *, env: Mapping[str, str] | None = None, ready: str
    ) -> None:
        self.command = [sys.executable, "-m", "plugin.cli", *args]
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        self.ready = ready  # what it prints once it is ready
        self.output: list[str] = []  # every line it printed, over every start
        self.process: subprocess.Popen[str] | None = None
        self._since = 0  # where the output of the current start begins
        self._ended = False  # its stdout is closed
        self._printed = threading.Condition()
        self._reader: threading.Thread | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None, "the process was not started"
        return self.process.pid

    def start(self, timeout: float = 60) -> float:
        """Spawn and wait for the line with `ready` in it; the seconds that took. A process
        that exits or stays silent that long is killed, and RuntimeError names it."""
        started = time.perf_counter()
        self.process = subprocess.Popen(
            self.command, cwd=ROOT, env=self.env, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        with self._printed:
            self._since, self._ended = len(self.output), False
        self._reader = threading.Thread(target=self._read, args=(self.process.stdout,))
        self._reader.daemon = True
        self._reader.start()
        try:
            self.wait_for(self.ready, timeout)
        except (TimeoutError, ConnectionError) as error:
            self.kill()
            raise RuntimeError(f"autohost {self.command[3]} did not start: {error}") from None
        return time.perf_counter() - started

    def wait_for(self, text: str, timeout: float = 60) -> str:
        """The first line since the last start with `text` in it, once it is printed.
        TimeoutError after `timeout`, ConnectionError if the process ends first."""
        deadline = time.monotonic() + timeout
        index = self._since
        with self._printed:
            while True:
                for line in self.output[index:]:
                    if text in line:
                        return line
                index = len(self.output)
                left = deadline - time.monotonic()
                if self._ended or left <= 0:
                    code = self.process.poll() if self.process else None
                    how = f"ended (exit {code})" if self._ended else f"waited {timeout:g} s"
                    printed = "".join(self.output[self._since :][-20:])
                    raise (ConnectionError if self._ended else TimeoutError)(
                        f"{how} without printing {text!r}; it printed:\n{printed}"
                    )
                self._printed.wait(left)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs (a crash)."""
        assert self.process is not None, "the process was not started"
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._close_pipe()

    def stop(self, timeout: float = 30, sig: signal.Signals = signal.SIGTERM) -> int:
        """`sig` (SIGTERM, or SIGINT as Ctrl-C) and wait: a clean stop; its exit status (0
        expected). Killed if it takes longer than `timeout`."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(sig)
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
        """User + system CPU time of the process so far (/proc/PID/stat)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def _read(self, stdout: IO[str]) -> None:
        with contextlib.suppress(ValueError, OSError):  # the pipe closed under the thread
            for line in stdout:
                with self._printed:
                    self.output.append(line)
                    self._printed.notify_all()
        with self._printed:
            self._ended = True
            self._printed.notify_all()

    def _close_pipe(self) -> None:
        if self._reader is not None:
            self._reader.join(timeout=5)  # the pipe ends with the process
            self._reader = None
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()


class ServerProcess(AutohostProcess):
    """`autohost serve` on 127.0.0.1; `start()` after `kill()` runs the same command again
    (the same port, log, admin key and secret)."""

    def __init__(
        self,
        db: Path | str,  # a SQLite file or a postgresql:// URL
        *,
        port: int | None = None,
        admin_key: str = ADMIN_KEY,
        secret: str = SECRET,
        options: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.db = db
        self.port = port or free_port()
        self.admin_key = admin_key
        self.secret = secret
        args = ["serve", "--port", str(self.port), "--db", str(db)]
        # The key goes in the environment, as a club's service unit would pass it: never on
        # the command line, where every local user can read it.
        keys = {"AUTOHOST_SECRET": secret, "AUTOHOST_ADMIN_KEY": admin_key}
        super().__init__([*args, *options], env={**(env or {}), **keys}, ready="listening")

    @property
    def base(self) -> str:
        """The server's HTTP address."""
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, token: str) -> str:
        """The game protocol's WebSocket address for this token."""
        return socket_url(self.port, token)

    def http(self) -> httpx.AsyncClient:
        """An HTTP client of the server's API, with the admin key."""
        headers = {"Authorization": f"Bearer {self.admin_key}"}
        return httpx.AsyncClient(base_url=self.base, headers=headers, timeout=60)

    def hosted(self, *, lenient: bool = False) -> list[str]:
        """The tables `GET /api/tables` says this server hosts now (not the broken ones).
        A server that does not answer in 10 s fails the test: an assertion that a table is
        (or is not) hosted must not pass because the answer was slow. `lenient`: [] after
        2 s instead, for the polls that ask again anyway (a killed or paused server among
        the candidates)."""
        try:
            answer = httpx.get(
                self.base + "/api/tables",
                headers={"Authorization": f"Bearer {self.admin_key}"},
                timeout=2 if lenient else 10,
            )
            answer.raise_for_status()
        except httpx.HTTPError as error:
            if lenient:
                return []
            raise AssertionError(f"{self.base}/api/tables did not answer: {error!r}") from None
        return [t["id"] for t in answer.json() if "broken" not in t]

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
