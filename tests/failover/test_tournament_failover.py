"""A tournament on two real servers sharing one real PostgreSQL (issue 34, "Robust like a
game"): its qualifying round is started through the first server, which makes and hosts
both tables, and is SIGKILLed in the middle of the round; the other server claims the
tables' leases and every game goes on to its end there (the simulated people's sockets
find it, as a page tries its peers), the round finishes by its signed sheets, the final is
seated from the standings and played on the survivor, and the standings published live
equal the recomputation from the club's records alone: nothing accepted was lost."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from plugin.cli.simulate import summarise
from plugin.sim.tournament import Plan, StagePlan, run
from tests.failover.conftest import Servers, events, host_of, leases

EVENTS_BEFORE_KILL = 25  # each game well under way (night zero behind it) when it dies


def test_a_server_killed_mid_round_loses_nothing_of_the_tournament(servers: Servers) -> None:
    first, second = servers(2)
    dsn = str(first.db)
    plan = Plan(players=20, tables=2, games=1, stages=(StagePlan("final", 10, 1, 1),),
                seed=5, seat_seconds=1, idle=0.05)  # fmt: skip
    killed: dict[str, Any] = {}

    async def during(stage: int, round_: int, tables: list[dict[str, Any]]) -> None:
        if (stage, round_) != (0, 0):
            return
        ids = [t["id"] for t in tables]
        for t in ids:  # made and hosted where the round was started
            assert await asyncio.to_thread(host_of, t, [first, second]) is first

        async def counts() -> dict[str, int]:  # each table's events in the shared log
            return {t: len(await asyncio.to_thread(events, dsn, t)) for t in ids}

        deadline = time.monotonic() + 60
        while min((await counts()).values()) < EVENTS_BEFORE_KILL:
            assert time.monotonic() < deadline, "the games did not get going"
            await asyncio.sleep(0.1)
        killed["events"] = await counts()
        held = await asyncio.to_thread(leases, dsn)
        killed["epochs"] = {t: held[t][1] for t in ids}
        first.kill()  # SIGKILL, mid-round: both tables' games are running there
        killed["at"] = time.monotonic()

    began = time.perf_counter()
    outcome = asyncio.run(run(plan, [first.base, second.base], admin_key=first.admin_key,
                              secret=first.secret.encode(), during=during))  # fmt: skip
    summary = summarise(plan, outcome, dsn, time.perf_counter() - began)
    assert summary["problems"] == [] and summary["ok"], summary
    assert summary["standings_equal_recompute"] and summary["incomplete_protocols"] == 0
    # Every input the server acked (players', hosts') is in its table's log.
    assert summary["acked_inputs"] > 100 * summary["games"] and summary["acked_not_logged"] == 0
    assert (summary["rounds"], summary["games"], summary["signed"]) == (2, 3, 3)

    qualifying = outcome.rounds[0]
    for game in qualifying.games:  # each went on from where it was, on the survivor
        assert game.reconnects > 0 and game.winner in ("city", "mafia", "draw"), game
        assert len(events(dsn, game.table)) > killed["events"][game.table]
        assert leases(dsn)[game.table][1] > killed["epochs"][game.table]  # claimed again
    # The final was seated, made and played with the first server dead all along.
    assert not first.alive() and second.alive()
    assert outcome.rounds[1].games[0].winner in ("city", "mafia", "draw")
