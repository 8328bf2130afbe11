"""Hypothesis strategies for bad WebSocket input: raw bytes, text that is not JSON, random
JSON, truncated messages, valid envelopes with fields of the wrong type, unknown types and
fields, bad versions and ids, huge strings, deep nesting, and valid types with bad seats.

None of them is a message the table may accept (the tests check each gets an error and
changes nothing), so valid ones are never generated: a seat field is always outside the
table or not a candidate, `candidate: null` (abstaining) is never sent.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from plugin.server.http import WS_MAX_BYTES
from plugin.web.messages import MAX_MESSAGE_BYTES

SEATS = 10
CANDIDATES = (5, 6)  # the fuzzed table's day-1 vote
SENDER = 3  # the fuzzing seat (a voter who has not voted)

# Every message type with the fields it takes (plugin/web/messages.py), for envelopes of
# known types.
TYPES: dict[str, dict[str, str]] = {
    "vote": {"candidate": "seat"}, "lift": {"leave": "bool"}, "nominate": {"target": "seat"},
    "pass": {}, "shoot": {"target": "seat"}, "don_check": {"target": "seat"},
    "sheriff_check": {"target": "seat"}, "best_move": {"seats": "seats"}, "leave": {},
    "start": {}, "manual": {"on": "bool"}, "choice": {"choice": "choice"}, "pause": {},
    "resume": {}, "add_time": {"seconds": "seconds"}, "end_speech": {}, "foul": {"seat": "seat"},
    "disqualify": {"seat": "seat"}, "remove": {"seat": "seat"}, "undo": {},
    "end_game": {"winner": "winner"}, "next": {},
}  # fmt: skip

ids = st.text(min_size=1, max_size=64).filter(lambda s: s.strip() != "")
json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)


def wrong_for(kind: str) -> st.SearchStrategy[Any]:
    """A value of the wrong JSON type for a field of this kind."""
    not_int = (
        st.text(max_size=5) | st.floats() | st.booleans() | st.lists(st.integers(), max_size=2)
    )
    choices = {"speeches", "revote", "end", "close", "start_revote"}
    return {
        "seat": not_int | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        "seats": st.integers()
        | st.text(max_size=5)
        | st.lists(st.text(max_size=2), min_size=1, max_size=3),
        "bool": st.integers()
        | st.text(max_size=5)
        | st.none()
        | st.lists(st.booleans(), max_size=2),
        "choice": st.integers()
        | st.booleans()
        | st.text(max_size=12).filter(lambda s: s not in choices),
        "seconds": st.text(max_size=5)
        | st.floats()
        | st.booleans()
        | st.integers(max_value=0)
        | st.integers(min_value=301),
        "winner": st.integers()
        | st.booleans()
        | st.text(max_size=6).filter(lambda s: s not in {"city", "mafia", "draw"}),
    }[kind]


# Seats no message may use: outside the table or outside what the protocol allows.
outside = (
    st.sampled_from([0, -1, SEATS + 1, 42, 99, 100, 2**31, 2**63, -(2**63)])
    | st.integers(min_value=SEATS + 1)
    | st.integers(max_value=0)
)


def envelope(type: str, id: str = "m", **fields: Any) -> dict[str, Any]:
    return {"v": 1, "id": id, "type": type, **fields}


@st.composite
def wrong_types(draw: st.DrawFn) -> bytes:
    """A known type whose field has the wrong JSON type (or is missing)."""
    type = draw(st.sampled_from([t for t, f in TYPES.items() if f]))
    fields = {name: draw(wrong_for(kind)) for name, kind in TYPES[type].items()}
    if draw(st.booleans()) and type not in ("end_game", "add_time"):  # those have defaults
        fields = {}  # a required field missing
    return json.dumps(envelope(type, draw(ids), **fields)).encode()


@st.composite
def bad_seats(draw: st.DrawFn) -> bytes:
    """A valid type with a seat outside the table, or (a vote) not a candidate / himself."""
    type = draw(st.sampled_from(["vote", "nominate", "shoot", "don_check", "sheriff_check",
                                 "best_move", "foul", "disqualify", "remove"]))  # fmt: skip
    seat = draw(outside)
    if type == "vote" and draw(st.booleans()):
        seat = draw(st.sampled_from([s for s in range(1, SEATS + 1) if s not in CANDIDATES]))
    if type == "best_move":
        fields: dict[str, Any] = {"seats": draw(st.lists(outside, min_size=1, max_size=4))}
    else:
        fields = {TYPES[type] and next(iter(TYPES[type])): seat}
    return json.dumps(envelope(type, draw(ids), **fields)).encode()


@st.composite
def bad_envelopes(draw: st.DrawFn) -> bytes:
    """Unknown types, unknown extra fields (e.g. a "seat" to vote as someone else), bad
    versions, bad ids, missing envelope fields."""
    choice = draw(st.integers(0, 4))
    if choice == 0:
        type = draw(st.text(max_size=20).filter(lambda t: t not in TYPES))
        message = envelope(type, draw(ids))
    elif choice == 1:
        message = envelope("vote", draw(ids), candidate=CANDIDATES[0])
        key = draw(
            st.sampled_from(["seat", "voter", "table", "token", "as"])
            | st.text(min_size=1, max_size=8)
        )
        if key in ("v", "id", "type", "candidate"):
            key = "seat"
        message[key] = draw(json_values)
    elif choice == 2:
        message = envelope("vote", draw(ids), candidate=CANDIDATES[0])
        message["v"] = draw(
            st.integers().filter(lambda v: v != 1) | st.text(max_size=3) | st.none()
        )
    elif choice == 3:
        message = envelope("vote", "x", candidate=CANDIDATES[0])
        message["id"] = draw(
            st.just("") | st.text(min_size=65, max_size=80) | st.integers() | st.none()
        )
    else:
        message = envelope("vote", draw(ids), candidate=CANDIDATES[0])
        del message[draw(st.sampled_from(["v", "id", "type"]))]
    return json.dumps(message).encode()


@st.composite
def truncated(draw: st.DrawFn) -> bytes:
    """A valid message cut short (never at its full length)."""
    full = json.dumps(envelope("vote", draw(ids), candidate=CANDIDATES[0])).encode()
    return full[: draw(st.integers(0, len(full) - 1))]


@st.composite
def deep(draw: st.DrawFn) -> bytes:
    depth = draw(st.integers(1, MAX_MESSAGE_BYTES // 2))
    open_, close = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    cut = draw(st.booleans())
    body = open_ * depth + "1" + ("" if cut else close * depth)
    return body.encode()


@st.composite
def huge(draw: st.DrawFn) -> bytes:
    # Over the protocol's 4 KiB, under the server's frame limit (a bigger frame closes the
    # socket unread, 1009: tests/hostile/test_real_server.py).
    size = draw(st.integers(MAX_MESSAGE_BYTES + 1, WS_MAX_BYTES - 1024))
    where = draw(st.sampled_from(["id", "candidate", "type", "raw"]))
    filler = "x" * size
    if where == "raw":
        return filler.encode()
    message = envelope("vote", "m", candidate=CANDIDATES[0])
    message[where] = filler
    return json.dumps(message).encode()


def as_text_or_bytes(data: st.SearchStrategy[bytes]) -> st.SearchStrategy[tuple[str, bytes]]:
    return st.tuples(st.sampled_from(["text", "bytes"]), data)


# What gets sent: ("text" | "bytes", payload). Raw bytes that are not UTF-8 go as binary.
bad_messages = st.one_of(
    st.tuples(st.just("bytes"), st.binary(max_size=300)),
    st.tuples(
        st.just("text"), st.text(max_size=300).filter(lambda s: not _is_json(s)).map(str.encode)
    ),
    as_text_or_bytes(json_values.map(lambda v: json.dumps(v).encode())),
    as_text_or_bytes(truncated()),
    as_text_or_bytes(wrong_types()),
    as_text_or_bytes(bad_seats()),
    as_text_or_bytes(bad_envelopes()),
    as_text_or_bytes(deep()),
    as_text_or_bytes(huge()),
)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
