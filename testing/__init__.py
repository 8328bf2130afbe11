"""What tests and benchmarks share: write a helper here once, never again per test file.

Only tests/ and bench/ import this package; nothing else under plugin/ does. It may import
any part of the project.

- In-memory fakes of the host's ports (plugin.host.ports), each recording what it was
  asked: `FakeRoom`, `FakeVoice`, `FakeHub`, and `FakeClock`, which moves only when told.
- `AutohostProcess`: any `autohost` command in its own process, its output read with
  deadlines; `ServerProcess`: `autohost serve` (crash it, restart it, measure it), with
  `ADMIN_KEY` and `SECRET` unless told otherwise.
- The game's WebSocket clients (socket_client.py): `Client` (blocking: `in_process` over starlette's
  `TestClient`, or `connect` over a real socket) and `AsyncClient` (asyncio, for many at
  once); `frame`, `next_id`, `socket_url`.
- Load: `TableDriver` plays a table over its 12 clients, `open_tables`, `run_load`,
  `Ledger`, `lost_votes`, `CLIENTS_PER_TABLE`.
- `eventually(check, what, seconds=...)`: wait with a deadline; `free_port()`; `serve(app)`
  (an ASGI app on a free loopback port, in this event loop); `percentile(values, q)`.

Imported by module, because they pull in what most tests do not need:
- `testing.browser`: Debian's Chromium through Playwright (`launch_chromium`).
- `testing.livekit_server`: the real livekit-server binary on free ports
  (`running_server`, `API_KEY`, `API_SECRET`, `mic_publishers`).
- `testing.livekit_contract`: `ContractServer`, a loopback stand-in for LiveKit's
  RoomService that injects faults on demand.
- `testing.tones`: `tone_frames`, a sine tone as the voice's 20 ms PCM frames.
- `testing.coturn`: the real coturn with a shared secret (`running_coturn`).
- `testing.call`: a table's call (audio room with a switchable bot, video mesh,
  /api/ice) on any address, HTTP or HTTPS, its page, and `selected_pairs` (getStats).
- `testing.certs`: `self_signed(folder, name)`, a TLS certificate for a test name.
- `testing.netns`: network namespaces with NAT (nftables) and Chromium inside them.
- `testing.postgres`: a fresh PostgreSQL cluster on a free loopback port
  (`running_postgres`, `PostgresServer`: `new_database`, `stop`, `start`).
- `testing.licences`: the licences of the runtime dependencies, read where they are
  installed, and the allow-list they are checked against (scripts/licences writes
  docs/licences.md from it).
"""

from __future__ import annotations

from .clock import FakeClock
from .fakes import FakeHub, FakeRoom, FakeVoice
from .figures import percentile
from .load import (
    CLIENTS_PER_TABLE,
    AckedVote,
    Ledger,
    LoadFigures,
    TableDriver,
    lost_votes,
    open_tables,
    play_tables,
    run_load,
)
from .loopback import free_port, serve
from .process import ADMIN_KEY, SECRET, AutohostProcess, ServerProcess, bound_by_permissions
from .socket_client import (
    AsyncClient,
    Client,
    Message,
    connect,
    frame,
    in_process,
    next_id,
    public_version,
    socket_url,
)
from .testclient import TestClient
from .waiting import eventually, steady

__all__ = [
    "ADMIN_KEY",
    "CLIENTS_PER_TABLE",
    "SECRET",
    "AckedVote",
    "AsyncClient",
    "AutohostProcess",
    "Client",
    "FakeClock",
    "FakeHub",
    "FakeRoom",
    "FakeVoice",
    "Ledger",
    "LoadFigures",
    "Message",
    "ServerProcess",
    "TableDriver",
    "TestClient",
    "bound_by_permissions",
    "connect",
    "eventually",
    "frame",
    "free_port",
    "in_process",
    "lost_votes",
    "next_id",
    "open_tables",
    "percentile",
    "play_tables",
    "public_version",
    "run_load",
    "serve",
    "socket_url",
    "steady",
]
