"""Bench plumbing: tables served over HTTP signalling on 127.0.0.1, and the simulated
players' process (bench/_peers.py)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette

from plugin.rooms.embedded import EmbeddedRoom
from plugin.rooms.embedded.client import tone_frames
from plugin.rooms.embedded.signalling import rtc_routes
from plugin.server import listening

PEERS = Path(__file__).resolve().parent / "_peers.py"


@contextlib.asynccontextmanager
async def tables(count: int, *, seats: int = 10) -> AsyncIterator[tuple[str, list[EmbeddedRoom]]]:
    """`count` started rooms ("t1", "t2", ...) each with a bot tone, served at the URL."""
    rooms = [
        EmbeddedRoom(
            seats=seats, bot_audio=tone_frames(440, amplitude=2000), ice_loopback_only=True
        )
        for _ in range(count)
    ]
    by_id = {f"t{i + 1}": room for i, room in enumerate(rooms)}

    def authorize(table_id: str, token: str) -> int | None:
        seat = token.removeprefix("seat-")
        return int(seat) if seat.isdigit() else None

    app = Starlette(routes=rtc_routes(by_id.get, authorize))
    for room in rooms:
        await room.start()
    try:
        async with listening(app, lifespan="off") as where:
            yield where.url, rooms
    finally:
        for room in rooms:
            await room.stop()


@contextlib.asynccontextmanager
async def peers(url: str, table: str, specs: list[str]) -> AsyncIterator[None]:
    """Run simulated players (SEAT[:HZ|:mute] each) in another process until exit."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(PEERS),
        url,
        table,
        *specs,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stdin is not None
    line = await asyncio.wait_for(process.stdout.readline(), 120)
    if line.strip() != b"ready":
        raise SystemExit(f"bench: the peers process failed ({line!r})")
    try:
        yield
    finally:
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 20)
        except TimeoutError:
            process.kill()
            await process.wait()
