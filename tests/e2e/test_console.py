"""The host console in real Chromium: the tie dialogs of seed 004 in manual mode (their
options, an option clicked, closing taking the default), fouls, undo, pause and resume,
and a disqualification that needs a second click. The players' moves come straight into
the table (the widget's own buttons are tested in test_widget.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser

from plugin.host.inputs import HOST, Next, Nominate, Pass, Start, Vote

from .test_widget import Game, open_page, running_game, tile_state, wait_view

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


async def _to_the_vote(game: Game) -> None:
    """Night zero on the host's key; seats 1 and 2 nominate 3 and 4; every speech passed."""
    await game.submit(HOST, Start())
    while game.table.state.phase.value != "speech":
        await game.submit(HOST, Next())
    await game.submit(1, Nominate(target=3))
    await game.submit(1, Pass())
    await game.submit(2, Nominate(target=4))
    while game.table.state.phase.value == "speech":
        await game.submit(game.table.state.speaker, Pass())
    while game.table.state.phase.value != "voting":
        await game.submit(HOST, Next())


async def _tie(game: Game) -> None:
    for seat in (1, 2, 4, 5, 6):
        await game.submit(seat, Vote(candidate=3))
    for seat in (3, 7, 8, 9, 10):
        await game.submit(seat, Vote(candidate=4))


async def test_the_tie_dialogs_in_manual_mode(browser: Browser, loopback_ice: None, tmp_path: Path):
    async with running_game(tmp_path, voice=False, manual=True) as game:
        console = await open_page(browser, game, "host")
        assert await console.is_checked("#manual")
        await _to_the_vote(game)
        await _tie(game)
        await console.keyboard.press("Space")  # the window closes on a 5 : 5 tie

        # «Нічия»: two options, the default marked; clicking one sends it.
        await wait_view(console, "v.dialog && v.dialog.kind === 'tie'")
        assert await console.is_visible("#dialog")
        assert await console.text_content("#dialog-title") == "Нічия"
        buttons = console.locator("#dialog-options button")
        assert await buttons.all_text_contents() == [
            "Промови кандидатів",
            "Перезапустити голосування",
        ]
        assert await console.get_attribute("#dialog-options button.default", "data-choice") == (
            "speeches"
        )
        await console.click("#dialog-options button[data-choice='revote']")
        await wait_view(console, "v.dialog === null && v.vote.round && v.vote.round.number === 2")
        assert not await console.is_visible("#dialog")
        while not (game.table.state.vote.round.number == 2 and game.table.state.voters):
            await game.submit(HOST, Next())  # the short pause before the revote

        # The same tie again: «Повторна нічия», one option; closing it takes the default.
        await _tie(game)
        await console.keyboard.press("Space")
        await wait_view(console, "v.dialog && v.dialog.kind === 'repeat_tie'")
        assert await console.text_content("#dialog-title") == "Повторна нічия"
        assert await buttons.all_text_contents() == ["Завершити голосування"]
        await console.click("#dialog-close")
        await wait_view(console, "v.dialog === null")
        assert game.table.state.vote is None or game.table.state.vote.outcome == "nobody"
        assert game.table.state.alive == frozenset(range(1, 11))  # nobody eliminated
        for seat in (3, 4):
            tile = await tile_state(console, seat)
            assert "eliminated" not in tile["classes"] and "tied" not in tile["classes"]
        assert console.errors == []  # type: ignore[attr-defined]


async def test_fouls_undo_pause_and_a_disqualification_from_the_console(
    browser: Browser, loopback_ice: None, tmp_path: Path
):
    async with running_game(tmp_path, voice=False, language="en") as game:
        console = await open_page(browser, game, "host")
        await console.keyboard.press("Space")  # the lobby's next step: start
        await wait_view(console, "v.phase === 'black_meeting'")

        await console.click('.tile[data-seat="5"] .foul-btn')
        await wait_view(console, "v.fouls['5'] === 1")
        assert (await console.text_content('.tile[data-seat="5"] .fouls')) == "●"
        await console.click("#undo")
        await wait_view(console, "!('5' in v.fouls)")

        await console.click("#pause")
        await wait_view(console, "v.table.paused === true")
        assert await console.is_visible("#paused")
        assert await console.is_disabled("#pause")
        await console.click("#resume")
        await wait_view(console, "v.table.paused === false")

        # A disqualification asks again; only the second click sends it.
        await console.click('.tile[data-seat="10"] .disqualify-btn')
        assert await console.text_content('.tile[data-seat="10"] .disqualify-btn') == "Sure?"
        assert 10 in game.table.state.alive
        await console.click('.tile[data-seat="10"] .disqualify-btn')
        await wait_view(console, "!v.alive.includes(10)")
        assert "out" in (await tile_state(console, 10))["classes"]
        assert console.errors == []  # type: ignore[attr-defined]
