"""Message validation: every client message is checked before it reaches a table."""

from __future__ import annotations

import json

import pytest

from plugin.web import messages
from plugin.web.messages import MAX_MESSAGE_BYTES, ProtocolError, decode


@pytest.mark.parametrize(
    ("text", "kind", "fields"),
    [
        ('{"v":1,"id":"a","type":"vote","candidate":7}', "vote", {"candidate": 7}),
        ('{"v":1,"id":"a","type":"vote","candidate":null}', "vote", {"candidate": None}),
        ('{"v":1,"id":"b","type":"lift","leave":true}', "lift", {"leave": True}),
        ('{"v":1,"id":"c","type":"best_move","seats":[1,2,3]}', "best_move", {"seats": [1, 2, 3]}),
        ('{"v":1,"id":"d","type":"add_time"}', "add_time", {"seconds": 30}),
        ('{"v":1,"id":"e","type":"choice","choice":"revote"}', "choice", {"choice": "revote"}),
        ('{"v":1,"id":"f","type":"end_game"}', "end_game", {"winner": None}),
        ('{"v":1,"id":"g","type":"next"}', "next", {}),
    ],
)
def test_valid_messages(text: str, kind: str, fields: dict) -> None:
    message = decode(text)
    assert messages.message_type(message) == kind
    assert messages.message_fields(message) == fields


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
