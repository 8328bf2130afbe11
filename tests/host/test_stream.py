"""Stream with roles (issue 17): the host turns it on with a delay; then, and only then, the
stream overlay's view carries roles and night actions, each once the delay has passed since
it happened (the table refreshes the overlay when it has); a watch spectator never gets
them; turning it off stops at once; the setting survives a restart; bad input changes
nothing."""

from __future__ import annotations

from typing import Any

from plugin.host.inputs import HOST, SheriffCheck, Start, Stream
from plugin.host.views import STREAM, build_view
from plugin.rules.state import Phase

from .conftest import ROLES, Harness

DELAY = 60


def stream_of(harness: Harness) -> Any:
    return build_view(harness.table.snapshot(), STREAM)["stream"]


def watch_view(harness: Harness) -> dict[str, Any]:
    return build_view(harness.table.snapshot(), None)


async def test_off_by_default_nothing_reaches_the_overlay(harness: Harness) -> None:
    await harness.ok(HOST, Start())
    await harness.advance(DELAY * 5)
    assert stream_of(harness) is None
    assert build_view(harness.table.snapshot(), HOST)["streaming"] == {"on": False, "delay": None}
    assert "roles" not in build_view(harness.table.snapshot(), STREAM)


async def test_roles_reach_the_overlay_only_after_the_delay(harness: Harness) -> None:
    await harness.ok(HOST, Stream(on=True, delay=DELAY))
    assert build_view(harness.table.snapshot(), HOST)["streaming"] == {"on": True, "delay": DELAY}
    assert stream_of(harness) == {"delay": DELAY, "roles": {}, "black": [], "checks": [],
                                  "shots": []}  # fmt: skip
    await harness.ok(HOST, Start())  # the roles are dealt now
    await harness.advance(DELAY - 1)
    assert stream_of(harness)["roles"] == {}
    published = len(harness.hub.snapshots)
    await harness.advance(1)  # no input at all: the table refreshes the overlay by itself
    assert len(harness.hub.snapshots) > published
    shown = build_view(harness.hub.last, STREAM)["stream"]
    assert shown["roles"]["1"] == "don" and shown["roles"]["4"] == "sheriff"
    assert shown["black"] == sorted(s for s, role in ROLES.items() if role != "sheriff")
    assert "roles" not in watch_view(harness)  # a watch spectator: never


async def test_a_check_reaches_the_overlay_a_delay_after_it_was_made(harness: Harness) -> None:
    await harness.ok(HOST, Stream(on=True, delay=DELAY))
    await harness.to_day_one()
    while harness.table.state.phase is not Phase.SHERIFF_CHECK:
        await harness.expire()
    checked_at = harness.clock.now()
    await harness.ok(4, SheriffCheck(target=2))
    assert harness.table.state.checks  # the host sees it at once
    await harness.advance(DELAY - 0.5)
    assert stream_of(harness)["checks"] == []
    assert harness.clock.now() < checked_at + DELAY
    await harness.advance(0.5)
    assert stream_of(harness)["checks"] == [
        {"by": 4, "kind": "sheriff_check", "target": 2, "result": True}
    ]
    assert "checks" not in watch_view(harness)


async def test_turning_it_off_stops_at_once(harness: Harness) -> None:
    await harness.ok(HOST, Stream(on=True, delay=0))
    await harness.ok(HOST, Start())
    assert stream_of(harness)["roles"]  # no delay: at once
    await harness.ok(HOST, Stream(on=False))
    assert stream_of(harness) is None
    assert harness.hub.last.stream is None  # the overlay was told so


async def test_the_setting_and_the_delay_survive_a_restart(harness: Harness) -> None:
    await harness.ok(HOST, Stream(on=True, delay=DELAY))
    await harness.ok(HOST, Start())
    await harness.reopen()
    assert harness.table.stream.setting.on and harness.table.stream.setting.delay == DELAY
    assert stream_of(harness)["roles"] == {}  # the restart shows nothing early
    await harness.advance(DELAY)
    assert stream_of(harness)["roles"]["1"] == "don"


async def test_bad_input_is_refused_and_changes_nothing(harness: Harness) -> None:
    before = len(harness.log.entries("t1"))
    for sender, fields, code in (
        (HOST, {"on": True, "delay": 601}, "bad_delay"),
        (HOST, {"on": True, "delay": -1}, "bad_delay"),
        (3, {"on": True, "delay": 10}, "host_only"),
        ("watch", {"on": True, "delay": 10}, "spectator"),
    ):
        verdict = await harness.send(sender, Stream(**fields))
        assert not verdict.ok and verdict.code == code, (sender, fields, verdict)
    assert len(harness.log.entries("t1")) == before
    assert not harness.table.stream.setting.on
