"""A tournament's public standings page in real Chromium (issue 34), on a real `autohost
serve`: the page opens from the club's list of tournaments before any game is signed; the
round's two finished tables are linked and their judge's sheets signed over the REST API;
the page, refreshing itself, shows each player's points as the API answers the public (the
judges' extra points of the stage hidden) and the final results; with ?view=judges and the
admin key it shows the hidden extras too; so do the club's own standings and player pages
(public: without them, saying so; ?view=judges: with them); in Russian its headings are
Russian; the strict CSP holds (no page error, only its own scripts).

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/tournament-standings.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page

from testing.browser import wait_for
from testing.process import ServerProcess
from tests.tournament.test_standings_api import play_tables, setup

from .test_widget import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
WAIT_MS = 30_000


async def shown(page: Page) -> list[list[str]]:
    """The qualifying's rows on the page: nickname and total."""
    rows = await page.evaluate(
        """() => [...document.querySelectorAll('#stage-0 tbody tr')].map((tr) =>
             [tr.cells[1].textContent, tr.cells[tr.cells.length - 1].textContent])"""
    )
    return list(rows)


def expected(doc: dict[str, Any]) -> list[list[str]]:
    return [[row["nick"], f"{row['total']:.2f}"] for row in doc["stages"][0]["rows"]]


async def club_pages_hide_them(
    page: Page, server: ServerProcess, doc: dict[str, Any], judged: dict[str, Any]
) -> None:
    """The club's season standings and a player's page, as the public sees them (the
    qualifying's extras hidden, said so) and in the judges' view (this browser keeps the
    admin key)."""
    nick = next(row["nick"] for row in judged["stages"][0]["rows"]
                if row["total"] != next(r["total"] for r in doc["stages"][0]["rows"]
                                        if r["nick"] == row["nick"]))  # fmt: skip
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as public:
        club = (await public.get("/api/club/standings")).json()
        admin = {"Authorization": f"Bearer {server.admin_key}"}
        whole = (await public.get("/api/club/standings", headers=admin)).json()
    assert club["extras_hidden"] == 2 and whole["extras_hidden"] == 0
    total = {name: next(f"{r['total']:.2f}" for r in d["rows"] if r["nick"] == nick)
             for name, d in (("public", club), ("judges", whole))}  # fmt: skip
    assert total["public"] != total["judges"]
    row = "[...document.querySelectorAll('#standings tbody tr')].find((tr) => tr.cells[1]"
    row += f".textContent === {nick!r})"
    cell = f"{row}.cells[[...document.querySelectorAll('#standings th')]"
    cell += ".findIndex((th) => th.dataset.key === 'total')].textContent"
    for view, hidden in (("public", True), ("judges", False)):
        query = "?view=judges" if view == "judges" else ""
        await page.goto(f"{server.base}/club/standings{query}")
        await wait_for(page, f"{row} !== undefined", timeout=WAIT_MS)
        assert await page.evaluate(cell) == total[view], view
        assert (await page.query_selector("#hidden-extras") is not None) == hidden, view
        player = next(r["player"] for r in club["rows"] if r["nick"] == nick)
        await page.goto(f"{server.base}/club/players/{player}{query}")
        await wait_for(page, "document.querySelector('#games tbody tr') !== null",
                       timeout=WAIT_MS)  # fmt: skip
        marked = await page.query_selector("#games tr.hidden-extras")
        assert (marked is not None) == hidden, view
        assert (await page.query_selector("#judges-view") is not None) == (not hidden), view


async def test_the_standings_page_follows_the_signed_sheets(
    browser: Browser, tmp_path: Path
) -> None:
    db = tmp_path / "log.db"
    setup(db, hide="qualifying")
    play_tables(db, 0, 0, ["q1", "q2"], seed=1)
    server = ServerProcess(db)
    server.start()
    try:
        context = await browser.new_context(viewport={"width": 1200, "height": 900})
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        answer = await page.goto(f"{server.base}/club/tournaments?lang=en")  # the club's list
        assert answer is not None and "script-src 'self'" in answer.headers.get(
            "content-security-policy", ""
        )
        await wait_for(page, "document.querySelector('#tournaments a') !== null",
                       timeout=WAIT_MS)  # fmt: skip
        await page.click("#tournaments a")  # "Cup": its standings page
        await page.wait_for_url("**/club/tournaments/t1")
        await wait_for(page, "document.getElementById('no-games') !== null", timeout=WAIT_MS)
        async with server.http() as http:
            for n, table in enumerate(["q1", "q2"], 1):
                link = {"round": 0, "table": n, "table_id": table}
                linked = await http.post("/api/club/tournaments/t1/tables", json=link)
                assert linked.status_code == 201, linked.text
            bonus = {"extra": {"2": [{"points": 0.5, "comment": "led the city"}]}}
            for table, sheet in (("q1", bonus), ("q2", {})):
                signed = await http.post(f"/api/club/sheet/{table}", json={"sheet": sheet})
                assert signed.status_code == 201, signed.text
            judged = (await http.get("/api/club/tournaments/t1/standings")).json()
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as public:
            doc = (await public.get("/api/club/tournaments/t1/standings")).json()
        assert doc["extras_hidden"] and not judged["extras_hidden"]
        # the page shows the new standings by itself (it refreshes every few seconds)
        await wait_for(page, "document.querySelectorAll('#stage-0 tbody tr').length === 20",
                       timeout=WAIT_MS)  # fmt: skip
        assert await page.query_selector(".hidden-extras") is not None
        assert await shown(page) == expected(doc)
        results = await page.evaluate(
            "[...document.querySelectorAll('#results tbody tr')]"
            ".map((tr) => tr.cells[1].textContent)"
        )
        assert results == [row["nick"] for row in doc["results"]]
        heading = await page.text_content("#club-header h1")
        assert heading == "Cup · Tournament standings"
        await screenshot(page, "tournament-standings.png")
        # the judges' view: the admin key this browser keeps, the bonus of 0.5 shown
        await page.evaluate(f"sessionStorage.setItem('autohost.admin-key', {server.admin_key!r})")
        await page.goto(f"{server.base}/club/tournaments/t1?view=judges")
        await wait_for(page, "document.getElementById('judges-view') !== null", timeout=WAIT_MS)
        await wait_for(page, "document.querySelector('#stage-0 tbody tr') !== null",
                       timeout=WAIT_MS)  # fmt: skip
        assert await shown(page) == expected(judged) != expected(doc)
        assert await page.query_selector(".hidden-extras") is None
        await club_pages_hide_them(page, server, doc, judged)
        await page.goto(f"{server.base}/club/tournaments/t1?lang=ru")
        await wait_for(page, "document.querySelector('#results') !== null", timeout=WAIT_MS)
        assert await page.text_content("#club-header h1") == "Cup · Турнирная таблица турнира"
        assert await page.text_content("h2") == "Итоговые места"
        assert errors == []
        await context.close()
    finally:
        server.stop()
