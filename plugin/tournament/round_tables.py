"""A tournament's round tables as the servers host them (issue 34): who sits at each seat
now, the seats started without their player, and the records that change them (a late
player replaced, a seat left out, the players' tournament links). Folded by
plugin.tournament.state, pure like it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .state import Tournament


@dataclass(slots=True, kw_only=True)
class RoundTable:
    """A started round's table as a server hosts it (plugin.tournament.rounds): its id, and
    who sits at each seat now (the seating's player, or the one who replaced him), and the
    seats the judges started without their player."""

    id: str
    stage: int
    round: int
    number: int  # 1.. in the round
    seats: list[str]  # player ids, seat 1 first
    absent: set[int] = field(default_factory=set)

    @property
    def where(self) -> tuple[int, int, int]:
        """(stage, round, table number) of this table."""
        return (self.stage, self.round, self.number)

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "stage": self.stage, "round": self.round, "table": self.number,
                "seats": list(self.seats), "absent": sorted(self.absent)}  # fmt: skip


# The records of a round's tables, its players' links (plugin.tournament.rounds, .links).
TABLE_RECORDS = ("tournament.replace", "tournament.absent", "tournament.link",
                 "tournament.link.revoke")  # fmt: skip


def apply_table_record(tournament: Tournament, record: Mapping[str, Any]) -> None:
    """Fold one of TABLE_RECORDS into its tournament."""
    kind = record["type"]
    if kind == "tournament.link":
        tournament.links.update(record["generations"])
        tournament.revoked.difference_update(record["generations"])
    elif kind == "tournament.link.revoke":
        tournament.revoked.add(record["player"])
    else:
        table, seat = tournament.tables[record["table"]], record["seat"]
        if kind == "tournament.replace":
            table.seats[seat - 1] = record["player"]
            table.absent.discard(seat)
        else:
            table.absent.add(seat)
