"""Simulated players for the benches, in their own process (so their CPU is not counted
as the server's): each joins a table over HTTP signalling with an aiortc client, sends a
tone (or nothing) and drains what it receives. Prints "ready" once every peer is
connected, then runs until its stdin closes.

Usage: python bench/_peers.py URL TABLE SEAT[:HZ|:mute] ... (token "seat-N" for seat N)
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from plugin.rooms.embedded import loopback_ice
from plugin.rooms.embedded.client import RoomClient, ToneTrack, http_answerer


async def run(url: str, table: str, specs: list[str]) -> None:
    clients: list[RoomClient] = []
    with loopback_ice():
        async with httpx.AsyncClient(timeout=30) as http:
            for spec in specs:
                seat, _, sound = spec.partition(":")
                source = None if sound in ("", "mute") else ToneTrack(float(sound))
                client = RoomClient(source, keep_seconds=0)
                answer = http_answerer(f"{url}/rtc/{table}/offer", f"seat-{seat}", http)
                await client.connect(answer, timeout=30)
                clients.append(client)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        for client in clients:
            await client.close()


if __name__ == "__main__":
    asyncio.run(run(sys.argv[1], sys.argv[2], sys.argv[3:]))
