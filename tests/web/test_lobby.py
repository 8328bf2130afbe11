"""The lobby model (plugin/web/lobby.py): names, joining, seating by hand, in order of
arrival and at random, second devices, bounds; a refused request changes nothing, and the
lobby replayed from its records is the lobby that made them."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from plugin.web.lobby import MAX_NAME, Lobby, LobbyError, check_name, device_hash
from plugin.web.lobby_limits import MAX_WAITING

DEVICES = [device_hash(f"device-secret-{n:04}") for n in range(MAX_WAITING + 2)]


def commit(lobby: Lobby, log: list[dict[str, Any]], *records: dict[str, Any]) -> None:
    for record in records:
        log.append(record)
        lobby.apply(record)


def refused(lobby: Lobby, code: str, ask: Any, *args: Any) -> None:
    """`ask` raises LobbyError(code) and leaves the lobby as it was."""
    before = copy.deepcopy((lobby.entries, lobby.requests))
    with pytest.raises(LobbyError) as error:
        ask(*args)
    assert error.value.code == code, error.value.message
    assert (lobby.entries, lobby.requests) == before


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("  Anna ", "Anna"),
        ("Бурштин", "Бурштин"),
        ("<b>x</b>", "<b>x</b>"),
        ("a" * MAX_NAME, "a" * MAX_NAME),
    ],
)
def test_a_name_is_trimmed_and_kept_as_typed(raw: str, name: str) -> None:
    assert check_name(raw) == name


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "a" * (MAX_NAME + 1), "An\nna", "An\x00na", "\u202eanna", "x\u2028y", 7, None],
)
def test_a_bad_name_is_refused(raw: object) -> None:
    with pytest.raises(LobbyError) as error:
        check_name(raw)
    assert error.value.code == "bad_name"


@pytest.mark.parametrize(
    "secret", ["short", "x" * 129, "has spaces in it ok", "ünïcödé-ünïcödé-", 5]
)
def test_a_bad_device_secret_is_refused(secret: object) -> None:
    with pytest.raises(LobbyError) as error:
        device_hash(secret)
    assert error.value.code == "bad_device"


def test_the_device_is_known_by_its_hash_only() -> None:
    secret = "a-device-secret-of-some-length"
    assert secret not in device_hash(secret) and len(device_hash(secret)) == 64


def test_players_join_and_the_host_seats_them_by_hand_and_by_arrival() -> None:
    lobby, log = Lobby(10), []
    commit(lobby, log, lobby.join("Anna", DEVICES[0]))
    commit(lobby, log, lobby.join("Bohdan", DEVICES[1]))
    commit(lobby, log, lobby.join("Cyril", DEVICES[2]))
    assert [e.name for e in lobby.waiting()] == ["Anna", "Bohdan", "Cyril"]
    bohdan = lobby.waiting()[1]
    commit(lobby, log, lobby.seat(bohdan.id, 1))
    assert bohdan.seat == 1 and lobby.free_seats() == list(range(2, 11))
    commit(lobby, log, *lobby.seat_waiting("arrival"))
    assert [(e.name, e.seat) for e in lobby.seated()] == [("Bohdan", 1), ("Anna", 2), ("Cyril", 3)]
    assert lobby.waiting() == []
    assert Lobby.from_records(10, log).seated() == lobby.seated()


def test_seating_at_random_uses_the_free_seats_and_seats_as_many_as_fit() -> None:
    lobby, log = Lobby(3), []
    for n, name in enumerate(["A", "B", "C", "D"]):
        commit(lobby, log, lobby.join(name, DEVICES[n]))
    commit(lobby, log, lobby.seat(lobby.waiting()[0].id, 2))
    commit(lobby, log, *lobby.seat_waiting("random", random.Random(4)))
    seats = sorted(e.seat for e in lobby.seated() if e.seat is not None)
    assert seats == [1, 2, 3] and [e.name for e in lobby.waiting()] == ["D"]
    refused(lobby, "no_free_seat", lobby.seat_waiting, "random")
    # different draws give different seatings: the order is not simply arrival
    outcomes = set()
    for draw in range(20):
        fresh = Lobby(3)
        for n, name in enumerate(["A", "B", "C"]):
            fresh.apply(fresh.join(name, DEVICES[n]))
        for record in fresh.seat_waiting("random", random.Random(draw)):
            fresh.apply(record)
        outcomes.add(tuple(e.name for e in fresh.seated()))
    assert len(outcomes) > 1


def test_refusals_name_the_problem_and_change_nothing() -> None:
    lobby, log = Lobby(10), []
    commit(lobby, log, lobby.join("Anna", DEVICES[0]))
    commit(lobby, log, lobby.join("Bohdan", DEVICES[1]))
    anna, bohdan = lobby.waiting()
    refused(lobby, "already_joined", lobby.join, "Other", DEVICES[0])
    refused(lobby, "name_taken", lobby.join, " anna ", DEVICES[5])
    refused(lobby, "bad_seat", lobby.seat, anna.id, 11)
    refused(lobby, "bad_seat", lobby.seat, anna.id, 0)
    refused(lobby, "bad_seat", lobby.seat, anna.id, True)
    refused(lobby, "no_entry", lobby.seat, "nobody", 3)
    commit(lobby, log, lobby.seat(anna.id, 3))
    refused(lobby, "seat_taken", lobby.seat, bohdan.id, 3)
    refused(lobby, "already_seated", lobby.seat, anna.id, 4)
    refused(lobby, "bad_order", lobby.seat_waiting, "alphabet")
    refused(lobby, "no_request", lobby.approve, "nope")
    refused(lobby, "not_waiting", lobby.leave, DEVICES[0])  # a seated player keeps his seat
    commit(lobby, log, lobby.leave(DEVICES[1]))
    refused(lobby, "nobody_waiting", lobby.seat_waiting, "arrival")


def test_a_second_device_for_a_seat_waits_for_the_host() -> None:
    lobby, log = Lobby(10), []
    commit(lobby, log, lobby.join("Anna", DEVICES[0]))
    commit(lobby, log, lobby.seat(lobby.waiting()[0].id, 5))
    ask = lobby.join("ANNA", DEVICES[1])  # her phone: the same name, another device
    assert ask["type"] == "lobby.request"
    commit(lobby, log, ask)
    assert lobby.entry_of(DEVICES[1]) is None and lobby.request_of(DEVICES[1]) is not None
    refused(lobby, "already_joined", lobby.join, "Anna", DEVICES[1])
    commit(lobby, log, lobby.approve(ask["request"]))
    entry = lobby.entry_of(DEVICES[1])
    assert entry is not None and entry.seat == 5 and lobby.requests == {}
    # a third device is refused by the host: it is forgotten, the seat keeps two devices
    third = lobby.join("Anna", DEVICES[2])
    commit(lobby, log, third)
    commit(lobby, log, lobby.refuse(third["request"]))
    assert lobby.entry_of(DEVICES[2]) is None and lobby.request_of(DEVICES[2]) is None
    replayed = Lobby.from_records(10, log)
    assert replayed.entries == lobby.entries and replayed.requests == {}


def test_the_lobby_is_bounded() -> None:
    lobby, log = Lobby(10), []
    for n in range(MAX_WAITING):
        commit(lobby, log, lobby.join(f"player {n}", DEVICES[n]))
    refused(lobby, "lobby_full", lobby.join, "one more", DEVICES[MAX_WAITING])
    commit(lobby, log, *lobby.seat_waiting("arrival"))  # ten seated: room for ten more
    commit(lobby, log, lobby.join("one more", DEVICES[MAX_WAITING]))
    assert len(lobby.waiting()) == MAX_WAITING - 10 + 1


def test_seats_in_use_on_their_own_links_are_skipped() -> None:
    lobby, log = Lobby(4), []
    for n, name in enumerate(["A", "B", "C"]):
        commit(lobby, log, lobby.join(name, DEVICES[n]))
    refused(lobby, "seat_taken", lobby.seat, lobby.waiting()[0].id, 1, {1})
    commit(lobby, log, *lobby.seat_waiting("arrival", in_use={1, 3}))
    assert [(e.name, e.seat) for e in lobby.seated()] == [("A", 2), ("B", 4)]
