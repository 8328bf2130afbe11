"""A broadcast's state messages (plugin.web.hub.StateFrames over plugin.host.views.ViewSet):
the part every viewer but the host shares is built and encoded once, and each viewer's
message is that part spliced with its own keys. Whatever the game's state, each message
must still be one JSON object with no repeated key, and say exactly what the engine's own
view for that viewer says (plugin.rules.views), no more: a splice that put one seat's
secrets into another's message, or dropped a key, fails here."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings

from plugin.host.game import new_game
from plugin.host.ports import Snapshot
from plugin.host.settings import TableSettings
from plugin.host.stream import StreamView
from plugin.host.views import Viewer, ViewSet, build_view
from plugin.rules import views
from plugin.rules.state import GameState
from plugin.web.hub import StateFrames
from plugin.web.messages import VERSION
from plugin.web.rhythm import Rhythm

from ..games import PRESETS, SEEDS, first_state, picks, played

ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}
VIEWERS: list[Viewer] = [*range(1, 11), "host", None, "stream"]
ENGINE_ONLY_TO_HOST = {"roles", "checks", "shots"}  # while the game runs


def no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    assert len(keys) == len(set(keys)), f"a key repeated in one JSON object: {keys}"
    return dict(pairs)


def decode(data: bytes) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(data, object_pairs_hook=no_repeated_keys)
    return decoded


def engine_view(state: GameState, viewer: Viewer) -> dict[str, Any]:
    """The engine's own view for `viewer`, built alone, as JSON would carry it."""
    if viewer == "host":
        view = views.host_view(state)
    elif isinstance(viewer, int):
        view = views.seat_view(state, viewer)
    else:
        view = views.public_view(state)
    return json.loads(json.dumps(view))  # type: ignore[no-any-return]


def snapshot_of(state: GameState, pick: int, preset: str) -> Snapshot:
    table = TableSettings.from_record({"preset": preset, "seats": 10, "roles": ROLES})
    timer = state.timer
    return Snapshot(
        table_id="t1", version=state.version, state=state, settings=table,
        timer_id=None if timer is None else timer.id,
        timer_remaining=None if timer is None else timer.seconds * (pick % 7) / 7,
        paused=pick % 5 == 0, present=frozenset(range(1, pick % 11)),
        ending={"result": "over"} if state.over else None,
        stream=StreamView(delay=pick % 30, delayed=state) if pick % 3 == 0 else None,
    )  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=PRESETS, seed=SEEDS, choices=picks(min_size=20, max_size=250))
def test_every_viewers_spliced_message_is_its_whole_view_and_only_its_own(
    preset: str, seed: int, choices: list[int]
) -> None:
    state = first_state(preset, seed)
    checked = 0
    for pick, state in played(preset, seed, choices):  # the last one is kept
        if pick % 4:  # every fourth state, all viewers (the frames are not cheap)
            continue
        snapshot = snapshot_of(state, pick, preset)
        connected = [seat for seat in range(1, 11) if (pick >> seat) & 1]
        rhythm = Rhythm(version=pick)  # the public version (rhythm.py)
        frames = StateFrames(ViewSet(snapshot, connected), rhythm)
        messages = {viewer: decode(frames.encode(viewer)) for viewer in VIEWERS}
        for viewer, message in messages.items():
            # The whole view, as build_view gives it alone, and nothing else, but for the
            # versions: the pages' are the public one, the host's beside his own.
            whole = json.loads(json.dumps(build_view(snapshot, viewer, connected)))
            if viewer == "host":
                whole["table"]["public"] = pick
            else:
                whole["version"] = whole["table"]["version"] = pick
            assert message == {"type": "state", "v": VERSION, **whole}, viewer
            # Every key of the engine's own view, as the engine says it.
            for key, value in engine_view(state, viewer).items():
                if key != "version" or viewer == "host":
                    assert message[key] == value, (viewer, key)
            assert message["you"] == viewer
            assert message["table"]["connected"] == connected
            if viewer != "host" and not state.over:
                assert not ENGINE_ONLY_TO_HOST & message.keys(), (viewer, message.keys())
            if isinstance(viewer, int):
                assert message["me"]["seat"] == viewer
            else:
                assert "me" not in message
            assert ("controls" in message) == (viewer == "host")
            assert ("stream" in message) == (viewer == "stream")
        checked += 1
    assert checked or len(choices) < 4 or state.over


def test_a_viewer_is_encoded_once_and_the_shared_part_once() -> None:
    state = new_game(TableSettings.from_record({"preset": "online", "seats": 10}))
    snapshot = snapshot_of(state, 1, "online")
    frames = StateFrames(ViewSet(snapshot, [1, 2]), Rhythm())
    first = frames.encode(3)
    assert frames.encode(3) is first
    assert frames.encodings == 1
    head = frames.encode(4).split(b',"me":')[0]
    assert frames.encode(None).startswith(head + b',"you":null')  # one head for both
    assert frames.encodings == 3
