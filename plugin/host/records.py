"""The table's own log records, written and read here only.

A table's log holds the engine's events (plugin.rules.events: replayed into the engine) and
these records of the table itself, which the engine never sees: the console's pause,
resume, extra time, stream setting and undo (their effect lives in the clock row, the
overlay, or an undone mark), the lobby's names, re-issued links, and the table of the next
game. Each is a dict with a "type" of "table.*"; the shapes are those older logs carry, so
every log written since issue 4 reads the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from .settings import TableSettings
from .stream import StreamSetting

PAUSE = "table.pause"
RESUME = "table.resume"
ADD_TIME = "table.add_time"  # {"seconds": n}: n seconds added to the running timer
UNDO = "table.undo"  # {"seq": n}: event n is undone (its row is marked, this is the trace)
STREAM = "table.stream"  # {"on": bool, "delay": seconds}: stream with roles (issue 17)
NAME = "table.name"  # {"seat", "name"}: a seat's player is called this now (the lobby, issue 17)
REISSUE = "table.reissue"  # {"seats": [...]}: these seats' links were issued anew
SUCCESSOR = "table.successor"  # {"table": id}: the next game of this table is that table

Record = dict[str, Any]


def paused(pause: bool) -> Record:
    """The game was paused (or resumed)."""
    return {"type": PAUSE if pause else RESUME}


def time_added(seconds: int) -> Record:
    return {"type": ADD_TIME, "seconds": seconds}


def undone(seq: int) -> Record:
    return {"type": UNDO, "seq": seq}


def stream(setting: StreamSetting) -> Record:
    return {"type": STREAM, "on": setting.on, "delay": setting.delay}


def stream_setting(record: Mapping[str, Any] | None) -> StreamSetting:
    """The setting a `table.stream` record made (None: the default, off)."""
    if record is None:
        return StreamSetting()
    return StreamSetting(on=bool(record.get("on")), delay=int(record.get("delay", 0)))


def named(seat: int, name: str) -> Record:
    return {"type": NAME, "seat": seat, "name": name}


def reissued(seats: Sequence[int | Literal["host", "watch", "invite"]]) -> Record:
    return {"type": REISSUE, "seats": list(seats)}


def successor(table_id: str) -> Record:
    return {"type": SUCCESSOR, "table": table_id}


def latest(records: Iterable[Mapping[str, Any]], kind: str) -> Mapping[str, Any] | None:
    """The last record of type `kind` (None if there is none)."""
    found = None
    for record in records:
        if record.get("type") == kind:
            found = record
    return found


def link_generations(records: Iterable[Mapping[str, Any]]) -> dict[int | str, int]:
    """Each seat's current link generation ("host" and "watch" too) from a table's log
    records: one more for every re-issue that named it (Table.reissue)."""
    generations: dict[int | str, int] = {}
    for record in records:
        if record.get("type") == REISSUE:
            for seat in record["seats"]:
                generations[seat] = generations.get(seat, 0) + 1
    return generations


def with_logged_names(
    settings: TableSettings, records: Sequence[Mapping[str, Any]]
) -> TableSettings:
    """`settings` with the names the log's `table.name` records gave the seats since."""
    names = [settings.name_of(seat) for seat in range(1, settings.seats + 1)]
    changed = False
    for record in records:
        seat = record.get("seat")
        if record.get("type") == NAME and isinstance(seat, int) and 1 <= seat <= len(names):
            names[seat - 1] = str(record["name"])
            changed = True
    return replace(settings, names=tuple(names)) if changed else settings
