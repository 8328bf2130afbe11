"""Our seating optimiser: simulated annealing on the meetings and the table numbers, then
exact assignments and Kempe chains for the seat numbers.

Theory of operation. The cost (`plugin.seating.cost`) has three parts. The meetings depend
only on who sits with whom in each round; the seats only on the order at each table; the
tables on who sits at which table number. So:

1. A first seating: each round, the players with the most games left (the sit-outs spread
   evenly), each at the table he has played least, keep-apart partners apart where the
   greedy finds room.
2. Simulated annealing on meetings + tables. Moves: two players of different tables of a
   round trade places; a rectangle (that swap, and the swap back in a round where the two
   sit at each other's tables: the games per table stay, only the meetings change); two
   tables of a round trade numbers; when some sit a round out, a plays b's game in one
   round and b plays a's in another. A move that would seat keep-apart partners together
   is never made (the hard constraint); one that parts them is welcome (their pair weighs
   100× per meeting). Geometric cooling over the budget; the best seating seen is kept.
3. Seat numbers: for one table at a time, the cheapest assignment of its ten players to
   the ten seats given every other game (Hungarian method), sweep after sweep; then Kempe
   chains (a player trades two seat numbers at one table, the one who loses his number
   trades it back at another table, ...), which fix what no single table can.
4. Table numbers: the cheapest numbering of each round given the others (Hungarian), and
   annealing of table-number swaps.

Deterministic for a seed: the work is a number of proposed moves. A caller may also pass a
clock and seconds (the package reads no clock itself): then the schedule follows the time
and the annealing stops at the deadline (steps 3 and 4 are short and always run).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from .assignment import cheapest_assignment
from .draft import OUT, Draft
from .problem import SEATS, Problem, Seating, SeatingImpossible, check_sizes

HOT = 3.0  # start temperature (a move costs 2, 4, 6, ... at a local optimum)
COLD = 0.25  # end temperature
CHECK_EVERY = 2048  # moves between looks at the schedule, the clock and the best seating
EXCHANGE_SHARE = 0.3  # moves that exchange a round's sit-out, when there are sit-outs
EPS = 1e-9
RECTANGLE_SHARE = 0.5  # swaps undone in another round (tables unchanged), from 3 tables
TABLE_WEIGHT = 1.0  # the tables part's weight while annealing
CHAINS_PER_PLAYER = 500  # Kempe chains tried on the seats, per player
TABLE_MOVES_PER_ROUND = 5000  # table-number annealing moves, per round
TABLE_SHARE = 0.05  # share of moves that trade two tables' numbers (three tables or more)
FOCUS = 0.8  # share of swaps that move a player away from someone he met too often
CHAIN_LINKS = 12  # a Kempe chain longer than this is undone


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """How much work: proposed annealing moves, optionally capped by seconds on a clock."""

    moves: int = 3_000_000
    seconds: float | None = None
    clock: Callable[[], float] | None = None


def optimise(problem: Problem, *, seed: int = 0, budget: Budget = Budget()) -> Seating:
    """A seating for `problem` with low cost; SeatingImpossible when the keep-apart pairs
    cannot all be kept apart."""
    check_sizes(problem.players, problem.tables, problem.games)
    rng = random.Random(seed)
    draft = Draft(problem, first_rounds(problem, rng))
    draft = anneal(draft, rng, budget)
    if draft.keep_apart_meetings():
        pairs = sorted((a, b) for a, b in problem.keep_apart if draft.met[a][b])
        raise SeatingImpossible(
            f"found no seating that can keep apart the pairs {pairs[:5]}: each would have to "
            "meet (too few tables or sit-outs for them), or the annealing's budget is too small"
        )
    number_seats(draft)
    chain_seats(draft, rng, CHAINS_PER_PLAYER * problem.players)
    number_seats(draft)
    number_tables(draft)
    anneal_tables(draft, rng, TABLE_MOVES_PER_ROUND * len(draft.rounds))
    number_tables(draft)
    return draft.seating()


def first_rounds(problem: Problem, rng: random.Random) -> list[list[list[int]]]:
    """Step 1: who plays each round, and at which table (keep-apart partners apart when the
    greedy finds room; the annealing repairs the rest)."""
    partners = problem.partners()
    remaining = [problem.games] * problem.players
    at = [[0] * problem.tables for _ in range(problem.players)]  # games per table so far
    rounds = []
    for count in problem.round_tables:
        order = sorted(range(problem.players), key=lambda p: (-remaining[p], rng.random()))
        playing = order[: count * SEATS]
        for p in playing:
            remaining[p] -= 1
        playing.sort(key=lambda p: (-len(partners[p]), rng.random()))
        tables: list[list[int]] = [[] for _ in range(count)]
        for p in playing:
            room = [t for t in range(count) if len(tables[t]) < SEATS]
            calm = [t for t in room if not partners[p] & set(tables[t])] or room
            best = min(calm, key=lambda t: (at[p][t], len(tables[t]), rng.random()))
            tables[best].append(p)
            at[p][best] += 1
        rounds.append(tables)
    return rounds


def anneal(draft: Draft, rng: random.Random, budget: Budget) -> Draft:
    """Step 2: simulated annealing on the meetings and the table numbers; returns the best
    draft seen."""
    problem = draft.problem
    swappable = [r for r, tables in enumerate(draft.rounds) if len(tables) > 1]
    sit_outs = len(draft.rounds) > 1 and any(len(t) * SEATS < problem.players for t in draft.rounds)
    if not swappable and not sit_outs:
        return draft
    started = budget.clock() if budget.clock else 0.0
    current = best = 0.0
    best_rounds = [[list(t) for t in tables] for tables in draft.rounds]
    temperature = HOT
    ratio = COLD / HOT
    rounds, table_of = draft.rounds, draft.table_of
    exchange_share = EXCHANGE_SHARE if sit_outs else 0.0
    if not swappable:
        exchange_share = 1.0
    random_, randrange = rng.random, rng.randrange
    count_tables = draft.tables_count
    weight = TABLE_WEIGHT
    crowded = draft.expected + 0.5  # a pair that met this often has met too often
    for move in range(budget.moves):
        if move % CHECK_EVERY == 0:
            progress = move / budget.moves
            if budget.clock and budget.seconds:
                elapsed = (budget.clock() - started) / budget.seconds
                if elapsed >= 1.0:
                    break
                progress = max(progress, elapsed)
            temperature = HOT * ratio**progress
            if current < best - EPS:
                best = current
                best_rounds = [[list(t) for t in tables] for tables in rounds]
        if random_() < exchange_share:
            r1, r2 = randrange(len(rounds)), randrange(len(rounds))
            if r1 == r2:
                continue
            tables1, tables2 = rounds[r1], rounds[r2]
            a = tables1[randrange(len(tables1))][randrange(SEATS)]
            b = tables2[randrange(len(tables2))][randrange(SEATS)]
            if table_of[r2][a] != OUT or table_of[r1][b] != OUT:
                continue
            if draft.exchange_breaks_keep_apart(r1, a, r2, b):
                continue
            delta = draft.exchange_meetings_delta(r1, a, r2, b)
            if count_tables:
                t1, t2 = table_of[r1][a], table_of[r2][b]
                delta += weight * (
                    draft.table_move_delta(a, t1, t2) + draft.table_move_delta(b, t2, t1)
                )
            if delta <= 0 or random_() < math.exp(-delta / temperature):
                draft.exchange(r1, a, r2, b)
                current += delta
            continue
        r = swappable[randrange(len(swappable))]
        tables = rounds[r]
        t1 = randrange(len(tables))
        t2 = randrange(len(tables) - 1)
        if t2 >= t1:
            t2 += 1
        if count_tables and random_() < TABLE_SHARE:  # two tables trade numbers
            delta = weight * draft.swap_tables_delta(r, t1, t2)
            if delta <= 0 or random_() < math.exp(-delta / temperature):
                draft.swap_tables(r, t1, t2)
                current += delta
            continue
        a, b = tables[t1][randrange(SEATS)], tables[t2][randrange(SEATS)]
        if random_() < FOCUS:  # a must have met someone at his table too often
            row = draft.met[a]
            if max(map(row.__getitem__, tables[t1])) < crowded:
                continue
        if (draft.partners[a] or draft.partners[b]) and draft.swap_breaks_keep_apart(r, a, b):
            continue
        if count_tables and random_() < RECTANGLE_SHARE:
            # a and b swap here and swap back in a round where their tables are the other
            # way round: the meetings change, every player's games per table do not
            back = [s for s in swappable if table_of[s][a] == t2 and table_of[s][b] == t1]
            if not back:
                continue
            r2 = back[randrange(len(back))]
            delta = draft.swap_meetings_delta(r, a, b)
            draft.swap(r, a, b)
            if draft.swap_breaks_keep_apart(r2, a, b):
                draft.swap(r, a, b)
                continue
            delta += draft.swap_meetings_delta(r2, a, b)
            if delta <= 0 or random_() < math.exp(-delta / temperature):
                draft.swap(r2, a, b)
                current += delta
            else:
                draft.swap(r, a, b)
            continue
        delta = draft.swap_meetings_delta(r, a, b)
        if count_tables:
            delta += weight * (
                draft.table_move_delta(a, t1, t2) + draft.table_move_delta(b, t2, t1)
            )
        if delta <= 0 or random_() < math.exp(-delta / temperature):
            draft.swap(r, a, b)
            current += delta
    if current < best - EPS:
        return draft
    return Draft(problem, best_rounds)


def number_seats(draft: Draft) -> None:
    """Step 3: each table's cheapest seat order given the rest, sweep after sweep."""
    improved = True
    while improved:
        improved = False
        for r, tables in enumerate(draft.rounds):
            for t, table in enumerate(tables):
                costs = [[draft.seat_cost_with(p, s, new) for new in range(SEATS)] for s, p in
                         enumerate(table)]  # fmt: skip
                seat = cheapest_assignment(costs)
                if (
                    sum(costs[k][seat[k]] for k in range(SEATS))
                    < sum(costs[k][k] for k in range(SEATS)) - EPS
                ):
                    order = [0] * SEATS
                    for k, p in enumerate(table):
                        order[seat[k]] = p
                    draft.seat_table(r, t, order)
                    improved = True


def number_tables(draft: Draft) -> None:
    """Step 4: each round's cheapest table numbering given the rest, sweep after sweep."""
    if not draft.tables_count:
        return
    improved = True
    while improved:
        improved = False
        for r, tables in enumerate(draft.rounds):
            if len(tables) < 2:
                continue
            costs = [
                [sum(draft.table_move_delta(p, t, u) for p in table) for u in range(len(tables))]
                for t, table in enumerate(tables)
            ]
            number = cheapest_assignment(costs)
            if sum(costs[t][number[t]] for t in range(len(tables))) < -EPS:
                draft.renumber_tables(r, number)
                improved = True


def chain_seats(draft: Draft, rng: random.Random, attempts: int) -> None:
    """Step 3b: Kempe chains, for what one table alone cannot fix. A player with a seat too
    often (c1) and another too seldom (c2) trades them at one of his tables; whoever sat at
    c2 there now has c1 once more, and trades at one of his own tables, and so on; the chain
    is kept the moment the whole cost went down, undone if it has not after a few links."""
    rounds, table_of, seat_of = draft.rounds, draft.table_of, draft.seat_of
    players = draft.problem.players
    for _ in range(attempts):
        x = rng.randrange(players)
        counts = draft.seat_games[x]
        c1, c2 = rng.randrange(SEATS), rng.randrange(SEATS)
        if c1 == c2 or counts[c1] <= counts[c2]:
            continue
        done: list[tuple[int, int, int]] = []
        total = 0.0
        last = -1
        for _link in range(CHAIN_LINKS):
            games = [r for r in range(len(rounds)) if seat_of[r][x] == c1 and r != last]
            if not games:
                break
            r = games[rng.randrange(len(games))]
            y = rounds[r][table_of[r][x]][c2]
            total += draft.seat_move_delta(x, c1, c2)
            total += draft.seat_move_delta(y, c2, c1)
            draft.swap(r, x, y)
            done.append((r, x, y))
            if total < -EPS:
                break
            x, last = y, r
        if total >= -EPS:
            for r, a, b in reversed(done):
                draft.swap(r, a, b)


def anneal_tables(draft: Draft, rng: random.Random, moves: int) -> None:
    """Step 4b: simulated annealing of table numbers (two tables of a round trade numbers)."""
    rounds = [r for r, tables in enumerate(draft.rounds) if len(tables) > 1]
    if not draft.tables_count or not rounds:
        return
    ratio = COLD / HOT
    for move in range(moves):
        temperature = HOT * ratio ** (move / moves)
        r = rounds[rng.randrange(len(rounds))]
        size = len(draft.rounds[r])
        t, u = rng.randrange(size), rng.randrange(size - 1)
        if u >= t:
            u += 1
        delta = draft.swap_tables_delta(r, t, u)
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            draft.swap_tables(r, t, u)
