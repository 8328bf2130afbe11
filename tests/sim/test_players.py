"""Simulated players at a real server (uvicorn on loopback, the real protocol): ten bots
play night zero and the first day up to and through its vote, and a bot whose socket
drops reconnects and goes on. Audio is left to the browser tests and the demo test."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from plugin.eventlog import log_opener
from plugin.host.inputs import HOST, Next, Start
from plugin.host.settings import TableSettings
from plugin.signing import table_links
from plugin.sim import SimPlayer
from plugin.sim.speed import scaled_timers
from plugin.web.app import ServerConfig, create_app
from testing import serve


@contextlib.asynccontextmanager
async def _table(tmp_path: Path) -> AsyncIterator[tuple[str, Any, dict[str, Any]]]:
    app = create_app(
        ServerConfig(
            db_path=tmp_path / "sim.db",
            log=log_opener(tmp_path / "sim.db"),
            admin_key="sim-admin-key-0123456789",
            secret=b"sim-secret-0123456789abcdef",
        )
    )
    async with serve(app) as url:
        registry = app.state.server.registry
        # 60 s speeches: 2 s; the vote's window stays long (a loaded machine delays the
        # bots' views), the test closes it as the live host would, once everybody voted.
        overrides = {**scaled_timers("online", 30), "simultaneous_window_seconds": 120}
        table = await registry.create(
            TableSettings(language="en", seats=10, seed=4, overrides=overrides)
        )
        yield url, table, table_links(app.state.server.signer, url, table.id, 10)


def _log_events(table: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(e.source, e.record) for e in table.log.entries(table.id)]


async def test_simulated_players_play_the_first_day_through_its_vote(tmp_path: Path):
    async with _table(tmp_path) as (url, table, links):
        bots = [
            SimPlayer(url, table.id, s["seat"], s["token"], seed=7, audio=False,
                      speech_seconds=0.3, think_seconds=0.3)
            for s in links["seats"]
        ]  # fmt: skip
        try:
            await asyncio.gather(*(bot.start() for bot in bots))
            await asyncio.gather(
                *(bot.wait_for(lambda v: v["phase"] == "lobby", 10) for bot in bots)
            )
            assert (await table.submit(HOST, Start())).ok
            # Night zero passes on its timers; the day's speeches are the bots' (they pass).
            async with asyncio.timeout(120):
                while table.state.phase.value not in ("shot", "over"):
                    if table.state.phase.value == "voting" and not table.state.voters:
                        await table.submit(HOST, Next())  # all have voted
                    await asyncio.sleep(0.1)
        finally:
            await asyncio.gather(*(bot.stop() for bot in bots))
        records = _log_events(table)
        by_seat = [(src, r["type"]) for src, r in records if src.isdigit()]
        kinds = {kind for _, kind in by_seat}
        assert {"pass", "nominate"} <= kinds, kinds
        votes = [r for src, r in records if r["type"] == "vote"]
        assert votes, "\n".join(f"{s} {r}" for s, r in records)
        for src, record in records:
            if record["type"] == "vote":
                assert int(src) == record["voter"] != record["candidate"]
        # Every vote a bot sent was accepted: nothing it did was refused as illegal.
        refused = [e for bot in bots for e in bot.errors if e.get("error") != "stale_timer"]
        assert not [e for e in refused if "vote" in (e.get("message") or "")], refused
        # Simultaneous voting: all ten vote in the first round (a tie adds a revote).
        assert len({v["voter"] for v in votes[:10]}) == 10 and len(votes) % 10 == 0
        assert table.state.vote is None or table.state.vote.outcome is not None


async def test_a_bot_whose_socket_drops_reconnects_and_sees_the_game_go_on(tmp_path: Path):
    async with _table(tmp_path) as (url, table, links):
        seat = links["seats"][0]
        bot = SimPlayer(url, table.id, 1, seat["token"], seed=1, audio=False)
        await bot.start()
        try:
            await bot.wait_for(lambda v: v["phase"] == "lobby", 10)
            states = bot.states
            await bot.drop_connection()
            assert (await table.submit(HOST, Start())).ok
            await bot.wait_for(lambda v: v["phase"] == "black_meeting", 20)
            assert bot.states > states
            assert bot.view is not None and bot.view["me"]["seat"] == 1
        finally:
            await bot.stop()
