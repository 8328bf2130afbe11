"""A hostile client against a real `autohost serve` over real loopback sockets (issue 15):
bodies of 128 MiB with no token, frames over the protocol's size, a client that sends pings
and never reads, a seat that connects in a loop, and a stop while such a client hangs on.
Each is refused or bounded; the server's memory stays where it was, it answers its honest
clients, and it stops cleanly. Every loop here is bounded in count and in time.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import sqlite3
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from plugin.paths import ROOT
from plugin.server.http import SHUTDOWN_SECONDS, WS_MAX_BYTES, WS_WRITE_BUFFER_BYTES
from plugin.web.limits import REFUSED_CONNECT_SECONDS
from testing import ServerProcess

pytestmark = pytest.mark.slow
MIB = 1024 * 1024
GROWTH_MB = 40  # what one attack may add to the server's memory, at most


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "autohost.db", options=["--no-voice"]) as running:
        yield running


def new_table(server: ServerProcess) -> dict:
    answer = httpx.post(
        f"{server.base}/api/tables", json={"seats": 10},
        headers={"Authorization": f"Bearer {server.admin_key}"}, timeout=30,
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    return answer.json()


def honest_vote(server: ServerProcess, token: str) -> dict:
    """An honest page: hello, the state, one message answered."""
    with connect(f"ws://127.0.0.1:{server.port}/ws", open_timeout=30) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.recv(timeout=30))["type"] == "state"
        ws.send(json.dumps({"v": 1, "id": "honest", "type": "pass"}))
        while True:
            reply = json.loads(ws.recv(timeout=30))
            if reply["type"] != "state":
                return reply


def raw_socket(server: ServerProcess, path: str = "/ws") -> socket.socket:
    """A WebSocket opened by hand (handshake only), to send frames no library would."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 101"), answer[:200]
    return sock


def masked_frame(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    return header + mask + body


def test_a_huge_body_without_a_token_costs_the_server_nothing(server: ServerProcess) -> None:
    links = new_table(server)
    before = server.rss_mb()
    for _ in range(4):  # the outside check's attack: four 128 MiB posts, no token at all

        def body() -> Iterator[bytes]:
            chunk = b"x" * MIB
            for _ in range(128):
                yield chunk

        with _maybe_cut():
            answer = httpx.post(f"{server.base}/rtc/{links['id']}/offer", content=body(),
                                timeout=60)  # fmt: skip
            assert answer.status_code in (403, 413), answer.text
        assert announced_only(server, "/api/tables", 128 * MIB).startswith(b"HTTP/1.1 413")
    assert server.rss_mb() - before < GROWTH_MB, (before, server.rss_mb())
    assert httpx.get(f"{server.base}/healthz", timeout=30).json()["ok"] is True
    assert honest_vote(server, links["seats"][0]["token"])["type"] in ("ack", "error")


def announced_only(server: ServerProcess, path: str, length: int) -> bytes:
    """A POST that announces `length` bytes and sends none of them: the answer's first line.
    The server must answer from the header alone, without waiting for the body."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {server.admin_key}\r\nContent-Length: {length}\r\n\r\n".encode()
        )
        return sock.recv(4096).split(b"\r\n", 1)[0]


class _maybe_cut:
    """The server may answer 413 and close while the client is still sending: either way
    is a refusal (the body was not read)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, value: object, traceback: object) -> bool:
        return isinstance(value, httpx.TransportError)


def test_a_frame_over_the_limit_closes_the_socket_unread(server: ServerProcess) -> None:
    links = new_table(server)
    before = server.rss_mb()
    with connect(f"ws://127.0.0.1:{server.port}/ws", max_size=None, open_timeout=30) as ws:
        ws.send(json.dumps({"type": "hello", "token": links["seats"][0]["token"]}))
        assert json.loads(ws.recv(timeout=30))["type"] == "state"
        with pytest.raises(ConnectionClosed) as closed:
            ws.send("x" * (WS_MAX_BYTES * 64))  # 4 MiB in one frame
            while True:
                ws.recv(timeout=30)
        # The server closes with 1009 as soon as it reads the frame's header; the client may
        # still be sending then, and see the connection reset before it reads the close.
        received = closed.value.rcvd
        reset = isinstance(closed.value.__cause__, ConnectionResetError)
        assert (received is not None and received.code == 1009) or reset, closed.value
    assert server.rss_mb() - before < GROWTH_MB
    assert honest_vote(server, links["seats"][1]["token"])["type"] in ("ack", "error")


def test_pings_never_read_are_cut_off_not_buffered(server: ServerProcess) -> None:
    links = new_table(server)
    before = server.rss_mb()
    sock = raw_socket(server)  # no hello, no token: the socket waits for one
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # and never reads
    ping = masked_frame(0x9, b"p" * 125)
    sent, cut = 0, False
    deadline = time.monotonic() + 60
    try:
        while sent < 300 * MIB and time.monotonic() < deadline:
            sock.sendall(ping * 512)
            sent += len(ping) * 512
    except OSError:
        cut = True  # the server aborted the connection
    finally:
        sock.close()
    assert cut, f"the server kept taking pings it could not answer ({sent // MIB} MiB sent)"
    assert sent < 300 * MIB
    assert server.rss_mb() - before < GROWTH_MB + WS_WRITE_BUFFER_BYTES / MIB
    assert honest_vote(server, links["seats"][0]["token"])["type"] in ("ack", "error")


def test_a_seat_that_connects_in_a_loop_is_refused_and_others_go_on(
    server: ServerProcess,
) -> None:
    links, other = new_table(server), new_table(server)
    token = links["seats"][2]["token"]
    refused, waits = [], []
    for _ in range(16):  # bounded: the outside check made 574 connects a second
        with connect(f"ws://127.0.0.1:{server.port}/ws", open_timeout=30) as ws:
            started = time.monotonic()
            ws.send(json.dumps({"type": "hello", "token": token}))
            first = json.loads(ws.recv(timeout=30))
            if first["type"] == "error":
                refused.append(first["error"])
                waits.append(time.monotonic() - started)
    assert refused and set(refused) == {"too_many_connects"}, refused
    # Each refusal comes a second late: a loop that waits for it is slowed to that pace.
    assert min(waits) >= 0.9 * REFUSED_CONNECT_SECONDS, waits
    assert honest_vote(server, other["seats"][0]["token"])["type"] in ("ack", "error")
    assert honest_vote(server, links["seats"][3]["token"])["type"] in ("ack", "error")


def test_a_stop_does_not_wait_for_a_client_that_never_reads(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "autohost.db", options=["--no-voice"])
    server.start()
    try:
        links = new_table(server)
        sock = raw_socket(server)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        hello = json.dumps({"type": "hello", "token": links["seats"][0]["token"]}).encode()
        sock.sendall(masked_frame(0x1, hello))
        started = time.monotonic()
        code = server.stop(timeout=SHUTDOWN_SECONDS + 30)
        took = time.monotonic() - started
        sock.close()
    finally:
        if server.alive():
            server.kill()
    assert code == 0
    assert took < SHUTDOWN_SECONDS + 20, f"the stop took {took:.1f} s"


def test_no_token_reaches_the_servers_output(server: ServerProcess) -> None:
    links = new_table(server)
    token = links["seats"][0]["token"]
    honest_vote(server, token)
    with connect(f"ws://127.0.0.1:{server.port}/ws?token={token}", open_timeout=30) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "state"  # an older client's URL
    httpx.post(f"{server.base}/rtc/{links['id']}/offer", content=b"{}",
               headers={"Authorization": f"Bearer {token}x"}, timeout=30)  # fmt: skip
    server.stop()
    printed = "".join(server.output)
    assert token not in printed and token[:40] not in printed


@pytest.mark.parametrize("damage", ["empty", "garbage", "truncated"])
def test_a_log_file_that_is_not_an_event_log_is_refused_naming_it(
    tmp_path: Path, damage: str
) -> None:
    """A zero-length file once started silently with no tables (every link: no such table)."""
    db = tmp_path / "autohost.db"
    if damage == "empty":
        db.write_bytes(b"")
    elif damage == "garbage":
        db.write_bytes(os.urandom(8192))
    else:
        with ServerProcess(db, options=["--no-voice"]) as running:
            for _ in range(5):
                new_table(running)
        db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])
    before = db.read_bytes()
    _refused_naming(db, ["serve", "--port", "0", "--db", str(db), "--no-voice"])
    assert db.read_bytes() == before  # refused, not "repaired"


@pytest.mark.parametrize("where", ["a folder", "under a file"])
def test_a_log_path_that_cannot_be_a_file_is_refused_naming_it(tmp_path: Path, where: str) -> None:
    """--db naming a folder, or a file inside what is a file: a traceback from SQLite's
    "unable to open database file" (or from mkdir), not one line that names the path."""
    if where == "a folder":
        db = tmp_path / "autohost.db"
        db.mkdir()
    else:
        (tmp_path / "logs").write_text("not a folder")
        db = tmp_path / "logs" / "autohost.db"
    for command in (  # the server, and the commands that open a log without one
        ["serve", "--port", "0", "--db", str(db), "--no-voice"],
        ["table", "new", "--db", str(db)],
        ["protocol", "--db", str(db), "--table", "abc", "--html", str(tmp_path / "p.html")],
    ):
        _refused_naming(db, command)


def _refused_naming(db: Path, command: list[str]) -> None:
    """`autohost COMMAND` stops with status 2 and one line that names the log `db`."""
    done = subprocess.run(
        [sys.executable, "-m", "plugin.cli", *command],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(db) in lines[0], done.stderr
    assert "Traceback" not in done.stderr and "listening" not in done.stdout


def _logged(db: Path) -> list[tuple[object, ...]]:
    """Every table, logged input and archive mark in the SQLite log (read-only)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as log:
        return [
            *log.execute("SELECT 'table', id, settings FROM tables ORDER BY id"),
            *log.execute("SELECT 'event', table_id, seq, record FROM events ORDER BY 2, 3"),
            *log.execute("SELECT 'archived', table_id FROM archived ORDER BY 2"),
        ]


def test_a_second_server_on_one_sqlite_file_is_refused_and_the_first_goes_on(
    tmp_path: Path,
) -> None:
    """Two servers on one SQLite file both replayed and timed the same tables and both wrote
    (issue 16). The second is refused before it opens anything; a killed first one leaves no
    stale lock behind."""
    db = tmp_path / "autohost.db"
    with ServerProcess(db, options=["--no-voice"]) as first:
        table = new_table(first)
        # What the log holds, not its bytes: the first server's checkpointer copies its WAL
        # into the main file every second, whatever the second one does.
        before = _logged(db)
        done = subprocess.run(
            [sys.executable, "-m", "plugin.cli", "serve", "--port", "0", "--db", str(db),
             "--no-voice"],
            capture_output=True, text=True, timeout=60, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 2, done
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(db) in lines[0] and "already hosted" in lines[0], lines
        assert f"pid {first.pid}" in lines[0], lines
        assert "listening" not in done.stdout and _logged(db) == before
        reply = honest_vote(first, table["seats"][0]["token"])  # the first one goes on
        assert reply["type"] in ("ack", "error"), reply
        first.kill()
        first.start()  # the lock died with the killed process: the same command starts
        assert httpx.get(f"{first.base}/healthz", timeout=30).json()["ok"] is True
