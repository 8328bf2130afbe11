"""Message validation: every client message is checked before it reaches a table."""

from __future__ import annotations

import dataclasses
import json
from typing import get_args

import pytest

from plugin.host import inputs
from plugin.web import messages
from plugin.web.messages import MAX_MESSAGE_BYTES, ProtocolError, decode


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"v":1,"id":"a","type":"vote","candidate":7}', inputs.Vote(candidate=7)),
        ('{"v":1,"id":"a","type":"vote","candidate":null}', inputs.Vote(candidate=None)),
        ('{"v":1,"id":"b","type":"lift","leave":true}', inputs.Lift(leave=True)),
        ('{"v":1,"id":"c","type":"best_move","seats":[1,2,3]}', inputs.BestMove(seats=(1, 2, 3))),
        ('{"v":1,"id":"d","type":"add_time"}', inputs.AddTime(seconds=30)),
        ('{"v":1,"id":"e","type":"choice","choice":"revote"}', inputs.Choice(choice="revote")),
        ('{"v":1,"id":"f","type":"end_game"}', inputs.EndGame(winner=None)),
        ('{"v":1,"id":"g","type":"next"}', inputs.Next()),
    ],
)
def test_valid_messages(text: str, expected: inputs.Input) -> None:
    assert messages.to_input(decode(text)) == expected


# One of every client message, with every field it may carry.
EVERY_MESSAGE = {
    "vote": {"candidate": 7},
    "lift": {"leave": False},
    "nominate": {"target": 4},
    "pass": {},
    "shoot": {"target": 5},
    "don_check": {"target": 6},
    "sheriff_check": {"target": 8},
    "best_move": {"seats": [1, 2]},
    "leave": {},
    "start": {},
    "manual": {"on": True},
    "choice": {"choice": "speeches"},
    "pause": {},
    "resume": {},
    "add_time": {"seconds": 45},
    "stream": {"on": True, "delay": 20},
    "end_speech": {},
    "foul": {"seat": 3},
    "disqualify": {"seat": 2},
    "remove": {"seat": 9},
    "undo": {},
    "end_game": {"winner": "city"},
    "next": {},
}


def test_every_message_becomes_the_input_of_its_name_with_its_fields() -> None:
    tags = {member.__struct_config__.tag for member in get_args(messages.ClientMessage)}
    assert tags == set(EVERY_MESSAGE)  # a new message needs its line here, and an input
    for tag, fields in EVERY_MESSAGE.items():
        given = messages.to_input(decode(json.dumps({"v": 1, "id": "x", "type": tag, **fields})))
        assert given.kind == tag
        own = {f.name: getattr(given, f.name) for f in dataclasses.fields(given)}
        expected = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
        assert own == expected, tag


@pytest.mark.parametrize(
    ("text", "code", "id"),
    [
        ('{"v":1,"id":"a","type":"vote","candidate":7,"voter":3}', "bad_message", "a"),
        ('{"v":1,"id":"a","type":"vote"}', "bad_message", "a"),
        ('{"v":1,"id":"a","type":"vote","candidate":"7"}', "bad_message", "a"),
        ('{"v":1,"id":"a","type":"vote","candidate":0}', "bad_message", "a"),
        ('{"v":1,"id":"a","type":"choice","choice":"shoot_everyone"}', "bad_message", "a"),
        ('{"v":1,"id":"a","type":"best_move","seats":[1,2,3,4]}', "bad_message", "a"),
        ('{"v":1,"id":"a","type":"teleport"}', "bad_message", "a"),
        ('{"v":1,"type":"pass"}', "bad_message", None),
        ('{"v":1,"id":"","type":"pass"}', "bad_message", None),
        ('{"v":2,"id":"z","type":"pass"}', "bad_version", "z"),
        ("[1,2]", "bad_message", None),
        ("{not json", "bad_json", None),
    ],
)
def test_bad_messages_are_refused_with_a_code(text: str, code: str, id: str | None) -> None:
    with pytest.raises(ProtocolError) as refusal:
        decode(text)
    assert (refusal.value.code, refusal.value.id) == (code, id)


def test_oversized_message_is_refused_before_parsing() -> None:
    text = json.dumps({"v": 1, "id": "a", "type": "pass", "pad": "x" * MAX_MESSAGE_BYTES})
    with pytest.raises(ProtocolError) as refusal:
        decode(text)
    assert refusal.value.code == "too_large"


def test_server_messages() -> None:
    assert json.loads(messages.encode_ack("a", duplicate=True)) == {
        "type": "ack",
        "v": 1,
        "id": "a",
        "duplicate": True,
    }
    error = json.loads(messages.encode_error("host_only", "no", "b"))
    assert error["type"] == "error" and error["error"] == "host_only" and error["id"] == "b"
