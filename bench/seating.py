"""Tournament seating: our optimiser against mafiaratings' greedy-and-swap (issue 34).

On a fixed set of cases (players, tables per round, games per player, keep-apart pairs)
both algorithms seat the same problem; each case prints the cost parts (meetings, seats,
tables, total: `plugin.seating.cost`) of both, the ratio ours/baseline, and when everybody
plays every round the proven floor of meetings + tables (`meetings_tables_lower_bound`:
no seating goes below it, so it bounds the ratio any optimiser can reach). The last line is
one JSON object: `seating_cost_ratio_max` (the worst case's ratio; goal <= 0.8) and
`seating_seconds_max` (our slowest seating on one core; goal <= 60 s).

Our optimiser gets a time budget per case (`--seconds`, the largest cases `--seconds-large`);
both are seeded, so a run is repeatable up to where the clock stops the annealing.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from plugin.seating import (
    Budget,
    Problem,
    baseline,
    check_seating,
    cost,
    meetings_tables_lower_bound,
    optimise,
)

# (players, tables, games, keep-apart pairs)
CASES: list[tuple[int, int, int, tuple[tuple[int, int], ...]]] = [
    (10, 1, 10, ()),
    (20, 2, 10, ()),
    (30, 3, 9, ()),
    (40, 4, 10, ()),
    (50, 5, 10, ()),
    (60, 3, 10, ()),  # half the players sit each round out
    (25, 2, 8, ()),  # five players sit each round out
    (100, 10, 10, ()),
    # club-mates: five pairs and a trio of one club
    (40, 4, 10, ((0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (10, 12), (11, 12))),
]
LARGE = 50  # players from which a case gets --seconds-large


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="our budget, small cases")
    parser.add_argument("--seconds-large", type=float, default=30.0, help="... from 50 players")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="2 s per case")
    args = parser.parse_args()
    if args.quick:
        args.seconds = args.seconds_large = 2.0
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(
        f"{'case':<22} {'algorithm':<9} {'meetings':>9} {'seats':>8} {'tables':>8} "
        f"{'total':>9} {'seconds':>8} ratio  floor of meetings + tables"
    )
    ratios: list[float] = []
    slowest = 0.0
    for players, tables, games, keep in CASES:
        problem = Problem.build(players=players, tables=tables, games=games, keep_apart=keep)
        name = f"{players}p {tables}t {games}g" + (f" {len(keep)} apart" if keep else "")
        started = time.perf_counter()
        theirs = baseline(problem, seed=args.seed)
        their_time = time.perf_counter() - started
        seconds = args.seconds_large if players >= LARGE else args.seconds
        started = time.perf_counter()
        ours = optimise(
            problem,
            seed=args.seed,
            budget=Budget(moves=10**9, seconds=seconds, clock=time.perf_counter),
        )
        our_time = time.perf_counter() - started
        check_seating(problem, ours)
        slowest = max(slowest, our_time)
        their_cost, our_cost = cost(problem, theirs), cost(problem, ours)
        # both perfect (0): ours cannot do better, counted as meeting the goal
        ratio = our_cost.total / their_cost.total if their_cost.total else our_cost.total
        ratios.append(ratio)
        floor = meetings_tables_lower_bound(problem)
        for label, c, took, shown in (
            ("baseline", their_cost, their_time, ""),
            ("ours", our_cost, our_time, f"{ratio:.3f}" + (f"  {floor:.1f}" if floor else "")),
        ):
            print(
                f"{name:<22} {label:<9} {c.meetings:>9.1f} {c.seats:>8.1f} {c.tables:>8.1f} "
                f"{c.total:>9.1f} {took:>8.1f} {shown}"
                + (f" (keep-apart meetings {c.keep_apart_meetings})" if keep else ""),
                flush=True,
            )
    print(
        json.dumps(
            {
                "seating_cost_ratio_max": round(max(ratios), 3),
                "seating_seconds_max": round(slowest, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
