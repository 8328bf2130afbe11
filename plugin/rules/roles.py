"""The cards: which roles a table of each size is dealt, dealing them from a seed, and
checking roles the host assigns.

Rules implemented here: mafiaratings 1.1 (ten players, seven red cards with one sheriff,
three black with one don); GAME.md «Scenario file»: other table sizes follow this
distribution, and roles that do not fit the table are refused.
"""

from __future__ import annotations

from .errors import InvalidAction

ROLES = ("civilian", "sheriff", "mafia", "don")
BLACK = frozenset({"mafia", "don"})

# Seats per role for each table size: (don, mafia, sheriff); the rest are civilians.
# 10 is the sport-mafia table (mafiaratings rules 1.1: seven red cards, three black).
# Smaller and larger tables keep roughly three red players per black one.
DISTRIBUTION: dict[int, tuple[int, int, int]] = {
    7: (1, 1, 1),
    8: (1, 1, 1),
    9: (1, 2, 1),
    10: (1, 2, 1),
    11: (1, 2, 1),
    12: (1, 3, 1),
}
MIN_SEATS, MAX_SEATS = min(DISTRIBUTION), max(DISTRIBUTION)


def deal_roles(players: int, seed: int) -> tuple[str, ...]:
    """Roles for a table, shuffled by a seed given as data (splitmix64, no `random`)."""
    don, mafia, sheriff = DISTRIBUTION[players]
    deck = ["don"] * don + ["mafia"] * mafia + ["sheriff"] * sheriff
    deck += ["civilian"] * (players - len(deck))
    x = seed & 0xFFFFFFFFFFFFFFFF

    def draw() -> int:
        nonlocal x
        x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    for i in range(len(deck) - 1, 0, -1):
        j = draw() % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def check_roles(players: int, roles: dict[int, str]) -> tuple[str, ...]:
    """Roles assigned by the host; they must fit the table's distribution."""
    if players not in DISTRIBUTION:
        raise InvalidAction(
            "bad_table", f"a table has {MIN_SEATS} to {MAX_SEATS} players, not {players}"
        )
    deck = ["civilian"] * players
    for seat, role in roles.items():
        if not 1 <= seat <= players:
            raise InvalidAction("bad_seat", f"roles: seat {seat} is not a seat of this table")
        if role not in ROLES:
            raise InvalidAction("bad_role", f"roles: unknown role {role!r} for seat {seat}")
        deck[seat - 1] = role
    don, mafia, sheriff = DISTRIBUTION[players]
    want = {"don": don, "mafia": mafia, "sheriff": sheriff}
    have = {name: deck.count(name) for name in want}
    if have != want:
        raise InvalidAction("bad_roles", f"roles for {players} players must be {want}, got {have}")
    return tuple(deck)
