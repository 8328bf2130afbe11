"""The generated constructors and copies (plugin/rules/records.py) behave exactly like the
dataclass machinery they replace."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from plugin.rules import events as ev
from plugin.rules.effects import Announce, StartTimer
from plugin.rules.records import make_clone, make_replace, positional, quick_init
from plugin.rules.state import DayRecord, Round, replace_round


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    name: str
    count: int = 3
    tags: list[str] = field(default_factory=list)


def test_quick_init_keeps_the_dataclass_contract() -> None:
    a = Sample(name="x")
    assert (a.name, a.count, a.tags) == ("x", 3, [])
    assert Sample(name="x", count=3) == a and Sample(name="x", count=4) != a
    assert Sample(name="y").tags is not a.tags  # a fresh list from the factory each time
    assert repr(a) == "Sample(name='x', count=3, tags=[])"
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.name = "z"  # type: ignore[misc]
    with pytest.raises(TypeError, match="name"):
        Sample()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Sample("x")  # type: ignore[misc]  # keyword-only, as before
    with pytest.raises(TypeError, match="colour"):
        Sample(name="x", colour=1)  # type: ignore[call-arg]
    assert "Sample.__init__" in Sample.__init__.__qualname__


def test_quick_init_refuses_what_it_cannot_copy_faithfully() -> None:
    @dataclass(slots=True, kw_only=True)
    class Mutable:
        a: int

    @dataclass(frozen=True, slots=True, kw_only=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            raise ValueError

    with pytest.raises(TypeError, match="frozen"):
        quick_init(Mutable)
    with pytest.raises(TypeError, match="__post_init__"):
        quick_init(Checked)


def test_engine_types_still_build_and_compare_by_keyword() -> None:
    assert ev.CastVote(voter=1, candidate=None) == ev.CastVote(voter=1, candidate=None)
    assert ev.CastVote(voter=1, candidate=2) != ev.CastVote(voter=1, candidate=3)
    assert hash(ev.Nominate(by=1, target=2)) == hash(ev.Nominate(by=1, target=2))
    assert ev.EndGame().winner is None
    assert Announce(key="night").params == {}
    with pytest.raises(TypeError):
        StartTimer(timer=1, seconds=60)  # type: ignore[call-arg]


def test_positional_builds_the_same_record() -> None:
    make = positional(StartTimer)
    built = make(4, 60, "speech", 10)
    assert built == StartTimer(timer=4, seconds=60, purpose="speech", warn_at=10)
    assert type(built) is StartTimer
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.timer = 5  # type: ignore[misc]


def test_clone_and_replace_copy_and_never_touch_the_original() -> None:
    day = DayRecord(day=2, speakers=(3, 4))
    later = make_replace(DayRecord)(day, speakers=(3, 4, 5), opener=3)
    assert day == DayRecord(day=2, speakers=(3, 4))
    assert later == DayRecord(day=2, opener=3, speakers=(3, 4, 5))
    with pytest.raises(AttributeError):
        make_replace(DayRecord)(day, colour=1)
    r = Round(number=1, kind="vote", candidates=(3, 5), voters=frozenset({1, 2}))
    more = r.with_ballot(1, 3)
    assert r.ballots == () and r.voted_seats == frozenset()
    assert more.ballots == ((1, 3),) and more.voted_seats == {1}
    copy = make_clone(Round)(more)
    assert copy == more and copy is not more
    with pytest.raises(TypeError, match="not frozen"):
        make_clone(StartTimer)
    assert replace_round(r, window=1).window == 1 and r.window == 0
