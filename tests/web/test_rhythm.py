"""The night does not leak through the state's rhythm (issue 31; plugin/web/rhythm.py).

The outside check: each shot and each don's or sheriff's check sent every player and
spectator a new state, so a civilian counting the states on his socket learned how many
black players shot and whether the don and the sheriff were alive, which the rules hide
(GAME.md: "a dead don's or sheriff's check still takes its time but accepts nothing").

Here whole games are played by the real table (the engine, a SQLite log) into the real hub,
twice: the same public course (the same kills, the same moments), with the hidden actions
drawn twice independently (who shot whom, in which order, at which moment; whether the don
and the sheriff checked, and whom). Every seat that is neither black nor the sheriff, the
spectators and the stream overlay must receive the very same messages in both games.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plugin.eventlog import EventLog, SqliteStore
from plugin.host.inputs import HOST, DonCheck, Input, SheriffCheck, Shoot, Start
from plugin.host.settings import TableSettings
from plugin.host.table import Table
from plugin.host.views import Viewer
from plugin.web.hub import Connection, Hub
from testing import FakeClock, FakeRoom, FakeVoice

ROLES = {1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"}
BLACK = (1, 2, 3)
WATCHED: list[Viewer] = [5, 6, 7, 8, 9, 10, None, "stream"]


@dataclass(frozen=True, slots=True)
class Hidden:
    """One way to play a night's hidden part: (delay, sender, input) in order; the delay
    is how long the clock runs before it, inside the phase."""

    shots: list[tuple[float, int, int]]  # (delay, shooter, target index among the alive)
    don: tuple[float, int] | None  # (delay, target index)
    sheriff: tuple[float, int] | None


def hidden(kill: bool) -> st.SearchStrategy[Hidden]:
    """A night's hidden actions: every black player shooting the same seat (a kill; the
    order and moments drawn), or shots that miss (some black player never shoots)."""
    delay = st.floats(min_value=0, max_value=2.5)
    target = st.integers(min_value=0, max_value=9)
    check = st.none() | st.tuples(delay, target)
    if kill:
        shots = st.permutations(BLACK).flatmap(
            lambda order: st.lists(delay, min_size=3, max_size=3).map(
                lambda delays: [(d, s, -1) for d, s in zip(delays, order, strict=True)]
            )
        )
    else:
        shooter = st.sampled_from(BLACK[:2])  # seat 3 never shoots: a miss
        shots = st.lists(st.tuples(delay, shooter, target), max_size=4)
    return st.builds(Hidden, shots, check, check)


@st.composite
def nights(draw: st.DrawFn) -> list[tuple[int | None, Hidden, Hidden]]:
    """Up to three nights: the public outcome (the victim's index among the red seats
    alive, or None: a miss), and two independent hidden plays of it."""
    played = []
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        victim = draw(st.none() | st.integers(min_value=0, max_value=9))
        played.append((victim, draw(hidden(victim is not None)), draw(hidden(victim is not None))))
    return played


class Game:
    """One table of the real engine, log and hub, with the watched viewers connected."""

    def __init__(self, path: Path) -> None:
        self.settings = TableSettings(preset="online", language="uk", seats=10, roles=ROLES)
        self.log = EventLog(SqliteStore(path))
        self.log.create_table("t1", self.settings.to_record())
        self.clock, self.hub = FakeClock(), Hub()
        self.table = Table(
            "t1", self.settings, log=self.log, clock=self.clock, room=FakeRoom(),
            voice=FakeVoice(), hub=self.hub,
        )  # fmt: skip
        self.received: dict[Viewer, list[dict[str, Any]]] = {v: [] for v in WATCHED}
        self.connections: list[Connection] = []

    async def start(self) -> None:
        await self.table.start()
        for viewer in [*WATCHED, HOST, *BLACK, 4]:
            inbox = self.received.setdefault(viewer, [])
            connection = Connection("t1", viewer, _appender(inbox))
            self.hub.attach(connection, self.table.snapshot())
            self.connections.append(connection)
        await self.drain()
        await self.submit(HOST, Start())

    async def drain(self) -> None:
        """Let every connection send what it holds (so no state is merged into a later one
        because of how this test yields)."""
        await self.table.settle()
        for _ in range(3):
            for connection in self.connections:
                await connection.flush()
            await asyncio.sleep(0)

    async def submit(self, sender: int | str, given: Input) -> None:
        await self.table.submit(sender, given)  # type: ignore[arg-type]
        await self.drain()

    async def run(self, seconds: float) -> None:
        self.clock.advance(seconds)
        await self.drain()

    async def expire(self) -> None:
        remaining = self.table.countdown.remaining()
        assert remaining is not None, f"no timer runs at {self.table.state.phase}"
        await self.run(remaining)

    async def until(self, phase: str) -> None:
        for _ in range(100):
            if self.phase == phase or self.table.state.over:
                return
            await self.expire()
        raise AssertionError(f"never reached {phase}")

    @property
    def phase(self) -> str:
        return str(self.table.state.phase.value)

    async def night(self, victim: int | None, plan: Hidden) -> None:
        await self.until("shot")
        if self.table.state.over:
            return
        alive = sorted(self.table.state.alive)
        red = [seat for seat in alive if seat not in BLACK]
        target = red[victim % len(red)] if victim is not None else None
        for delay, shooter, index in plan.shots:
            await self.run(delay)
            shot = target if target is not None and index < 0 else alive[index % len(alive)]
            await self.submit(shooter, Shoot(target=shot))
        await self.until("don_check")
        if plan.don is not None:
            await self.run(plan.don[0])
            await self.submit(1, DonCheck(target=alive[plan.don[1] % len(alive)]))
        await self.until("sheriff_check")
        if plan.sheriff is not None:
            await self.run(plan.sheriff[0])
            await self.submit(4, SheriffCheck(target=alive[plan.sheriff[1] % len(alive)]))
        await self.until("speech")

    async def close(self) -> None:
        for connection in self.connections:
            await self.hub.detach(connection, None)
        await self.table.stop()
        self.log.close()


def _appender(inbox: list[dict[str, Any]]) -> Callable[[bytes], Any]:
    async def send(data: bytes) -> None:
        inbox.append(json.loads(data))

    return send


async def play(path: Path, course: list[tuple[int | None, Hidden, Hidden]], which: int) -> Game:
    game = Game(path)
    await game.start()
    try:
        for victim, *plans in course:
            await game.night(victim, plans[which])
    finally:
        await game.close()
    return game


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(course=nights())
def test_a_seat_that_may_not_know_the_night_receives_the_same_whatever_happened_in_it(
    tmp_path_factory: Any, course: list[tuple[int | None, Hidden, Hidden]]
) -> None:
    folder = tmp_path_factory.mktemp("rhythm")
    first = asyncio.run(play(folder / "a.db", course, 0))
    second = asyncio.run(play(folder / "b.db", course, 1))
    # The same public course: the same kills, the same end.
    assert first.table.state.alive == second.table.state.alive
    for viewer in WATCHED:
        one, other = first.received[viewer], second.received[viewer]
        assert len(one) == len(other), (viewer, len(one), len(other))
        for n, (a, b) in enumerate(zip(one, other, strict=True)):
            assert a == b, (viewer, n, a, b)
