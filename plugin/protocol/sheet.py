"""The protocol as a printable HTML sheet, laid out like a club's paper protocol."""

from __future__ import annotations

from html import escape
from typing import Any

ROLE_NAMES = {"civilian": "civilian", "sheriff": "sheriff", "mafia": "mafia", "don": "don"}
WINNERS = {"city": "The city wins", "mafia": "The mafia wins", "draw": "Draw", None: "Not over"}

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #111; }
h1 { font-size: 1.4em; margin: 0 0 .2em; } h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
table { border-collapse: collapse; margin: .4em 0; }
th, td { border: 1px solid #999; padding: .25em .6em; text-align: center; }
th { background: #eee; } td.name { text-align: left; }
.black { background: #222; color: #fff; } .out { color: #888; text-decoration: line-through; }
.result { font-size: 1.2em; font-weight: 600; margin-top: 1.4em; }
@media print { body { margin: 0; } }
"""


def _seat(protocol: dict[str, Any], seat: int | None) -> str:
    if seat is None:
        return "—"
    player = protocol["players"][seat - 1]
    return f"{seat} ({escape(player['name'])})"


def render_sheet(protocol: dict[str, Any]) -> str:
    """A standalone HTML page; every name is escaped."""
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>Protocol {escape(protocol['table'])}</title><style>{STYLE}</style></head><body>",
        f"<h1>Game protocol {escape(protocol['table'])}</h1>",
        f"<div>Rules: {escape(protocol['rules'])}</div>",
        "<h2>Seats</h2><table><tr><th>Seat</th><th>Player</th><th>Role</th><th>Fouls</th>"
        "<th>Status</th></tr>",
    ]
    for p in protocol["players"]:
        black = p["role"] in ("mafia", "don")
        status = "removed (fouls)" if p["removed"] else ("in the game" if p["in_game"] else "out")
        parts.append(
            f"<tr><td>{p['seat']}</td><td class='name'>{escape(p['name'])}</td>"
            f"<td class='{'black' if black else ''}'>{escape(ROLE_NAMES.get(p['role'], '—'))}"
            f"</td><td>{'●' * p['fouls']}</td><td>{status}</td></tr>"
        )
    parts.append("</table>")
    nights = {n["night"]: n for n in protocol["nights"]}
    for day in protocol["days"]:
        number = day["day"]
        parts.append(f"<h2>Day {number}</h2>")
        parts.append(f"<div>Opener: {_seat(protocol, day['opener'])}. Speeches: ")
        parts.append(", ".join(str(s) for s in day["speakers"]) + "</div>")
        noms = ", ".join(f"{n['by']} → {_seat(protocol, n['target'])}" for n in day["nominations"])
        parts.append(f"<div>Nominations: {noms or 'none'}</div>")
        vote = day["vote"]
        if vote is not None:
            for r in vote["rounds"]:
                parts.append(f"<table><tr><th colspan='2'>{escape(r['kind'])}</th></tr>")
                for key, count in r["tally"].items():
                    label = _seat(protocol, int(key)) if key.isdigit() else escape(key)
                    voters = [
                        str(b["voter"])
                        for b in r["ballots"]
                        if str(b["choice"]).lower() == key
                        or (key == "for" and b["choice"] is True)
                        or (key == "against" and b["choice"] is False)
                    ]
                    parts.append(
                        f"<tr><td>{label}</td><td>{count}"
                        f"{' — ' + ', '.join(voters) if voters else ''}</td></tr>"
                    )
                parts.append("</table>")
            out = ", ".join(_seat(protocol, s) for s in vote["eliminated"]) or "nobody"
            parts.append(f"<div>Result: {escape(vote['outcome'])}; out: {out}</div>")
        night = nights.get(number)
        if night is not None:
            parts.append(f"<h2>Night {number}</h2>")
            shots = ", ".join(f"{s['by']} → {s['target']}" for s in night["shots"]) or "none"
            parts.append(f"<div>Shots: {shots}. Killed: {_seat(protocol, night['killed'])}</div>")
            for kind, key in (("don_check", "sheriff"), ("sheriff_check", "black")):
                check = night[kind]
                if check is not None:
                    word = {"sheriff": "sheriff", "black": "black"}[key]
                    verdict = word if check[key] else f"not {word}"
                    who = "Don" if kind == "don_check" else "Sheriff"
                    parts.append(
                        f"<div>{who} checked {_seat(protocol, check['target'])}: {verdict}</div>"
                    )
    best = protocol["best_move"]
    if best is not None:
        named = ", ".join(str(s) for s in best["named"])
        parts.append(
            f"<h2>Best move</h2><div>{_seat(protocol, best['by'])} named {named}: "
            f"{best['correct']} black</div>"
        )
    parts.append(f"<div class='result'>{WINNERS.get(protocol['winner'], 'Not over')}</div>")
    parts.append("</body></html>")
    return "".join(parts)
