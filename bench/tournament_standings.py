"""A tournament's standings at the issue's scale (issue 34): 100 players, 10 tables, 10
qualifying rounds, a semi-final of 20 (2 tables, 2 games each) and a final of 10 (3 games),
every table linked to its round and its judge's sheet signed, the final's extras hidden;
written as the club's records, then:
- `tournament_standings_recompute_s`: the standings recomputed from the records alone,
  from scratch (plugin.tournament.standings.recompute: the fold, every final sheet scored);
- `tournament_standings_fold_s`: a server starting on the log (SQLite) folds the club and
  its tournaments, standings included (Tournaments.refresh on a new Club);
- `tournament_standings_update_ms`: one more signed sheet of a linked table until the
  standings document (what the page and the exports read) has it: durable in the log,
  folded, the document built; median of `--updates` (each a correction of a final game);
- `tournament_standings_document_ms`: the document alone (stages, overall, results).
The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from plugin.club import Club, ClubError, ClubState  # noqa: E402
from plugin.eventlog import EventLog, open_log  # noqa: E402
from plugin.seating import Budget, cost, optimise  # noqa: E402
from plugin.signing import Signer  # noqa: E402
from plugin.tournament import TournamentError, Tournaments, TournamentState, played  # noqa: E402
from plugin.tournament.exports import document  # noqa: E402
from plugin.tournament.standings import Live, recompute, top  # noqa: E402
from plugin.tournament.state import problem_of  # noqa: E402

DEAL = ("civilian",) * 6 + ("sheriff", "mafia", "mafia", "don")
SIGNER = Signer(b"bench-secret-0123456789")


def game(rng: random.Random, players: list[str]) -> dict[str, Any]:
    roles = list(DEAL)
    rng.shuffle(roles)
    seats = []
    for n, player in enumerate(players):
        out = rng.choice([None, None, "vote", "vote", "killed", "killed", "fouls"])
        night = rng.randint(1, 3) if out == "killed" else None
        seats.append({"seat": n + 1, "player": player, "role": roles[n], "out": out,
                      "night": night, "fouls": rng.randint(0, 3)})  # fmt: skip
    return {"winner": rng.choice(["city", "mafia"]), "best_move": None, "seats": seats,
            "date": "2026-12-05"}  # fmt: skip


def sheet(rng: random.Random) -> dict[str, Any]:
    extra = {}
    for _ in range(rng.randint(0, 2)):
        bonus = {"points": rng.choice([0.1, 0.25, -0.3, 0.5]), "comment": "bench"}
        extra[str(rng.randint(1, 10))] = [bonus]
    return {"extra": extra}


def tournament_records(seed: int, moves: int) -> list[dict[str, Any]]:
    """The roster and a whole tournament played and signed, as the questions answer it."""
    rng = random.Random(seed)
    club, state, live = ClubState(), TournamentState(), Live()
    records: list[dict[str, Any]] = []

    def take(record: dict[str, Any]) -> None:
        records.append(record)
        club.apply(record)
        state.apply(record)
        live.fold(record, state)

    for n in range(100):
        take(club.add_player({"nick": f"player{n:03}"}))
    stages = [{"name": "semi-final", "players": 20, "tables": 2, "games": 2},
              {"name": "final", "players": 10, "tables": 1, "games": 3}]  # fmt: skip
    fields = {"name": "Cup", "players": list(club.players), "tables": 10, "games": 10,
              "stages": stages, "hide_extras_from": "final"}  # fmt: skip
    take(state.create(club, fields))
    tournament = state.get("t1")
    games = 0
    for index, stage in enumerate(tournament.stages):
        try:
            chosen = top(state, live, "t1", index)
        except TournamentError:  # a tie at the cut: the organiser's choice, here the order
            rows = live.tables["t1"].stages[index - 1].rows()
            chosen = [row.player for row in rows[: stage.players]]
        problem = problem_of(stage, chosen, [])
        seating = optimise(problem, seed=seed, budget=Budget(moves=moves))
        take(state.seat("t1", index, chosen, seating, cost(problem, seating)))
        for r, tables in enumerate(stage.seating):
            take(state.start_round("t1", index, r))
            for t, seats in enumerate(tables, 1):
                games += 1
                take(played.link_table(state, "t1", index, r, t, f"g{games}"))
                players = [stage.seated[i] for i in seats]
                take(club.sign(f"g{games}", "2026", "fiim", game(rng, players), sheet(rng),
                               "judge:p1"))  # fmt: skip
    assert tournament.over
    return records


def measure(where: str | Path, records: list[dict[str, Any]], updates: int) -> dict[str, float]:
    log = open_log(where)
    assert isinstance(log, EventLog)
    try:
        log.import_club(1, records, source="bench")
        started = time.perf_counter()
        tournaments = Tournaments(Club(log, SIGNER))
        tournaments.refresh()
        fold = time.perf_counter() - started
        nick = tournaments.club.state.nick_of
        started = time.perf_counter()
        doc = document(tournaments.state, tournaments.live, "t1", nick, judge=False)
        document_ms = (time.perf_counter() - started) * 1000
        assert len(doc["results"]) == 100
        last = max(tournaments.state.get("t1").tables, key=lambda t: int(t[1:]))
        rng, times = random.Random(7), []
        for _ in range(updates):
            signed = tournaments.club.state.signed[last]
            fix = sheet(rng)
            started = time.perf_counter()
            try:
                tournaments.club.change(
                    lambda s, f=fix, g=signed.game: s.correct(last, f, g, "bench", "admin"),
                    source="bench",
                )
            except ClubError:  # the same sheet again: no change to correct
                continue
            tournaments.refresh()
            document(tournaments.state, tournaments.live, "t1", nick, judge=False)
            times.append(time.perf_counter() - started)
    finally:
        log.close()
    return {"fold_s": round(fold, 3), "document_ms": round(document_ms, 2),
            "update_ms": round(statistics.median(times) * 1000, 2)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--moves", type=int, default=200_000, help="seating moves per stage")
    args = parser.parse_args()
    records = tournament_records(seed=1, moves=args.moves)
    started = time.perf_counter()
    _, tables = recompute(records)
    recompute_s = time.perf_counter() - started
    assert tables["t1"].overall.games == 100 + 4 + 3
    with tempfile.TemporaryDirectory() as folder:
        sqlite = measure(Path(folder) / "club.db", records, args.updates)
    print(f"100 players, 107 games, sqlite: {sqlite}; recompute {recompute_s:.3f} s", flush=True)
    print(json.dumps({
        "tournament_standings_recompute_s": round(recompute_s, 3),
        "tournament_standings_fold_s": sqlite["fold_s"],
        "tournament_standings_update_ms": sqlite["update_ms"],
        "tournament_standings_document_ms": sqlite["document_ms"],
    }))  # fmt: skip


if __name__ == "__main__":
    main()
