"""The demo's session: one table whose timers are the preset's divided by `speed`, its seats
after the first `humans` taken by simulated players (plugin.sim: the same protocol and the
same WebRTC route as a browser), and a link for every seat and for the host console."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from plugin.host.inputs import HOST, Start
from plugin.host.settings import TableSettings
from plugin.signing import table_links
from plugin.sim.player import SimPlayer
from plugin.sim.speed import scaled_timers

from .assembly import Hosting
from .http import Listening


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoTable:
    table_id: str
    seats: int = 10
    humans: int = 1
    speed: float = 1.0
    language: str = "uk"
    preset: str = "online"
    seed: int | None = None
    voice: bool = True
    video: bool = True  # the bots send their pictures (issue 17)


def demo_session(demo: DemoTable, *, ready: asyncio.Event | None = None) -> Any:
    """A plugin.server.run session: creates the table, seats the bots, prints the links;
    on stop the bots leave first (no reconnect attempts)."""

    @contextlib.asynccontextmanager
    async def session(hosting: Hosting, where: Listening) -> AsyncIterator[None]:
        server = hosting.server
        assert server.registry is not None
        settings = TableSettings(
            preset=demo.preset,
            language=demo.language,
            seats=demo.seats,
            seed=demo.seed if demo.seed is not None else secrets.randbits(31),
            overrides=scaled_timers(demo.preset, demo.speed),
        )
        table = await server.registry.create(settings, table_id=demo.table_id)
        links = table_links(server.signer, where.url, demo.table_id, demo.seats)
        bots = [
            SimPlayer(
                where.url,
                demo.table_id,
                seat["seat"],
                seat["token"],
                seed=settings.seed,
                lang=demo.language,
                voice=demo.voice,
                speech_seconds=max(1.0, 6.0 / demo.speed),
                think_seconds=max(0.3, 3.0 / demo.speed),
                video=demo.video,  # the demo shows what the video tiles do (issue 17)
            )
            for seat in links["seats"][demo.humans :]
        ]
        _print_links(links, demo, where.url, hosting.options.db)
        try:
            await asyncio.gather(*(bot.start() for bot in bots))
            print(f"autohost demo: {len(bots)} simulated players joined", flush=True)
            if demo.humans == 0:
                await table.submit(HOST, Start())
                print("autohost demo: the game has started (no human seats)", flush=True)
            if ready is not None:
                ready.set()
            yield
        finally:
            await asyncio.gather(*(bot.stop() for bot in bots), return_exceptions=True)

    return session


def _print_links(links: dict[str, Any], demo: DemoTable, base_url: str, db: object) -> None:
    print(f"autohost demo: table {links['id']} on {base_url} (db {db})", flush=True)
    print(f"  host console: {links['host']['link']}")
    print(f"  invite link:  {links['invite']['link']}")
    for seat in links["seats"]:
        who = "you" if seat["seat"] <= demo.humans else "bot"
        print(f"  seat {seat['seat']:>2} ({who}): {seat['link']}")
    print(f"  spectators:   {links['watch']['link']}")
    print(f"  OBS overlay:  {links['watch']['overlay']}")
    if demo.humans:
        print("Open the console to start the game (the big key, or the space bar).")
    print("Ctrl-C stops the demo.", flush=True)
