"""The real LiveKit server for tests and benches: found at .cache/bin/livekit-server (or
$LIVEKIT_SERVER_BIN), started in dev mode on loopback with free ports, stopped after.

Tests get it from the `livekit_server` fixture (tests/conftest.py), which skips when the
binary is missing.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from livekit import api

from plugin.paths import CACHE_DIR
from plugin.rooms.livekit.tokens import Credentials

from .loopback import free_port

if TYPE_CHECKING:
    from plugin.server import Hosting

# A secret of 32+ bytes: PyJWT warns (an error under our pytest settings) on shorter ones.
API_KEY = "autohost-test"
API_SECRET = "autohost-test-secret-0123456789abcdef"


def server_binary() -> Path | None:
    path = Path(os.environ.get("LIVEKIT_SERVER_BIN", CACHE_DIR / "bin" / "livekit-server"))
    return path if path.is_file() and os.access(path, os.X_OK) else None


@dataclass(frozen=True)
class LiveKitServer:
    port: int
    webhook_port: int
    log: Path

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def config_yaml(port: int, tcp_port: int, udp_port: int, webhook_port: int) -> str:
    """The server's config: loopback only, our keys, remote unmute, webhooks to the test."""
    return f"""\
port: {port}
bind_addresses: ["127.0.0.1"]
rtc:
  tcp_port: {tcp_port}
  udp_port: {udp_port}
  use_external_ip: false
  enable_loopback_candidate: true
keys:
  {API_KEY}: {API_SECRET}
room:
  enable_remote_unmute: true
  empty_timeout: 30
webhook:
  api_key: {API_KEY}
  urls: ["http://127.0.0.1:{webhook_port}/livekit/webhook"]
logging:
  level: info
"""


@contextlib.contextmanager
def running_server(binary: Path, folder: Path) -> Iterator[LiveKitServer]:
    """The real server on free loopback ports, its config and log in `folder`.

    A port found free can be taken before the server binds it (the ports come from the
    range the kernel also gives outgoing connections): then the server is started again
    on new ports, up to three times.
    """
    for attempt in range(1, 4):
        port, tcp_port = free_port(), free_port()
        udp_port, webhook_port = free_port(socket.SOCK_DGRAM), free_port()
        config = folder / "livekit.yaml"
        config.write_text(config_yaml(port, tcp_port, udp_port, webhook_port))
        log = folder / "server.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [str(binary), "--dev", "--config", str(config), "--node-ip", "127.0.0.1"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            try:
                _wait_until_serving(port, process, log)
            except RuntimeError:
                if attempt < 3 and "address already in use" in log.read_text():
                    continue
                raise
            yield LiveKitServer(port=port, webhook_port=webhook_port, log=log)
            return
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    raise AssertionError("unreachable")


async def mic_publishers(lkapi: api.LiveKitAPI, room: str) -> set[str]:
    """Who publishes a microphone in `room` now, as the server says (ListParticipants)."""
    listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=room))
    return {
        p.identity
        for p in listed.participants
        if any(t.source == api.TrackSource.MICROPHONE for t in p.tracks)
    }


def _wait_until_serving(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"livekit-server exited early:\n{log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"livekit-server did not listen on {port}:\n{log.read_text()[-2000:]}")


def one_table_hosting(creds: Credentials, db: Path, *, room: str, table: str) -> Hosting:
    """`autohost livekit --room ROOM --table TABLE`'s assembly, for a test in this process:
    no voice, the room re-read every second, a player gone after 2 s."""
    from plugin.server import LiveKitOptions, ServerOptions, build

    lk = LiveKitOptions(credentials=creds, room=room, table=table, reconcile=1.0, grace=2.0)
    return build(
        ServerOptions(
            db=db, admin_key="admin-test", base_url="http://127.0.0.1", media="livekit",
            voice=False, livekit=lk,
        )
    )  # fmt: skip
