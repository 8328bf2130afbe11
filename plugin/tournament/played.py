"""Which club games are a tournament's (issue 34): a table linked to its tournament, stage,
round and table number (`link_table`, the record `tournament.table`), rounds finished by
their signed sheets, and the organiser revealing the hidden extra points (`reveal`).

A round's start (plugin.tournament.rounds) names each table it makes in its own record,
which makes it the round's (a `RoundTable`, as a link does). A table made by hand is
linked by

    Tournaments.link_table(tournament, stage, round, table_no, table_id, source=...)

(stage and round from 0 as the records number them, table_no from 1), or over REST
`POST /api/club/tournaments/{id}/tables {stage?, round, table, table_id}`. From then the
table's judge's sheet, once signed (the club's `sheet.sign`, corrected by
`sheet.correct`), counts in the tournament's standings (plugin.tournament.standings). A
game signed before its table was linked counts from the link on.

A round counts as finished when every table of it is linked and signed (the fold decides
it, so a restart decides the same); the organiser's manual finish stays for a round played
otherwise (a table lost, a game replayed on paper).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import state as _state
from .round_tables import RoundTable

if TYPE_CHECKING:
    from .state import TournamentState

RECORDS = ("tournament.table", "tournament.reveal")
MAX_TABLE_ID = 80


def link_table(
    state: TournamentState, tid: object, stage: object, round_: object, table_no: object,
    table_id: object,
) -> dict[str, Any]:  # fmt: skip
    """The record linking club table `table_id` to table `table_no` of a started round, or
    TournamentError: a round not started, a table number not in it, a table already linked
    (to this tournament or another), a table number already holding a table."""
    error = _state.TournamentError
    tournament, seated, r = state.seated(tid, stage, round_)
    if r not in seated.started:
        raise error("round_not_started", f"round {r + 1} has not started", 409)
    tables = len(seated.seating[r])
    if not isinstance(table_no, int) or isinstance(table_no, bool) or not 1 <= table_no <= tables:
        raise error("no_table", f"round {r + 1} has tables 1..{tables}, not {table_no!r}", 404)
    if (
        not isinstance(table_id, str)
        or not table_id
        or len(table_id) > MAX_TABLE_ID
        or not table_id.isprintable()
        or table_id != table_id.strip()
    ):
        raise error("bad_field", f"a table id is text of 1..{MAX_TABLE_ID} printable characters")
    for other in state.tournaments.values():
        if table_id in other.tables:
            s, rr, t = other.tables[table_id].where
            where = f"{other.id} stage {s + 1} round {rr + 1} table {t}"
            raise error("table_linked", f"table {table_id!r} is already {where}", 409)
    if any(t.where == (stage, r, table_no) for t in tournament.tables.values()):
        raise error("table_taken", f"table {table_no} of round {r + 1} has its table", 409)
    return {"type": "tournament.table", "tournament": tournament.id, "stage": stage,
            "round": r, "table": table_no, "table_id": table_id}  # fmt: skip


def reveal(state: TournamentState, tid: object) -> dict[str, Any]:
    """The organiser reveals the judges' hidden extra points to everybody."""
    tournament = state.get(tid)
    if tournament.hide_extras_from is None:
        raise _state.TournamentError("nothing_hidden", f"{tournament.id} hides no extras", 409)
    if tournament.revealed or tournament.over:
        raise _state.TournamentError("revealed", "the extra points are public already", 409)
    return {"type": "tournament.reveal", "tournament": tournament.id}


def placement(state: TournamentState, table_id: str) -> tuple[str, int, int, int] | None:
    """(tournament, stage, round, table number) of a linked table, or None."""
    for tournament in state.tournaments.values():
        table = tournament.tables.get(table_id)
        if table is not None:
            return (tournament.id, *table.where)
    return None


def _finish_by_sheets(state: TournamentState, tid: str, stage_index: int, round_: int) -> None:
    tournament = state.tournaments[tid]
    stage = tournament.stages[stage_index]
    here = (stage_index, round_)
    linked = [t.id for t in tournament.tables.values() if (t.stage, t.round) == here]
    if len(linked) == len(stage.seating[round_]) and all(t in state.signed for t in linked):
        stage.finished.add(round_)


def apply(state: TournamentState, record: Mapping[str, Any]) -> None:
    """Fold one of this module's records, or a signed sheet (which may finish a round)."""
    kind = record["type"]
    if kind == "sheet.sign":
        state.signed.add(record["game_id"])
        where = placement(state, record["game_id"])
        if where is not None:
            _finish_by_sheets(state, where[0], where[1], where[2])
    elif kind == "tournament.table":
        tournament = state.tournaments[record["tournament"]]
        stage = tournament.stages[record["stage"]]
        seats = [stage.seated[i] for i in stage.seating[record["round"]][record["table"] - 1]]
        tournament.tables[record["table_id"]] = RoundTable(
            id=record["table_id"], stage=record["stage"], round=record["round"],
            number=record["table"], seats=seats)  # fmt: skip
        _finish_by_sheets(state, tournament.id, record["stage"], record["round"])
    elif kind == "tournament.reveal":
        state.tournaments[record["tournament"]].revealed = True
