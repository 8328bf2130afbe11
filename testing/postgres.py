"""A real PostgreSQL for tests: Debian's `initdb` into a fresh temporary folder, `postgres` on
a free loopback port, stopped and removed at the end.

    with running_postgres() as pg:          # skips the test if PostgreSQL is missing
        dsn = pg.new_database()             # an empty database of its own
        pg.restart()                        # the same cluster, the same port

PostgreSQL refuses to run as root: as root, the folder is given to the `postgres` user the
Debian package creates and both programs run as him (what `runuser -u postgres --` does).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from .loopback import free_port

INSTALL = "PostgreSQL is missing: install Debian's `postgresql` (apt-get install postgresql)"
START_SECONDS = 30


def binaries() -> Path | None:
    """The folder of Debian's PostgreSQL programs (the newest version), if installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="autohost-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._count = 0
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
             "--auth=trust", "-E", "UTF8", "--no-sync"],
        )  # fmt: skip

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        command = [
            str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port),
            "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.folder}",
            "-c", "max_connections=100", "-c", "fsync=on",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **self._user()
        )
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with psycopg.connect(self.dsn, connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("postgres did not start") from None
                time.sleep(0.1)

    def stop(self, sig: signal.Signals = signal.SIGINT) -> None:
        """Stop the server (SIGINT: PostgreSQL's fast shutdown; SIGKILL for a crash)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def new_database(self) -> str:
        """A fresh empty database on this server; its URL."""
        self._count += 1
        name = f"test_{self._count}"
        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as db:
            db.execute(f"CREATE DATABASE {name}")
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _user(self) -> dict[str, Any]:
        """As root, run as `postgres` (like `runuser -u postgres --`, but the process is
        postgres itself, so our signals reach it)."""
        if not self._as_postgres:
            return {}
        return {"user": "postgres", "group": "postgres", "extra_groups": []}

    def _run(self, command: list[str]) -> None:
        done = subprocess.run(
            command, capture_output=True, timeout=120, check=False, **self._user()
        )
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stderr.decode(errors='replace')}")


@contextlib.contextmanager
def running_postgres() -> Iterator[PostgresServer]:
    """A fresh PostgreSQL cluster, started; skips the test (one line naming what to install)
    when Debian's PostgreSQL is not there, or we are not root and cannot run it."""
    bin_dir = binaries()
    if bin_dir is None:
        pytest.skip(INSTALL)
    server = PostgresServer(bin_dir)
    try:
        server.start()
        yield server
    finally:
        server.remove()
