"""The lobby of one table (issue 17): who opened the invite link and is waiting, who was
seated where, and which second devices wait for the host's approval.

Theory of operation:
- The lobby is rebuilt from the table's event log: every change is a `lobby.*` record
  (a table-level record, never an engine event), committed before it counts, so the lobby
  survives a restart and a failover like the game does. `Lobby.apply` replays one record.
- Each change is asked for first (`join`, `seat`, `seat_waiting`, `approve`, `refuse`,
  `leave`): the question checks it and answers the records to commit, or raises
  `LobbyError` and changes nothing. Only `apply` changes the lobby.
- A device is known by the SHA-256 of the secret its browser keeps (localStorage); the log
  keeps only the hash. A device bound to a seated entry gets its seat again on its own; a
  newcomer who types the name of a seated player is a second device for that seat, and
  waits for the host's approval (`approve` binds it, `refuse` forgets it).
- The lobby is bounded: at most MAX_WAITING players and devices wait at once.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from plugin.host.settings import (  # a name fits a tile and a protocol's column
    MAX_NAME,
    has_hidden_characters,
)

from . import names
from .lobby_limits import MAX_WAITING

DEVICE_ALPHABET = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")
MIN_DEVICE, MAX_DEVICE = 16, 128
Order = Literal["arrival", "random"]


class LobbyError(Exception):
    """A refused lobby request; `code` is stable (the pages translate it: refusal.<code>)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_name(raw: object) -> str:
    """A nickname as it will show: trimmed, 1..MAX_NAME characters, no control characters
    (a line break or a direction override would garble the tiles and the protocol)."""
    if not isinstance(raw, str):
        raise LobbyError("bad_name", "a name is text")
    if not raw.strip():
        raise LobbyError("bad_name", "type a name")
    try:  # NFKC, no invisible characters, a few accents a letter (issue 31, names.py)
        name = names.normalised(raw)
    except names.BadName as refusal:
        raise LobbyError("bad_name", str(refusal)) from None
    if len(name) > MAX_NAME:
        raise LobbyError("bad_name", f"a name is at most {MAX_NAME} characters")
    if has_hidden_characters(name):
        raise LobbyError("bad_name", "a name may not hold control characters")
    return name


def device_hash(secret: object) -> str:
    """The hash the lobby knows a device by; the secret itself is never stored."""
    if (
        not isinstance(secret, str)
        or not MIN_DEVICE <= len(secret) <= MAX_DEVICE
        or not set(secret) <= DEVICE_ALPHABET
    ):
        message = f"a device secret is {MIN_DEVICE}..{MAX_DEVICE} letters, digits, '-' or '_'"
        raise LobbyError("bad_device", message)
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(slots=True)
class Entry:
    """One player who came through the invite link: waiting (seat None) or seated."""

    id: str
    name: str
    arrived: int
    seat: int | None = None
    devices: set[str] = field(default_factory=set)
    player: str | None = None  # the club's player id of a member who came by his own link


@dataclass(frozen=True, slots=True)
class Request:
    """A second device asking for a seated player's seat."""

    id: str
    entry: str
    device: str
    arrived: int


def _new_id() -> str:
    return secrets.token_hex(4)


class Lobby:
    """The lobby of a table of `seats` seats (see the module's theory of operation)."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.entries: dict[str, Entry] = {}
        self.requests: dict[str, Request] = {}
        self._arrivals = 0

    @classmethod
    def from_records(cls, seats: int, records: Iterable[Mapping[str, Any]]) -> Lobby:
        lobby = cls(seats)
        for record in records:
            if str(record.get("type", "")).startswith("lobby."):
                lobby.apply(record)
        return lobby

    # --- what the lobby holds ----------------------------------------------------------

    def waiting(self) -> list[Entry]:
        """The players not seated yet, in order of arrival."""
        return sorted((e for e in self.entries.values() if e.seat is None), key=_arrival)

    def seated(self) -> list[Entry]:
        return sorted((e for e in self.entries.values() if e.seat is not None), key=_seat)

    def free_seats(self, in_use: Collection[int] = ()) -> list[int]:
        """The seats no lobby player holds, nor a player on the seat's own link (`in_use`:
        the seats connected now)."""
        taken = {e.seat for e in self.entries.values()} | set(in_use)
        return [seat for seat in range(1, self.seats + 1) if seat not in taken]

    def entry_of(self, device: str) -> Entry | None:
        return next((e for e in self.entries.values() if device in e.devices), None)

    def request_of(self, device: str) -> Request | None:
        return next((r for r in self.requests.values() if r.device == device), None)

    # --- questions: the records a change takes, or LobbyError ---------------------------

    def join(
        self,
        name: object,
        device: str,
        others: Collection[str] = (),
        *,
        player: str | None = None,
    ) -> dict[str, Any]:
        """A newcomer's device gives its name: a place in the lobby, or (the name of a
        seated player) a request for that seat, for the host to approve. `others`: the
        names of the seats the lobby did not fill (a player on his seat's own link), which
        no newcomer may take, nor one that looks the same (names.skeleton). A club member
        (`player`: his id, issue 33) joins under his roster name, without typing it."""
        checked = check_name(name)
        if any(_same(checked, other) for other in others):
            raise LobbyError("name_taken", f"{checked!r} already sits at the table: pick another")
        if self.entry_of(device) is not None or self.request_of(device) is not None:
            raise LobbyError("already_joined", "this device is already in the lobby")
        if len(self.waiting()) + len(self.requests) >= MAX_WAITING:
            raise LobbyError("lobby_full", f"the lobby holds {MAX_WAITING} players at most")
        same = next((e for e in self.entries.values() if _same(e.name, checked)), None)
        if same is None:
            record = {"type": "lobby.join", "entry": _new_id(), "name": checked, "device": device}
            return record if player is None else {**record, "player": player}
        if same.seat is None:
            raise LobbyError("name_taken", f"{checked!r} is already waiting: pick another name")
        return {"type": "lobby.request", "request": _new_id(), "entry": same.id, "device": device}

    def seat(self, entry_id: object, seat: object, in_use: Collection[int] = ()) -> dict[str, Any]:
        """The host seats one waiting player on a free seat."""
        entry = self.entries.get(entry_id) if isinstance(entry_id, str) else None
        if entry is None:
            raise LobbyError("no_entry", "nobody of that name is waiting")
        if entry.seat is not None:
            raise LobbyError("already_seated", f"{entry.name} already sits at seat {entry.seat}")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= self.seats:
            raise LobbyError("bad_seat", f"a seat is 1..{self.seats}, not {seat!r}")
        if seat not in self.free_seats(in_use):
            raise LobbyError("seat_taken", f"seat {seat} is taken")
        return {"type": "lobby.seat", "entry": entry.id, "seat": seat}

    def seat_waiting(
        self, order: str, rng: random.Random | None = None, in_use: Collection[int] = ()
    ) -> list[dict[str, Any]]:
        """The host seats the waiting players on the free seats: in order of arrival (the
        first comer the lowest seat), or at random. As many as there are free seats."""
        if order not in ("arrival", "random"):
            raise LobbyError("bad_order", f"seat in order of 'arrival' or 'random', not {order!r}")
        waiting, free = self.waiting(), self.free_seats(in_use)
        if not waiting:
            raise LobbyError("nobody_waiting", "nobody is waiting")
        if not free:
            raise LobbyError("no_free_seat", "every seat is taken")
        if order == "random":
            (rng or random.SystemRandom()).shuffle(free)
        return [
            {"type": "lobby.seat", "entry": entry.id, "seat": seat}
            for entry, seat in zip(waiting, free, strict=False)
        ]

    def approve(self, request_id: object) -> dict[str, Any]:
        return {"type": "lobby.approve", "request": self._request(request_id).id}

    def refuse(self, request_id: object) -> dict[str, Any]:
        return {"type": "lobby.refuse", "request": self._request(request_id).id}

    def leave(self, device: str) -> dict[str, Any]:
        """A waiting player (or a device awaiting approval) leaves; a seated one stays."""
        request = self.request_of(device)
        if request is not None:
            return {"type": "lobby.refuse", "request": request.id}
        entry = self.entry_of(device)
        if entry is None or entry.seat is not None:
            raise LobbyError("not_waiting", "this device is not waiting in the lobby")
        return {"type": "lobby.leave", "entry": entry.id}

    def unseat(self, entry_id: object) -> dict[str, Any]:
        """The host takes a seated player off his seat: he waits again (issue 31)."""
        entry = self._entry(entry_id)
        if entry.seat is None:
            raise LobbyError("not_seated", f"{entry.name} has no seat")
        return {"type": "lobby.unseat", "entry": entry.id}

    def remove(self, entry_id: object) -> list[dict[str, Any]]:
        """The host removes a player from the lobby, seated or waiting, with the devices
        asking for his seat (issue 31)."""
        return self._gone([self._entry(entry_id)])

    def clear(self) -> list[dict[str, Any]]:
        """The host clears the lobby: every waiting player and every device asking."""
        records = self._gone(self.waiting())
        return records + [{"type": "lobby.refuse", "request": r} for r in self.requests]

    def vacate(self, seat: int) -> list[dict[str, Any]]:
        """Seat `seat`'s link was re-issued: the player the lobby seated there leaves it,
        devices and all, so no path of the old device's leads back to the seat."""
        return self._gone([e for e in self.entries.values() if e.seat == seat])

    def absent(self, connected: Collection[str]) -> list[dict[str, Any]]:
        """The waiting players and the devices asking whose devices have no lobby socket
        open (`connected`): a waiting place lives only while its device is there."""
        gone = [e for e in self.waiting() if not e.devices & set(connected)]
        records = self._gone(gone)
        return records + [
            {"type": "lobby.refuse", "request": r.id}
            for r in self.requests.values()
            if r.device not in connected and r.entry not in {e.id for e in gone}
        ]

    def _gone(self, entries: Iterable[Entry]) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        for entry in entries:
            records += [
                {"type": "lobby.refuse", "request": r.id}
                for r in self.requests.values()
                if r.entry == entry.id
            ]
            records.append({"type": "lobby.leave", "entry": entry.id})
        return records

    def _entry(self, entry_id: object) -> Entry:
        entry = self.entries.get(entry_id) if isinstance(entry_id, str) else None
        if entry is None:
            raise LobbyError("no_entry", "nobody of that name is in the lobby")
        return entry

    def _request(self, request_id: object) -> Request:
        request = self.requests.get(request_id) if isinstance(request_id, str) else None
        if request is None:
            raise LobbyError("no_request", "no such device waits for approval")
        return request

    # --- the one place the lobby changes -----------------------------------------------

    def apply(self, record: Mapping[str, Any]) -> None:
        """Replay one committed `lobby.*` record (one the questions above answered)."""
        kind = record["type"]
        if kind == "lobby.join":
            self._arrivals += 1
            self.entries[record["entry"]] = Entry(
                id=record["entry"], name=record["name"], arrived=self._arrivals,
                devices={record["device"]}, player=record.get("player"),
            )  # fmt: skip
        elif kind == "lobby.request":
            self._arrivals += 1
            self.requests[record["request"]] = Request(
                id=record["request"], entry=record["entry"], device=record["device"],
                arrived=self._arrivals,
            )  # fmt: skip
        elif kind == "lobby.approve":
            request = self.requests.pop(record["request"])
            self.entries[request.entry].devices.add(request.device)
        elif kind == "lobby.refuse":
            self.requests.pop(record["request"], None)
        elif kind == "lobby.seat":
            self.entries[record["entry"]].seat = record["seat"]
        elif kind == "lobby.unseat":
            self.entries[record["entry"]].seat = None
        elif kind == "lobby.leave":
            self.entries.pop(record["entry"], None)
            for request in [r for r in self.requests.values() if r.entry == record["entry"]]:
                del self.requests[request.id]
        else:
            raise ValueError(f"not a lobby record: {kind!r}")


def _same(a: str, b: str) -> bool:
    """Whether two names read the same on the tiles (issue 31: by their confusable
    skeletons, Unicode TR39)."""
    return names.skeleton(a) == names.skeleton(b)


def _arrival(entry: Entry) -> int:
    return entry.arrived


def _seat(entry: Entry) -> int:
    return entry.seat or 0
