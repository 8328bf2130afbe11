"""The widget at night and in the morning, in real Chromium: each role's own buttons and
results, privately (the mafia shoots, the don and the sheriff check), and the best move of
the player killed first (pick three, send)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser

from plugin.host.inputs import HOST, Next, Pass, Shoot, Start

from .test_widget import Game, click_tile_button, open_page, running_game, tile_state, wait_view

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


async def _to_the_first_night(game: Game) -> None:
    await game.submit(HOST, Start())
    while game.table.state.phase.value != "speech":
        await game.submit(HOST, Next())
    while game.table.state.phase.value == "speech":
        await game.submit(game.table.state.speaker, Pass())
    while game.table.state.phase.value != "shot":
        await game.submit(HOST, Next())


async def test_night_actions_and_the_best_move_through_the_widget(
    browser: Browser, loopback_ice: None, tmp_path: Path
):
    # Seats: 2 sheriff, 7 don, 8 and 9 mafia (test_widget.ROLES); 1 is a civilian.
    async with running_game(tmp_path, voice=False, language="en") as game:
        pages = {seat: await open_page(browser, game, seat) for seat in (1, 2, 7, 8)}
        await _to_the_first_night(game)

        # The shot: only the black players get the buttons; their team is marked for them.
        await wait_view(pages[8], "v.me.action === 'shoot'")
        assert await pages[8].text_content("#action-title") == "Night: choose whom to shoot"
        assert "shoot-btn" in " ".join((await tile_state(pages[8], 1))["buttons"])
        assert (await tile_state(pages[8], 9))["classes"].count("out") == 0
        assert await pages[8].text_content('.tile[data-seat="9"] .role-tag') == "Black team"
        for seat in (1, 2):
            await wait_view(pages[seat], "v.phase === 'shot'")
            assert (await tile_state(pages[seat], 3))["buttons"] == []
            assert await pages[seat].text_content('.tile[data-seat="8"] .role-tag') == ""
        await game.submit(7, Shoot(target=1))
        await game.submit(9, Shoot(target=1))
        await click_tile_button(pages[8], 1, "shoot-btn")

        # The don looks for the sheriff; the sheriff checks a black player: private results.
        await wait_view(pages[7], "v.me.action === 'don_check'")
        await click_tile_button(pages[7], 2, "don_check-btn")
        await wait_view(pages[7], "v.me.checks.length === 1")
        assert await pages[7].text_content("#checks") == "2: sheriff"
        await wait_view(pages[2], "v.me.action === 'sheriff_check'")
        assert (await tile_state(pages[2], 2))["buttons"] == []  # not himself
        await click_tile_button(pages[2], 9, "sheriff_check-btn")
        await wait_view(pages[2], "v.me.checks.length === 1")
        assert await pages[2].text_content("#checks") == "9: black"
        assert await pages[8].text_content("#checks") == ""
        for page in pages.values():
            assert page.errors == []  # type: ignore[attr-defined]


# The player killed first is out when his last word comes; his view still offers the
# best move (plugin/rules/views.py, commit 8ac59c4).
async def test_the_best_move_of_the_player_killed_first(
    browser: Browser, loopback_ice: None, tmp_path: Path
):
    async with running_game(tmp_path, voice=False, language="en") as game:
        pages = {1: await open_page(browser, game, 1)}
        await _to_the_first_night(game)
        for seat in (7, 8, 9):
            await game.submit(seat, Shoot(target=1))
        while game.table.state.phase.value != "morning_last_word":
            await game.submit(HOST, Next())
        assert game.table.state.speaker == 1
        await wait_view(pages[1], "v.me.action === 'best_move'", timeout=5_000)
        for seat in (7, 8, 9):
            await click_tile_button(pages[1], seat, "pick-btn")
        await pages[1].click(".best-move-send")
        await wait_view(pages[1], "v.me.action === null")
        assert game.table.state.best_move is not None
        assert game.table.state.best_move[1] == (7, 8, 9)
        for page in pages.values():
            assert page.errors == []  # type: ignore[attr-defined]
