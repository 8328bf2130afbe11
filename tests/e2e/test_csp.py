"""The pages under their Content-Security-Policy in real Chromium, served by a real
`autohost serve` (issue 31, "headers"; plugin/web/headers.py).

A foreign site must not be able to frame the console (clickjacking "Disqualify"): its
frame is refused, the console's script never runs in it. And every page (the console, a
seat's widget, the spectators' watch page, the lobby's join page, the landing page) runs
under the strict policy without a single violation: no inline script or style of ours
was left behind that the policy would block.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page

from testing import ServerProcess
from testing.browser import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
LONG_MS = 60_000
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}
# Every violation the page reports, and every console line about the policy.
RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__csp.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}`);
});
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "autohost.db", options=["--no-voice"]) as running:
        yield running


def new_table(server: ServerProcess) -> dict[str, Any]:
    body = {"preset": "online", "language": "uk", "seats": 10, "roles": ROLES}
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    answer = httpx.post(f"{server.base}/api/tables", json=body, headers=headers, timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


async def watched_page(browser: Browser) -> tuple[Page, list[str]]:
    context = await browser.new_context()
    await context.add_init_script(RECORD_VIOLATIONS)
    page = await context.new_page()
    page.set_default_timeout(LONG_MS)
    logged: list[str] = []
    page.on("console", lambda m: logged.append(m.text) if "Content Security" in m.text else None)
    return page, logged


async def test_a_foreign_page_cannot_frame_the_console(
    browser: Browser, server: ServerProcess
) -> None:
    links = new_table(server)
    context = await browser.new_context()
    try:
        page = await context.new_page()
        foreign = f'<!doctype html><title>a prize!</title><iframe src="{links["host"]["link"]}">'

        async def fulfil(route: Any) -> None:
            await route.fulfill(status=200, content_type="text/html", body=foreign)

        await context.route("http://foreign.example/**", fulfil)
        await page.goto("http://foreign.example/")
        await page.wait_for_load_state("load")
        await asyncio.sleep(2)  # time enough for the console's script, had it loaded
        framed = [frame for frame in page.frames if frame is not page.main_frame]
        assert framed, "the iframe is there"
        for frame in framed:
            assert not frame.url.startswith(server.base), frame.url  # an error page instead
            assert await frame.evaluate("typeof window.__console") == "undefined"
    finally:
        await context.close()


async def test_every_page_runs_under_its_policy_without_a_violation(
    browser: Browser, server: ServerProcess
) -> None:
    links = new_table(server)
    pages = {
        "console": (links["host"]["link"], "window.__console?.view != null"),
        "widget": (links["seats"][4]["link"], "window.__widget?.view != null"),
        "watch": (links["watch"]["link"], "window.__watch?.view != null"),
        "join": (links["invite"]["link"], "!document.querySelector('#join').hidden"),
        "landing": (f"{server.base}/", "document.querySelector('h1') != null"),
    }
    for name, (url, ready) in pages.items():
        page, logged = await watched_page(browser)
        try:
            answer = await page.goto(url)
            assert answer is not None and "frame-ancestors 'none'" in (
                await answer.header_value("content-security-policy") or ""
            )
            await wait_for(page, ready, timeout=LONG_MS)
            await asyncio.sleep(1)  # what the page does next (its sockets, its media)
            assert await page.evaluate("window.__csp") == [], name
            assert logged == [], (name, logged)
        finally:
            await page.context.close()


async def test_the_tournament_pages_run_under_their_policy(
    browser: Browser, server: ServerProcess
) -> None:
    """Issue 34's pages: the organiser's, a player's tournament page (waiting for his
    round) and the judges' board (a round being played), without a violation."""
    headers = {"Authorization": f"Bearer {server.admin_key}"}

    def call(path: str, body: dict[str, Any]) -> Any:
        answer = httpx.post(f"{server.base}/api/club/{path}", json=body, headers=headers,
                            timeout=60)  # fmt: skip
        assert answer.is_success, answer.text
        return answer.json()

    nicks = [f"P{n}" for n in range(1, 21)]
    for nick in nicks:
        call("players", {"nick": nick})
    call("tournaments", {"name": "Cup", "players": nicks, "tables": 2, "games": 2})
    call("tournaments/t1/seat", {"seconds": 2})
    link = call("tournaments/t1/links", {})["links"][0]["link"]
    page, logged = await watched_page(browser)
    try:
        await page.goto(link)
        await wait_for(page, "window.__tournament?.status === 'waiting'")
        await asyncio.sleep(1)
        assert await page.evaluate("window.__csp") == [], "tournament page"
        assert logged == [], ("tournament page", logged)
    finally:
        await page.context.close()
    first = call("tournaments/t1/start", {"round": 0})["tables"][0]["id"]
    call("tournaments/t1/absent", {"table": first, "seat": 1})  # its game started without
    pages = {
        "organiser": (f"{server.base}/club/organiser/t1", "#organiser-key", ".round"),
        "board": (f"{server.base}/club/tournaments/t1/board", "#board-login", ".board-table"),
    }
    for name, (url, login, ready) in pages.items():
        page, logged = await watched_page(browser)
        try:
            await page.goto(url)
            await page.fill(f"{login} input", server.admin_key)
            await page.click(f"{login} button")
            await page.wait_for_selector(ready)
            await asyncio.sleep(1)
            assert await page.evaluate("window.__csp") == [], name
            assert logged == [], (name, logged)
        finally:
            await page.context.close()
