"""The protocol sheet a club files (issue 17): in the table's language, with the date, the
club, the host and the preset, a seats × days grid like a paper protocol, and one A4 page
when printed (real Chromium renders it to PDF)."""

from __future__ import annotations

import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from plugin.paths import CONFIG_DIR
from plugin.protocol import game_protocol, render_sheet
from plugin.protocol.sheet import words
from plugin.rules.events import to_record
from plugin.sim.simulate import play

LANGUAGES = ("uk", "ru", "en")


def long_game(players: int = 12) -> tuple[int, list[dict]]:
    """A whole game of random legal actions, the longest of a few seeds: (seed, records)."""
    games = {seed: play("classic", seed, players=players, keep_log=True) for seed in range(40)}
    seed = max(games, key=lambda s: len(games[s].log or []))
    longest = games[seed]
    assert longest.error is None and longest.log
    return seed, [to_record(event) for event in longest.log]


def protocol_of(game: tuple[int, list[dict]], language: str, players: int = 12) -> dict:
    seed, records = game
    protocol = game_protocol(
        preset="classic", seats=players, records=records, seed=seed,
        names=[f"Гравець {seat}" for seat in range(1, players + 1)],
        table="t7", language=language, club="Клуб «Чорний кіт»", host="Олена", date="2026-12-01",
    )  # fmt: skip
    assert protocol["refused"] == [] and protocol["over"]
    return protocol


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._skip = tag in ("style", "title")

    def handle_endtag(self, tag: str) -> None:
        self._skip = False

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.parts.append(data.strip())


def visible_text(html: str) -> list[str]:
    parser = _Text()
    parser.feed(html)
    return parser.parts


def test_every_language_has_every_word() -> None:
    def keys(table: dict, prefix: str = "") -> set[str]:
        found = set()
        for key, value in table.items():
            found |= keys(value, f"{prefix}{key}.") if isinstance(value, dict) else {prefix + key}
        return found

    loaded = {
        lang: tomllib.loads((CONFIG_DIR / "protocol" / f"{lang}.toml").read_text())
        for lang in LANGUAGES
    }
    assert keys(loaded["uk"]) == keys(loaded["ru"]) == keys(loaded["en"])


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sheet_speaks_the_tables_language(language: str) -> None:
    html = render_sheet(protocol_of(long_game(), language))
    text = " ".join(visible_text(html))
    mine = words(language)
    for key in ("title", "club", "date", "host", "rules", "seat", "player", "fouls", "out"):
        assert mine[key] in text, (language, key)
    others = [other for other in LANGUAGES if other != language]
    for other in others:
        for key in ("title", "nights", "result", "legend"):
            if words(other)[key] != mine[key]:
                assert words(other)[key] not in text, (language, other, key)
    assert f"lang='{language}'" in html


def test_the_header_names_the_club_the_host_the_date_and_the_rules() -> None:
    text = visible_text(render_sheet(protocol_of(long_game(), "uk")))
    joined = " ".join(text)
    for expected in ("Клуб «Чорний кіт»", "Олена", "2026-12-01", "classic", "t7"):
        assert expected in joined


def test_the_grid_has_a_row_per_seat_and_a_column_pair_per_day() -> None:
    protocol = protocol_of(long_game(), "en")
    html = render_sheet(protocol)
    grid = html.split("<table class='grid'>", 1)[1].split("</table>", 1)[0]
    rows = grid.split("<tr>")[3:]  # after the two header rows
    assert len(rows) == 12
    days = protocol["days"]
    assert grid.count("<th colspan='2'>Day ") == len(days) >= 2
    for row, player in zip(rows, protocol["players"], strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert len(cells) == 4 + 2 * len(days) + 1
        assert cells[0] == str(player["seat"])
        for index, day in enumerate(days):
            nominated = [n["target"] for n in day["nominations"] if n["by"] == player["seat"]]
            assert cells[4 + 2 * index] == ", ".join(map(str, nominated))
        out = player["out"]
        if out is not None:  # how and when he left, in words
            assert words("en")["how"][out["how"]] in cells[-1]
    fouled = {f["seat"] for f in protocol["fouls"]}
    for row, player in zip(rows, protocol["players"], strict=True):
        cell = re.findall(r"<td[^>]*>(.*?)</td>", row)[3]
        assert (player["seat"] in fouled) == (cell != "&nbsp;")
    assert "The city wins" in html or "The mafia wins" in html or "Draw" in html


def test_a_ballot_shows_each_round_of_the_day() -> None:
    """A tie, a revote and the lift vote: the seat's cell reads 5 → 7 → for."""
    protocol = protocol_of(long_game(), "en")
    day = protocol["days"][0]
    rounds = [
        {"kind": "vote", "tally": {}, "ballots": [{"voter": 3, "choice": 5}]},
        {"kind": "revote", "tally": {}, "ballots": [{"voter": 3, "choice": 7}]},
        {"kind": "lift", "tally": {}, "ballots": [{"voter": 3, "choice": True}]},
    ]
    day["vote"] = {"outcome": "eliminated", "eliminated": [5, 7], "rounds": rounds}
    grid = render_sheet(protocol).split("<table class='grid'>", 1)[1]
    row = grid.split("<tr>")[3 + 2]  # seat 3
    assert "<td>5 → 7 → for</td>" in row


@pytest.mark.e2e
@pytest.mark.slow
async def test_the_sheet_prints_on_one_a4_page(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    from testing.browser import launch_chromium

    sheet = tmp_path / "sheet.html"
    sheet.write_text(render_sheet(protocol_of(long_game(12), "uk")), encoding="utf-8")
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright)
        try:
            page = await browser.new_page()
            await page.goto(sheet.as_uri())
            pdf = await page.pdf(format="A4", prefer_css_page_size=True)
        finally:
            await browser.close()
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    (tmp_path / "sheet.pdf").write_bytes(pdf)
    assert pages == 1, f"the sheet took {pages} A4 pages"


def test_who_left_when_and_how_agrees_with_the_nights_and_the_votes() -> None:
    for players in (10, 12):
        protocol = protocol_of(long_game(players), "en", players)
        out = {p["seat"]: p["out"] for p in protocol["players"]}
        for night in protocol["nights"]:
            if night["killed"] is not None:
                assert out[night["killed"]] == {"how": "killed", "night": night["night"]}
        for day in protocol["days"]:
            for seat in (day["vote"] or {}).get("eliminated", []):
                assert out[seat] == {"how": "vote", "day": day["day"]}
        alive = {p["seat"] for p in protocol["players"] if p["in_game"]}
        assert {seat for seat, gone in out.items() if gone is None} == alive
