"""A whole tournament played against a real server by simulated people (issue 34): an
organiser, the players, each table's host and a judge, every one of them through the
server's own REST API and table protocol, nothing written behind its back.

    run(Plan(...), urls, admin_key=..., secret=...) -> Outcome

1. The organiser puts the players on the club's roster, creates the tournament (its
   qualifying stage and the later stages), and seats each stage when its turn comes: the
   first stage everybody, a later one the top of the standings of the stage before (the
   server takes them from its standings; a tie at the cut is broken by the organiser, who
   takes the players in the order the standings list them).
2. Each round is started through the server (`POST .../start`): the server makes and
   hosts every table of it. Each table is then played to its end by its ten simulated
   players and its simulated host (plugin.sim.tables), all tables of a round at once.
3. A simulated judge signs each table's sheet through the club's sheet endpoint, with
   now and then an extra point (a comment, as the sheet wants), so the round finishes by
   its sheets; the next round starts once it has.

The seat tokens are the tables' first links, made with the server's secret as the
server makes them (plugin.signing.table_links), as the demo does: the players' own
tournament links are another part of issue 34. What the server answered, and the moments
each round's tables began, are in the Outcome; checking the standings against the records
is the caller's (plugin.cli.simulate: plugin.tournament.standings.recompute).
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from plugin.signing import Signer, table_links

from .tables import Played, SimTable

GAME_SECONDS = 600.0  # the longest one simulated game may take before it is reported


@dataclass(frozen=True, slots=True)
class StagePlan:
    name: str
    players: int
    tables: int
    games: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """The tournament to play: its players and qualifying stage, then the later stages."""

    players: int = 100
    tables: int = 10
    games: int = 10  # qualifying games per player
    stages: tuple[StagePlan, ...] = (StagePlan("semi-final", 20, 2, 1),
                                     StagePlan("final", 10, 1, 1))  # fmt: skip
    seed: int = 0
    seat_seconds: float = 5.0  # each stage's seating's time (the optimiser's deadline)
    preset: str = "classic"
    idle: float = 0.1  # the simulated host's patience (s) before he moves a game on

    def fields(self, nicks: Sequence[str]) -> dict[str, Any]:
        """The tournament's creation as the organiser asks for it."""
        later = [{"name": s.name, "players": s.players, "tables": s.tables, "games": s.games}
                 for s in self.stages]  # fmt: skip
        return {"name": "Simulated Cup", "players": list(nicks), "tables": self.tables,
                "games": self.games, "stages": later, "preset": self.preset}  # fmt: skip


@dataclass(slots=True)
class RoundPlayed:
    stage: int
    round: int
    tables: list[str]
    start_s: float  # the start's request until every table's game had begun (its bot speaks)
    seconds: float  # the start's request until the last sheet was signed
    games: list[Played]


@dataclass(slots=True)
class Outcome:
    tournament: str
    rounds: list[RoundPlayed] = field(default_factory=list)
    standings: dict[str, Any] = field(default_factory=dict)  # the server's, as a judge sees
    signed: list[str] = field(default_factory=list)  # every game signed
    problems: list[str] = field(default_factory=list)  # what went wrong (none: a clean run)


class Refused(Exception):
    """The server refused an organiser's or judge's request that had to be accepted."""


class Organiser:
    """The organiser's and the judge's requests, to whichever of the servers answers."""

    def __init__(self, urls: Sequence[str], admin_key: str) -> None:
        self.urls = list(urls)
        self.http = httpx.AsyncClient(headers={"Authorization": f"Bearer {admin_key}"},
                                      timeout=120)  # fmt: skip

    async def ask(self, method: str, path: str, body: Any = None,
                  ok: tuple[int, ...] = (200, 201)) -> httpx.Response:  # fmt: skip
        """The first answer of a server that is up (a dead server is passed over)."""
        last: Exception | None = None
        for url in self.urls:
            try:
                answer = await self.http.request(method, url + path, json=body)
            except httpx.TransportError as error:
                last = error
                continue
            if answer.status_code not in ok:
                raise Refused(f"{method} {path}: {answer.status_code} {answer.text[:300]}")
            return answer
        raise Refused(f"{method} {path}: no server answers ({last!r})")

    async def close(self) -> None:
        await self.http.aclose()


async def setup(org: Organiser, plan: Plan) -> str:
    """The club's roster and the tournament; its id."""
    await org.ask("POST", "/api/club/settings", {"name": "Simulated club", "language": "uk"})
    nicks = [f"Sim{n:03d}" for n in range(1, plan.players + 1)]
    for nick in nicks:
        await org.ask("POST", "/api/club/players", {"nick": nick})
    made = await org.ask("POST", "/api/club/tournaments", plan.fields(nicks))
    return str(made.json()["id"])


async def seat(org: Organiser, plan: Plan, tid: str, stage: int) -> dict[str, Any]:
    """Seat a stage (a later one from the standings); the tournament as the server has it."""
    body: dict[str, Any] = {"stage": stage, "seed": plan.seed, "seconds": plan.seat_seconds}
    answer = await org.ask("POST", f"/api/club/tournaments/{tid}/seat", body, ok=(201, 409))
    if answer.status_code == 409 and answer.json().get("error") == "tie_at_cut":
        standings = (await org.ask("GET", f"/api/club/tournaments/{tid}/standings.json")).json()
        wanted = plan.stages[stage - 1].players
        body["players"] = [row["player"] for row in standings["stages"][stage - 1]["rows"]]
        body["players"] = body["players"][:wanted]
        answer = await org.ask("POST", f"/api/club/tournaments/{tid}/seat", body)
    elif answer.status_code != 201:
        raise Refused(f"seating stage {stage + 1}: {answer.text[:300]}")
    return dict(answer.json())


async def sign(org: Organiser, table: str, rng: random.Random) -> None:
    """The judge reads the table's sheet (the protocol's parts) and signs it, now and then
    with an extra point for a seat."""
    draft = (await org.ask("GET", f"/api/club/sheet/{table}")).json()
    sheet: dict[str, Any] = {}
    step, top = draft["range"]["step"], draft["range"]["max"]
    if rng.random() < 0.5 and step > 0 and top > 0:
        points = round(step * rng.randint(1, max(1, round(top / step))), 2)
        seat = str(rng.randint(1, len(draft["game"]["seats"])))
        sheet["extra"] = {seat: [{"points": min(points, top), "comment": "simulated judge"}]}
    await org.ask("POST", f"/api/club/sheet/{table}", {"sheet": sheet})


DuringRound = Callable[[int, int, list[dict[str, Any]]], Awaitable[None]]
BeforeStart = Callable[[dict[str, Any]], Awaitable[None]]


async def play_round(org: Organiser, plan: Plan, tid: str, stage: int, round_: int, *,
                     secret: bytes, rng: random.Random,
                     during: DuringRound | None = None,
                     before_start: BeforeStart | None = None) -> RoundPlayed:  # fmt: skip
    """Start a round, play every table of it at once, sign every sheet. `before_start(links)`:
    what a table's host waits for, besides its players, before he starts its game."""
    began = time.perf_counter()
    body = {"stage": stage, "round": round_}
    started = (await org.ask("POST", f"/api/club/tournaments/{tid}/start", body)).json()
    signer = Signer(secret)
    sims = [
        SimTable(org.urls, table_links(signer, org.urls[0], t["id"], len(t["seats"])),
                 seed=rng.randrange(2**31), idle=plan.idle)
        for t in started["tables"]
    ]  # fmt: skip
    playing = [
        asyncio.create_task(s.play(GAME_SECONDS, None if before_start is None
                                   else functools.partial(before_start, s.links)))
        for s in sims
    ]  # fmt: skip
    if during is not None:
        await during(stage, round_, started["tables"])
    games = list(await asyncio.gather(*playing))
    begun = [g.started for g in games if g.started is not None]
    start_s = max(begun) - began if len(begun) == len(games) else float("nan")
    for game in games:
        if not game.errors:
            await sign(org, game.table, rng)
    return RoundPlayed(stage, round_, [t["id"] for t in started["tables"]], start_s,
                       time.perf_counter() - began, games)  # fmt: skip


async def run(plan: Plan, urls: Sequence[str], *, admin_key: str, secret: bytes,
              during: DuringRound | None = None,
              progress: Callable[[str], None] = lambda line: None) -> Outcome:  # fmt: skip
    """Play the whole tournament (see the module); `during(stage, round, tables)` runs
    while each round's games are played (a test kills a server there)."""
    rng = random.Random(plan.seed)
    org = Organiser([u.rstrip("/") for u in urls], admin_key)
    try:
        tid = await setup(org, plan)
        outcome = Outcome(tournament=tid)
        for stage in range(1 + len(plan.stages)):
            seated = await seat(org, plan, tid, stage)
            rounds = len(seated["stages"][stage]["seating"])
            for round_ in range(rounds):
                played = await play_round(org, plan, tid, stage, round_, secret=secret,
                                          rng=rng, during=during)  # fmt: skip
                outcome.rounds.append(played)
                for game in played.games:
                    outcome.problems += [f"table {game.table}: {e}" for e in game.errors]
                outcome.signed += [g.table for g in played.games if not g.errors]
                name = seated["stages"][stage]["name"]
                progress(f"{name} round {round_ + 1}/{rounds}: {len(played.games)} tables "
                         f"played in {played.seconds:.1f} s (all begun after "
                         f"{played.start_s:.2f} s)")  # fmt: skip
            now = (await org.ask("GET", f"/api/club/tournaments/{tid}")).json()
            finished = now["stages"][stage]["finished"]
            if len(finished) != rounds:
                outcome.problems.append(f"stage {stage + 1}: rounds finished {finished} "
                                        f"of {rounds} after every sheet was signed")  # fmt: skip
        standings = await org.ask("GET", f"/api/club/tournaments/{tid}/standings.json")
        outcome.standings = standings.json()
        return outcome
    finally:
        await org.close()
