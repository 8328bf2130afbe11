"""The protocol as a printable HTML sheet in the table's language, laid out like a club's
paper protocol, on one A4 page.

The header names the club, the date, the table, the host and the rules. The grid has one
row per seat (player, role, fouls with the day or night of each) and, for every day, the
seat the player nominated and his ballot in each round of that day's vote; the last column
says when and how he left. Below: every night (the kill, the don's and the sheriff's
checks), the best move and the result with its reason. The words come from
config/protocol/<language>.toml; every name is escaped.
"""

from __future__ import annotations

import tomllib
from functools import cache
from html import escape
from typing import Any

from plugin.paths import CONFIG_DIR

WORDS_DIR = CONFIG_DIR / "protocol"

STYLE = """
@page { size: A4 portrait; margin: 10mm; }
* { box-sizing: border-box; }
body { font: 10.5px/1.3 "DejaVu Sans", system-ui, sans-serif; margin: 0 auto; max-width: 190mm;
       color: #111; }
h1 { font-size: 16px; margin: 0 0 4px; }
.head { display: grid; grid-template-columns: repeat(3, auto); gap: 1px 16px; margin: 0 0 8px; }
.head b { font-weight: 600; }
table { border-collapse: collapse; width: 100%; margin: 0 0 8px; }
th, td { border: 1px solid #888; padding: 2px 3px; text-align: center; vertical-align: middle; }
th { background: #eee; font-weight: 600; }
td.name { text-align: left; max-width: 34mm; overflow: hidden; white-space: nowrap;
          text-overflow: ellipsis; }
td.black { background: #222; color: #fff; }
td.out { color: #555; font-size: 9.5px; }
.foul { letter-spacing: -1px; }
h2 { font-size: 12px; margin: 8px 0 3px; }
.result { font-size: 13px; font-weight: 600; margin-top: 8px; }
.legend { color: #555; font-size: 9px; margin-top: 6px; }
@media screen { body { margin: 2em auto; } }
"""


@cache
def words(language: str) -> dict[str, Any]:
    """The sheet's words in `language` (config/protocol/<language>.toml); English if the
    table's language has no file."""
    path = WORDS_DIR / f"{language}.toml"
    if not path.is_file():
        path = WORDS_DIR / "en.toml"
    with path.open("rb") as handle:
        return tomllib.load(handle)


def render_sheet(protocol: dict[str, Any]) -> str:
    """A standalone HTML page of one game, in the protocol's language."""
    w = words(protocol.get("language") or "en")
    days = protocol["days"]
    head = [
        ("club", protocol.get("club") or w["none"]),
        ("date", protocol.get("date") or w["none"]),
        ("table", protocol["table"] or w["none"]),
        ("host", protocol.get("host") or w["none"]),
        ("rules", protocol["rules"]),
    ]
    parts = [
        f"<!doctype html><html lang='{escape(protocol.get('language') or 'en')}'><head>",
        "<meta charset='utf-8'>",
        f"<title>{escape(w['title'])} {escape(protocol['table'])}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{escape(w['title'])}</h1><div class='head'>",
        *(f"<div><b>{escape(w[key])}:</b> {escape(str(value))}</div>" for key, value in head),
        "</div>",
        _grid(protocol, w, days),
        _nights(protocol, w),
    ]
    best = protocol["best_move"]
    if best is not None:
        text = w["best_move_text"].format(
            by=best["by"], named=", ".join(map(str, best["named"])), correct=best["correct"]
        )
        parts.append(f"<h2>{escape(w['best_move'])}</h2><div>{escape(text)}</div>")
    parts.append(f"<div class='result'>{escape(w['result'])}: {escape(_result(protocol, w))}</div>")
    parts.append(f"<div class='legend'>{escape(w['legend'])}</div></body></html>")
    return "".join(parts)


def _grid(protocol: dict[str, Any], w: dict[str, Any], days: list[dict[str, Any]]) -> str:
    """Seats × days: nominations and ballots per day, fouls, and the way out."""
    rows = [
        "<table class='grid'><tr>",
        f"<th rowspan='2'>{escape(w['seat'])}</th><th rowspan='2'>{escape(w['player'])}</th>",
        f"<th rowspan='2'>{escape(w['role'])}</th><th rowspan='2'>{escape(w['fouls'])}</th>",
        *(f"<th colspan='2'>{escape(w['day'])} {d['day']}</th>" for d in days),
        f"<th rowspan='2'>{escape(w['out'])}</th></tr><tr>",
        *(f"<th>{escape(w['nominated'])}</th><th>{escape(w['voted'])}</th>" for _ in days),
        "</tr>",
    ]
    for player in protocol["players"]:
        seat = player["seat"]
        role = player["role"]
        black = role in ("mafia", "don")
        fouls = [f for f in protocol.get("fouls", []) if f["seat"] == seat]
        rows.append(
            f"<tr><td>{seat}</td><td class='name'>{escape(player['name'])}</td>"
            f"<td class='{'black' if black else ''}'>{escape(w['roles'].get(role, w['none']))}"
            f"</td><td class='foul' title='{escape(_fouls_text(fouls, w))}'>"
            f"{escape(_fouls_text(fouls, w)) or '&nbsp;'}</td>"
        )
        for day in days:
            nominated = [n["target"] for n in day["nominations"] if n["by"] == seat]
            rows.append(f"<td>{', '.join(map(str, nominated))}</td>")
            rows.append(f"<td>{escape(_ballots(day, seat, w))}</td>")
        rows.append(f"<td class='out'>{escape(_out(player.get('out'), w))}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _nights(protocol: dict[str, Any], w: dict[str, Any]) -> str:
    nights = protocol["nights"]
    if not nights:
        return ""
    rows = [
        f"<h2>{escape(w['nights'])}</h2><table><tr><th>{escape(w['night'])}</th>",
        f"<th>{escape(w['killed'])}</th><th>{escape(w['don_check'])}</th>",
        f"<th>{escape(w['sheriff_check'])}</th></tr>",
    ]
    for night in nights:
        killed = night["killed"]
        don, sheriff = night["don_check"], night["sheriff_check"]
        don_text = (
            w["none"] if don is None
            else f"{don['target']}: {w['is_sheriff'] if don['sheriff'] else w['not_sheriff']}"
        )  # fmt: skip
        sheriff_text = (
            w["none"] if sheriff is None
            else f"{sheriff['target']}: {w['is_black'] if sheriff['black'] else w['is_red']}"
        )  # fmt: skip
        rows.append(
            f"<tr><td>{night['night']}</td>"
            f"<td>{killed if killed is not None else escape(w['missed'])}</td>"
            f"<td>{escape(don_text)}</td><td>{escape(sheriff_text)}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _ballots(day: dict[str, Any], seat: int, w: dict[str, Any]) -> str:
    """The seat's ballot in each round of the day's vote, the revotes after an arrow."""
    vote = day["vote"]
    if vote is None:
        return ""
    choices = []
    for round_ in vote["rounds"]:
        mine = [b["choice"] for b in round_["ballots"] if b["voter"] == seat]
        if not mine:
            continue
        choice = mine[-1]
        if choice is True:
            choices.append(w["lift_for"])
        elif choice is False:
            choices.append(w["lift_against"])
        else:
            choices.append(w["none"] if choice is None else str(choice))
    return " → ".join(choices)


def _when(moment: dict[str, Any], w: dict[str, Any]) -> str:
    if "night" in moment:
        return f"{w['night_short']}{moment['night']}"
    return f"{w['day_short']}{moment['day']}"


def _fouls_text(fouls: list[dict[str, Any]], w: dict[str, Any]) -> str:
    return " ".join(_when(f, w) for f in fouls)


def _out(out: dict[str, Any] | None, w: dict[str, Any]) -> str:
    if out is None:
        return ""
    return f"{w['how'].get(out['how'], out['how'])}, {_when(out, w)}"


def _result(protocol: dict[str, Any], w: dict[str, Any]) -> str:
    winner = str(w["winner"].get(protocol["winner"] or "none", w["winner"]["none"]))
    outcome = protocol.get("outcome")
    if outcome is None:
        return winner
    reason = w["termination"].get(outcome["termination"], outcome["termination"])
    return f"{winner} ({reason})"
