"""Finished tables for the club's tests and bench: a whole game played by the simulator's
random legal actions (plugin.sim.simulate, a seed that ends with a winner) written into an
event log as a real table writes it (its settings, the lobby seating club members, every
engine event), so the club reads it as it reads any table."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from plugin.eventlog import EventLog
from plugin.host.records import named
from plugin.host.settings import TableSettings
from plugin.rules.events import Event, to_record
from plugin.sim.simulate import play

PRESET = "online"


@cache
def finished_game(seed: int) -> tuple[int, tuple[Event, ...], str]:
    """(the seed, the events, the winner) of the first game from `seed` on that ends with a
    winner (a few seeds end without one: the engine's limits)."""
    for tried in range(seed, seed + 50):
        outcome = play(PRESET, tried, keep_log=True)
        if outcome.winner in ("city", "mafia") and outcome.log is not None:
            return tried, tuple(outcome.log), outcome.winner
    raise RuntimeError(f"no game from seed {seed} on ended with a winner")


def write_finished_table(
    log: EventLog, table_id: str, *, seed: int, members: Mapping[int, tuple[str, str]]
) -> str:
    """A finished table `table_id` in `log`: `members` seat -> (player id, nickname) joined
    and seated through the lobby, the others guests. The winner."""
    used, events, winner = finished_game(seed)
    settings = TableSettings.from_record({"preset": PRESET, "seats": 10, "seed": used})
    log.create_table(table_id, settings.to_record())
    for seat, (player, nick) in sorted(members.items()):
        entry = f"e{seat}"
        join = {"type": "lobby.join", "entry": entry, "name": nick, "device": f"d{seat}" * 8,
                "player": player}  # fmt: skip
        log.append(table_id, join, source="lobby")
        log.append(table_id, {"type": "lobby.seat", "entry": entry, "seat": seat}, source="lobby")
        log.append(table_id, named(seat, nick), source="host")
    for event in events:
        log.append(table_id, to_record(event), source="host")
    return winner
