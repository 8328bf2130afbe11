"""Deadlines for the PostgreSQL store's queries: a socket on which nothing comes back never
times out by itself (a frozen database, a host that stopped answering), so one watchdog
thread for every connection of a process shuts the socket of a query still waiting past
its deadline, and psycopg returns at once with an OperationalError (the connection is then
dropped and made again at its next use)."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg

logger = logging.getLogger(__name__)
STATEMENT_SECONDS = 2.0  # a transaction or a read with no answer by then is cut off


class Deadlines:
    """The watchdog (one thread, started at the first guarded query)."""

    def __init__(self) -> None:
        self._armed: dict[int, tuple[float, psycopg.Connection[Any]]] = {}
        self._keys = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def guard(self, db: psycopg.Connection[Any], seconds: float) -> Iterator[None]:
        key = next(self._keys)
        with self._wake:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pg-deadlines", daemon=True)
                self._thread.start()
            self._armed[key] = (time.monotonic() + seconds, db)
            self._wake.notify()
        try:
            yield
        finally:
            with self._wake:
                self._armed.pop(key, None)

    def _run(self) -> None:
        while True:
            with self._wake:
                now = time.monotonic()
                late = [k for k, (deadline, _) in self._armed.items() if deadline <= now]
                expired = [self._armed.pop(k)[1] for k in late]
                if not expired:
                    nearest = min((d for d, _ in self._armed.values()), default=None)
                    self._wake.wait(None if nearest is None else nearest - now)
                    continue
            for db in expired:
                _shut(db)


def _shut(db: psycopg.Connection[Any]) -> None:
    """Shut the socket under a connection another thread is blocked on (a duplicate of its
    descriptor, so the connection's own is closed by psycopg, once)."""
    try:
        fd = db.pgconn.socket
    except psycopg.Error:  # closed meanwhile
        return
    with contextlib.suppress(OSError):
        duplicate = socket.socket(fileno=os.dup(fd))
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        finally:
            duplicate.close()
    logger.error("event log: the database did not answer for %.1f s", STATEMENT_SECONDS)


DEADLINES = Deadlines()
