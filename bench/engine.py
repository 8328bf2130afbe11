"""Whole games per second through the rules engine, on one core.

Two figures per preset: `replay`, the engine alone applying the recorded events of whole
games (what a restart does with the log); `simulate`, the engine plus simulated players
choosing random legal actions (`autohost simulate`). Prints a table and, last, one JSON line.

The replay is timed `--repeat` times and the fastest pass counts, as `timeit` does: on a
shared machine the slower passes measure the neighbours, not the engine.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from plugin.rules import Rules, apply, new_game
from plugin.sim.simulate import GameOutcome, _preset, play


def time_replay(rules: Rules, outcomes: list[GameOutcome]) -> float:
    """Seconds to replay every game's recorded events through `apply`."""
    started = time.perf_counter()
    for seed, outcome in enumerate(outcomes):
        state = new_game(rules, players=10, seed=seed)
        for event in outcome.log or ():
            state, _ = apply(state, event)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per preset")
    parser.add_argument("--quick", action="store_true", help="200 games per preset")
    parser.add_argument("--repeat", type=int, default=5, help="replay passes (fastest counts)")
    args = parser.parse_args()
    games = 200 if args.quick else args.games
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rows = []
    replay_games = replay_time = 0.0
    for preset in ("classic", "online", "fiim"):
        play(preset, 0)  # warm up: imports, preset loading
        started = time.perf_counter()
        outcomes = [play(preset, seed, keep_log=True) for seed in range(games)]
        simulated = time.perf_counter() - started
        errors = sum(o.error is not None for o in outcomes)
        events = sum(o.events for o in outcomes)
        rules = _preset(preset)
        replayed = min(time_replay(rules, outcomes) for _ in range(max(1, args.repeat)))
        replay_games += games
        replay_time += replayed
        rows.append((preset, games, games / replayed, games / simulated, events / games, errors))
    print(f"{'preset':<8} {'games':>6} {'replay/s':>9} {'simulate/s':>11} {'events':>7} errors")
    for preset, count, replay, simulate, per_game, errors in rows:
        print(f"{preset:<8} {count:>6} {replay:>9.0f} {simulate:>11.0f} {per_game:>7.0f} {errors}")
    print(
        json.dumps(
            {
                "engine_games_per_second": round(replay_games / replay_time, 1),
                "simulate_games_per_second": round(
                    sum(r[1] for r in rows) / sum(r[1] / r[3] for r in rows), 1
                ),
                "engine_errors": sum(r[5] for r in rows),
            }
        )
    )


if __name__ == "__main__":
    main()
