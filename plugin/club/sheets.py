"""The judge's sheet (issue 33): after a game, the table's protocol (who sat where, roles,
results, fouls, the best move the engine recorded) plus the judge's parts (extra points each
with a required comment, a corrected best move with why, auto-bonuses removed, a team
disqualified), checked against the scoring system and signed. From then the game's result
is final; an admin corrects it with a reason, and every correction is a record (who, when,
why, before and after) the standings follow.

`draft` shows what the judge is about to sign; `sign` and `correct` answer the club's
records or raise ClubError (a sheet the system refuses: its ScoringError's code)."""

from __future__ import annotations

from typing import Any

from plugin.host.ports import Log
from plugin.protocol.export import table_protocol
from plugin.scoring import ScoringError, score_game, sheet_from_json

from .club import Club
from .games import game_from_record, game_of_table, game_record, seated_players, with_players
from .results import public_sheet
from .state import ClubError, Signed

DEFAULT_SYSTEM = "fiim"


def _table_game(log: Log, table_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the table's protocol, the game record the club keeps of it); ClubError otherwise."""
    protocol = table_protocol(log, table_id)
    if protocol is None:
        raise ClubError("no_table", f"no table {table_id!r}", 404)
    players = seated_players(entry.record for entry in log.entries(table_id))
    try:
        game = game_of_table(protocol, players)
    except ScoringError as refusal:
        raise ClubError(refusal.code, refusal.message, 409) from None
    return protocol, {**game_record(game), "date": protocol["date"]}


def _checked(club: Club, system: str, game: dict[str, Any], sheet: Any) -> dict[str, Any]:
    """The sheet, if the system allows it for this game (ClubError naming the problem)."""
    try:
        sheet_from_json(sheet, game_from_record(game), club.results.system(system))
    except ScoringError as refusal:
        raise ClubError(refusal.code, refusal.message) from None
    return dict(sheet)


def preview(club: Club, system: str, game: dict[str, Any], sheet: Any) -> list[dict[str, Any]]:
    """Each seat's points under this sheet (the draft's and the signed game's view)."""
    scoring = club.results.system(system)
    parsed = game_from_record(game)
    scores = score_game(scoring, parsed, sheet_from_json(sheet, parsed, scoring))
    return [
        {
            "seat": s.seat,
            "player": s.player,
            "nick": club.state.nick_of(s.player),
            "role": s.role,
            "won": s.won,
            "main": float(s.main),
            "extra": float(s.extra),
            "best_move": float(s.best_move),
            "penalty": float(s.penalty),
            "points": float(s.points),
            "first_night_death": s.first_night_death,
            "fouls": s.fouls,
        }
        for s in scores
    ]


def draft(club: Club, log: Log, table_id: str) -> dict[str, Any]:
    """What the judge sees: the automatic parts, and the signed sheet if there is one."""
    club.refresh()
    signed = club.state.signed.get(table_id)
    if signed is not None:
        return signed_view(club, signed)
    protocol, game = _table_game(log, table_id)
    return {
        "game_id": table_id,
        "signed": False,
        "system": DEFAULT_SYSTEM,
        "season": protocol["date"][:4],
        "date": protocol["date"],
        "game": game,
        "sheet": {},
        "seats": preview(club, DEFAULT_SYSTEM, game, {}),
        "range": _range(club, DEFAULT_SYSTEM),
    }


def signed_view(club: Club, signed: Signed, *, hidden: bool = False) -> dict[str, Any]:
    """A signed game as its record shows it; `hidden`: as the public sees it while its
    judges' extras are hidden (issue 34): every sheet in it, the corrections' before and
    after too, without the judges' parts (plugin.club.results.public_sheet), the seats
    scored by that, and no correction's reason (an admin's words may name the points)."""
    sheet = public_sheet(signed.sheet) if hidden else signed.sheet
    return {
        "game_id": signed.game_id,
        "signed": True,
        "system": signed.system,
        "season": signed.season,
        "game": signed.game,
        "sheet": sheet,
        "seats": preview(club, signed.system, signed.game, sheet),
        "history": [_entry(club, entry, hidden) for entry in signed.history],
        "range": _range(club, signed.system),
        "extras_hidden": hidden,
    }


def _entry(club: Club, entry: dict[str, Any], hidden: bool) -> dict[str, Any]:
    shown = {**entry, "by": _by(club, entry["by"])}
    if hidden and entry["what"] == "corrected":
        for side in ("before", "after"):
            shown[side] = {**entry[side], "sheet": public_sheet(entry[side]["sheet"])}
        shown["reason"] = ""
    return shown


def _by(club: Club, source: str) -> str:
    kind, _, person = source.partition(":")
    return f"{kind}:{club.state.nick_of(person)}" if person else kind


def _range(club: Club, system: str) -> dict[str, float]:
    scoring = club.results.system(system)
    return {"min": scoring.judge_min, "max": scoring.judge_max, "step": scoring.judge_step}


async def sign(club: Club, log: Log, table_id: str, body: Any, by: str) -> dict[str, Any]:
    """Sign a finished table's sheet ({"sheet": {...}, "season": "2026"}); the record."""
    if not isinstance(body, dict) or set(body) - {"sheet", "season"}:
        raise ClubError("bad_request", 'a signature is {"sheet": {...}, "season": "..."}')
    club.refresh()
    if table_id in club.state.signed:  # before reading the table: a second signing is refused
        raise ClubError("already_signed", f"game {table_id} is signed: an admin corrects it", 409)
    protocol, game = _table_game(log, table_id)
    sheet = _checked(club, DEFAULT_SYSTEM, game, body.get("sheet", {}))
    season = body.get("season") or protocol["date"][:4]
    return await club.commit(
        lambda state: state.sign(table_id, season, DEFAULT_SYSTEM, game, sheet, by), source=by
    )


async def correct(club: Club, game_id: str, body: Any, by: str) -> dict[str, Any]:
    """An admin's correction ({"sheet": {...}, "players": {"3": "p7"}, "reason": "..."})."""
    if not isinstance(body, dict) or set(body) - {"sheet", "players", "reason"}:
        raise ClubError("bad_request", 'a correction is {"sheet", "players", "reason"}')
    club.refresh()
    signed = club.state.signed.get(game_id)
    if signed is None:
        raise ClubError("not_signed", f"game {game_id} is not signed yet", 409)
    players = body.get("players") or {}
    if not isinstance(players, dict):
        raise ClubError("bad_request", 'players is {"seat": "player id"}')
    try:
        game = with_players(signed.game, players, set(club.state.players))
    except ScoringError as refusal:
        raise ClubError(refusal.code, refusal.message) from None
    sheet = _checked(club, signed.system, game, body.get("sheet", signed.sheet))
    reason = body.get("reason")
    return await club.commit(
        lambda state: state.correct(game_id, sheet, game, reason, by), source=by
    )
