"""The club's results at scale (issue 33): a season of signed games recomputed from the log,
and one signed game updating them, on SQLite and PostgreSQL.

A season of `--games` games (default 10,000) among `--players` players (300) is written as
the club's records (`club_records`, one transaction); then:
- `standings_recompute_s`: a new Club folds every record from the log (reads, the roster,
  every game's points into the season's standings, every rating in signing order);
- `standings_update_ms`: one more game signed through `Club.change` (durable in the log,
  then folded: its points put in the standings, its ratings updated), median of `--updates`;
- `standings_rows_ms`: the ranked rows of the season (what the page and the CSV read);
- `standings_public_rows_ms`: the same as the public reads them while a tournament hides
  the judges' extras of `--updates` of its games (issue 34): the first read after a signing,
  which makes the public view (the season's standings copied, those games scored again
  without the judges' parts) and ranks it;
- `ratings_recompute_s`: every rating replayed from the first game, in signing order (the
  first read of the ratings after a start pays it, and the read after a correction that
  changes who played or the result);
each on SQLite (`..._sqlite`... keys without a suffix) and PostgreSQL (`..._postgres`).
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

from plugin.club import Club, ClubState  # noqa: E402
from plugin.eventlog import EventLog, open_log  # noqa: E402
from plugin.signing import Signer  # noqa: E402
from testing.postgres import PostgresServer, binaries  # noqa: E402

DEAL = ("civilian",) * 6 + ("sheriff", "mafia", "mafia", "don")
SIGNER = Signer(b"bench-secret-0123456789")


def game_record(rng: random.Random, players: list[str]) -> dict[str, Any]:
    roles = list(DEAL)
    rng.shuffle(roles)
    seated = rng.sample(players, 10)
    seats = []
    for n in range(10):
        out = rng.choice([None, None, "vote", "vote", "killed", "killed", "fouls"])
        night = rng.randint(1, 3) if out == "killed" else None
        seats.append({"seat": n + 1, "player": seated[n], "role": roles[n], "out": out,
                      "night": night, "fouls": rng.randint(0, 3)})  # fmt: skip
    first = [s["seat"] for s in seats if s["night"] == 1 and s["role"] in ("civilian", "sheriff")]
    best = {"by": first[0], "correct": rng.randint(0, 3)} if first else None
    return {"winner": rng.choice(["city", "mafia"]), "best_move": best, "seats": seats,
            "date": "2026-12-05"}  # fmt: skip


def sheet(rng: random.Random) -> dict[str, Any]:
    extra = {}
    for _ in range(rng.randint(0, 2)):
        bonus = {"points": rng.choice([0.1, 0.25, -0.3, 0.5]), "comment": "bench"}
        extra[str(rng.randint(1, 10))] = [bonus]
    return {"extra": extra}


def season_records(games: int, players: int, seed: int) -> list[dict[str, Any]]:
    """The roster and a season of signed games, as the club's questions answer them."""
    rng = random.Random(seed)
    state = ClubState()
    records = []
    for n in range(players):
        record = state.add_player({"nick": f"player{n:04}"})
        state.apply(record)
        records.append(record)
    ids = list(state.players)
    for n in range(games):
        record = state.sign(f"g{n}", "2026", "fiim", game_record(rng, ids), sheet(rng), "judge:p1")
        state.apply(record)
        records.append(record)
    return records


def measure(where: str | Path, records: list[dict[str, Any]], updates: int) -> dict[str, float]:
    log = open_log(where)
    assert isinstance(log, EventLog)
    try:
        log.import_club(1, records, source="bench")
        started = time.perf_counter()
        club = Club(log, SIGNER)
        club.refresh()
        recompute = time.perf_counter() - started
        assert club.results.seasons["2026"].games == sum(1 for r in records if "game_id" in r)
        started = time.perf_counter()
        club.results.ratings.of("p1")  # the first read rates every game, in signing order
        rerate = time.perf_counter() - started
        rng = random.Random(99)
        ids = list(club.state.players)
        times = []
        for n in range(updates):
            game, judged = game_record(rng, ids), sheet(rng)
            started = time.perf_counter()
            club.change(
                lambda s, n=n, g=game, j=judged: s.sign(f"u{n}", "2026", "fiim", g, j, "judge:p1"),
                source="bench",
            )
            club.results.ratings.of("p1")  # the ratings take the game in
            times.append(time.perf_counter() - started)
        started = time.perf_counter()
        rows = club.results.seasons["2026"].rows()
        rows_ms = (time.perf_counter() - started) * 1000
        assert len(rows) == len(ids)
        hidden = frozenset(f"u{n}" for n in range(updates))
        started = time.perf_counter()
        public = club.results.public_standings("2026", club.state.signed, hidden).rows()
        public_ms = (time.perf_counter() - started) * 1000
        assert len(public) == len(ids) and public != rows
    finally:
        log.close()
    return {"recompute_s": round(recompute, 3),
            "update_ms": round(statistics.median(times) * 1000, 2),
            "update_ms_max": round(max(times) * 1000, 2), "rows_ms": round(rows_ms, 2),
            "public_rows_ms": round(public_ms, 2), "rerate_s": round(rerate, 3)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    records = season_records(args.games, args.players, seed=1)
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        sqlite = measure(Path(folder) / "club.db", records, args.updates)
    print(f"sqlite, {args.games} games, {args.players} players: {sqlite}", flush=True)
    figures.update({
        "standings_recompute_s": sqlite["recompute_s"], "standings_update_ms": sqlite["update_ms"],
        "standings_update_ms_max": sqlite["update_ms_max"],
        "standings_rows_ms": sqlite["rows_ms"], "ratings_recompute_s": sqlite["rerate_s"],
        "standings_public_rows_ms": sqlite["public_rows_ms"],
    })  # fmt: skip
    bin_dir = None if args.no_postgres else binaries()
    if bin_dir is not None:
        postgres = PostgresServer(bin_dir)
        try:
            postgres.start()
            shared = measure(postgres.new_database(), records, args.updates)
        finally:
            postgres.remove()
        print(f"postgres, {args.games} games, {args.players} players: {shared}", flush=True)
        figures.update({
            "standings_recompute_s_postgres": shared["recompute_s"],
            "standings_update_ms_postgres": shared["update_ms"],
        })  # fmt: skip
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
