"""A tournament's standings as a document (JSON) and a CSV (issue 34): every stage's
standings, the overall standings (every stage's games together) and the final results,
with the tie-breaks that decided them.

The final results (what a chief judge announces, each with the values that placed him):
a player's place is decided by the last stage he played, those who reached a later stage
first (the finalists, then those out in the semi-final, then the rest); within a stage by
that stage's standings (its system's tie-breaks); players equal on all of them there by
their place in the stage before (the better qualifier first); still equal, they share the place.

Seen by the public (`judge=False`) while a stage's extras are hidden
(plugin.tournament.standings.hidden), that stage and the overall standings are the public's,
and so are the final results.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from plugin.scoring import Standings
from plugin.scoring.standings import Row

from .standings import Live, Tables, _new, hidden
from .state import Tournament, TournamentState

COLUMNS = ("place", "nick", "player", "games", "wins", "main", "extra", "best_move", "penalty",
           "ci", "total", "special_role_wins", "first_night_deaths")  # fmt: skip
CSV_COLUMNS = ("table", *COLUMNS, "extra_penalty_best_move", "stage_reached", "place_before")


def _rows(rows: list[Row], nick: Callable[[str], str]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        record = row.record()
        record["place"] = record.pop("rank")
        tie_break = round(float(row.extra_penalty_best_move), 2)
        out.append({**record, "nick": nick(row.player), "extra_penalty_best_move": tie_break})
    return out


def _results(
    tournament: Tournament, stages: list[Standings]
) -> list[tuple[int, Row, int, int | None]]:
    """(place, row in his last stage, that stage, his place in the stage before) of every
    player who played a game."""
    placed: list[tuple[tuple[object, ...], Row, int]] = []
    seen: set[str] = set()
    earlier: list[dict[str, int]] = [{r.player: r.rank for r in s.rows()} for s in stages]
    for index in reversed(range(len(stages))):
        for row in stages[index].rows():
            if row.player in seen:
                continue
            seen.add(row.player)
            before = earlier[index - 1].get(row.player, 10**6) if index else 0
            placed.append(((-index, row.rank, before), row, index))
    placed.sort(key=lambda item: (item[0], item[1].player))
    out: list[tuple[int, Row, int, int | None]] = []
    for n, (key, row, index) in enumerate(placed):
        place = out[-1][0] if out and placed[n - 1][0] == key else n + 1
        out.append((place, row, index, earlier[index - 1].get(row.player) if index else None))
    return out


def document(state: TournamentState, live: Live, tid: object, nick: Callable[[str], str], *,
             judge: bool) -> dict[str, Any]:  # fmt: skip
    """The tournament's standings as its page and the JSON export show them; `judge`: with
    every extra point (judges and admins), else as the public sees them now."""
    tournament = state.get(tid)
    tables: Tables = live.tables.get(tournament.id) or _new(tournament)
    hide = [not judge and hidden(tournament, n) for n in range(len(tournament.stages))]
    stages = [tables.public_stages[n] if hide[n] else tables.stages[n]
              for n in range(len(tournament.stages))]  # fmt: skip
    overall = tables.public_overall if any(hide) else tables.overall
    linked: dict[int, int] = {}
    for stage_index, _, _ in (t.where for t in tournament.tables.values()):
        linked[stage_index] = linked.get(stage_index, 0) + 1
    results = [{**_rows([row], nick)[0], "place": place,
                "stage_reached": tournament.stages[index].name, "place_before": before}
               for place, row, index, before in _results(tournament, stages)]  # fmt: skip
    return {
        "id": tournament.id, "name": tournament.name, "system": tournament.system,
        "tie_breaks": list(tables.overall.system.tie_breaks),
        "hide_extras_from": None if tournament.hide_extras_from is None
        else tournament.stages[tournament.hide_extras_from].name,
        "extras_hidden": any(hide), "revealed": tournament.revealed, "over": tournament.over,
        "columns": list(COLUMNS),
        "stages": [{"name": stage.name, "index": n, "games": stages[n].games,
                    "tables": sum(len(r) for r in stage.seating),
                    "rounds": len(stage.seating), "finished": sorted(stage.finished),
                    "extras_hidden": hide[n], "rows": _rows(stages[n].rows(), nick)}
                   for n, stage in enumerate(tournament.stages)],
        "overall": {"games": overall.games, "rows": _rows(overall.rows(), nick)},
        "results": results,
        # why a game is not scored may name a judge's points: the judges' view only
        "unscored": [{"game_id": g, "reason": why if judge else ""}
                     for g, why in sorted(tables.refused.items())],
    }  # fmt: skip


def to_csv(doc: dict[str, Any]) -> str:
    """One CSV of every table of the document: the `table` column names it (a stage's name,
    "overall" or "results"); a final result's row is his row of the last stage he played
    (every tie-break of it), the stage's name and his place in the stage before."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for name, rows in [
        *((s["name"], s["rows"]) for s in doc["stages"]),
        ("overall", doc["overall"]["rows"]),
        ("results", doc["results"]),
    ]:
        for row in rows:
            writer.writerow([name, *(row.get(c, "") for c in CSV_COLUMNS[1:])])
    return out.getvalue()


def text(doc: dict[str, Any]) -> str:
    """The final results and each stage's standings as text (the command line's)."""
    lines = [f"{doc['id']} {doc['name']}: standings ({doc['system']}; ties: "
             + ", ".join(doc["tie_breaks"]) + ")"]  # fmt: skip
    if doc["extras_hidden"]:
        lines.append("  (judges' extra points hidden)")
    for stage in doc["stages"]:
        lines.append(f"{stage['name']}: {stage['games']} of {stage['tables']} games signed")
        for row in stage["rows"]:
            lines.append(
                f"  {row['place']:>3}. {row['nick']:<20} {row['total']:>7.2f}  "
                f"games {row['games']}, wins {row['wins']}, extra {row['extra']:.2f}"
            )
    lines.append("results:")
    for row in doc["results"]:
        lines.append(f"  {row['place']:>3}. {row['nick']:<20} {row['stage_reached']}")
    return "\n".join(lines)
