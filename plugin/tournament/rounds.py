"""A round's tables (issue 34): starting a round makes every table of it, seated, and has
the bots host them, as a judge's table is made (plugin.club.hosting: the server's
registry; on a shared PostgreSQL log a table is hosted through its lease, so another
server takes it over when this one dies).

Theory of operation: intent first, then effects, resumable.
1. The start is one record in the club's log (`tournament.round.start`, asked of
   TournamentState.start_round) that names every table's id beside its seats: from then
   the round is started, for every server and after any restart, and a second start of
   it is refused.
2. Then each table is made from the record: its settings (the tournament's rules preset,
   the players' nicknames at their seats, a fresh deal) in its own log, then its seats'
   club players (`club.seat`, which the judge's sheet reads: plugin.club.games). Each step
   looks whether it was done before, so a start that failed half-way (the server died,
   a table refused) is finished by asking to start the round again: only what is missing
   is made, nothing twice. `missing` says which tables are not made yet (the judges'
   board shows it), and until they are, a start of that round resumes instead of being
   refused.

The same steps run over the event loop (`start`, the REST API) or straight on the log
(`start_in_log`, `autohost tournament start` without a server: the server opens each
table at its first use, or, on PostgreSQL, the first server to claim it).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any

from plugin.club import ClubState
from plugin.host.game import check_settings
from plugin.host.ports import Log, LogUnavailable
from plugin.host.registry import HostingRefused, Registry, new_table_id
from plugin.host.settings import SettingsError, TableSettings

from .round_tables import RoundTable
from .service import Tournaments
from .state import Tournament, TournamentError, TournamentState

logger = logging.getLogger(__name__)
SOURCE = "tournament"  # how a table's log names what the tournament wrote there
SEATED = "club.seat"  # a table's record: its seats' club players (plugin.club.games)
DEFAULT_LANGUAGE = "uk"  # a table's, when the club has not chosen one (TableSettings')


def start_question(tid: str, stage: int, round_: int) -> Any:
    """The start's record (TournamentState.start_round's), each table with its new id."""

    def ask(_: ClubState, state: TournamentState) -> dict[str, Any]:
        record = state.start_round(tid, stage, round_)
        for table in record["tables"]:
            table["id"] = new_table_id()
        return record

    return ask


def tables_of(tournament: Tournament, stage: int, round_: int) -> list[RoundTable]:
    found = [t for t in tournament.tables.values() if (t.stage, t.round) == (stage, round_)]
    return sorted(found, key=lambda t: t.number)


def seat_record(tournament: Tournament, table: RoundTable) -> dict[str, Any]:
    """Who sits where at a table (the judge's sheet scores them: plugin.club.games)."""
    seats = {str(n): player for n, player in enumerate(table.seats, 1)}
    return {"type": SEATED, "tournament": tournament.id, "seats": seats}


def settings_of(club: ClubState, tournament: Tournament, table: RoundTable) -> TableSettings:
    """A round's table: the tournament's rules preset, each seat named by its player's
    nickname, the club's name and language, a deal of its own (the seed is in the table's
    settings, logged once: a replay deals the same roles)."""
    settings = TableSettings(
        preset=tournament.preset, language=club.language or DEFAULT_LANGUAGE,
        seats=len(table.seats), names=tuple(club.nick_of(p) for p in table.seats),
        seed=secrets.randbits(63), club=club.name,
    )  # fmt: skip
    check_settings(settings)
    return settings


def seated_in_log(log: Log, table_id: str) -> bool:
    """Whether the table's log has its seats' players already."""
    return any(e.record.get("type") == SEATED for e in log.entries(table_id))


def missing(log: Log, tournament: Tournament, stage: int, round_: int) -> list[RoundTable]:
    """The tables of a started round not made (or not seated) yet: a start to finish."""
    return [
        t
        for t in tables_of(tournament, stage, round_)
        if log.table_settings(t.id) is None or not seated_in_log(log, t.id)
    ]


def _to_start(
    tournaments: Tournaments, log: Log, tid: str, stage: int, round_: int
) -> tuple[Tournament, bool]:
    """The tournament, and whether the round is started already (then: resumed)."""
    tournaments.refresh()
    tournament, played, r = tournaments.state.seated(tid, stage, round_)
    if r not in played.started:
        return tournament, False
    # Started, and every table made (or started by a record that names no tables).
    if not tables_of(tournament, stage, round_) or not missing(log, tournament, stage, round_):
        raise TournamentError("round_started", f"round {r + 1} of {played.name!r} has started", 409)
    return tournament, True


def answer(
    tournament: Tournament, club: ClubState, stage: int, round_: int, failed: Mapping[str, str]
) -> dict[str, Any]:
    """What a start answers: every table with its seats' players, and those not made."""
    tables = [{**t.view(), "nicks": [club.nick_of(p) for p in t.seats],
               **({"failed": failed[t.id]} if t.id in failed else {})}
              for t in tables_of(tournament, stage, round_)]  # fmt: skip
    return {"tournament": tournament.id, "stage": stage, "round": round_, "tables": tables,
            "complete": not failed}  # fmt: skip


async def start(
    tournaments: Tournaments, registry: Registry, tid: str, stage: int, round_: int,
    *, source: str,
) -> dict[str, Any]:  # fmt: skip
    """Start a round (or finish a start that failed half-way): its record first, then every
    table made and hosted here. A table this server cannot make (its cap, the database
    away) is named in the answer's `failed`; starting the round again makes it."""
    _, resumed = _to_start(tournaments, registry.log, tid, stage, round_)
    if not resumed:
        await tournaments.commit(start_question(tid, stage, round_), source=source)
    tournament, club = tournaments.state.get(tid), tournaments.club.state
    failed: dict[str, str] = {}
    for table in tables_of(tournament, stage, round_):
        try:
            await _host(registry, club, tournament, table)
        except (HostingRefused, SettingsError, TournamentError) as refusal:
            failed[table.id] = f"{refusal.code}: {refusal.message}"
        except LogUnavailable as failure:
            failed[table.id] = f"log_unavailable: {failure}"
        except Exception as error:  # its own trouble (its room, its voice): the others go on
            logger.exception("tournament %s: table %s not made", tid, table.id)
            failed[table.id] = f"table_failed: {type(error).__name__}: {error}"
    return answer(tournament, club, stage, round_, failed)


async def _host(
    registry: Registry, club: ClubState, tournament: Tournament, table: RoundTable
) -> None:
    log = registry.log
    if log.table_settings(table.id) is None:
        await registry.create(settings_of(club, tournament, table), table_id=table.id)
    if seated_in_log(log, table.id):
        return
    if await registry.get(table.id) is None:  # hosted by another server: written there
        raise TournamentError("table_elsewhere", f"another server hosts table {table.id}", 409)
    await log.commit(table.id, seat_record(tournament, table), source=SOURCE)


def start_in_log(
    tournaments: Tournaments, log: Log, tid: str, stage: int, round_: int, *, source: str
) -> dict[str, Any]:
    """`start` straight on the log (no server here): the record, then every table's
    settings and seats written; a server opens each at its first use (or claims it)."""
    _, resumed = _to_start(tournaments, log, tid, stage, round_)
    if not resumed:
        tournaments.change(start_question(tid, stage, round_), source=source)
    tournament, club = tournaments.state.get(tid), tournaments.club.state
    for table in tables_of(tournament, stage, round_):
        if log.table_settings(table.id) is None:
            log.create_table(table.id, settings_of(club, tournament, table).to_record())
        if not seated_in_log(log, table.id):
            log.append(table.id, seat_record(tournament, table), source=SOURCE)
    return answer(tournament, club, stage, round_, {})
