"""The club's records in the event log: the roster, rights and personal links survive a
reopening of the log (SQLite and PostgreSQL alike); bad input changes nothing; a record
whose number another writer took is asked again on the newer roster."""

from __future__ import annotations

from pathlib import Path

import pytest

from plugin.club import Club, ClubError, ClubState
from plugin.eventlog import EventLog, open_log
from plugin.signing import Signer, TokenError

SIGNER = Signer(b"0123456789abcdef0123")


def club_at(where: str | Path) -> Club:
    log = open_log(where)
    assert isinstance(log, EventLog)
    return Club(log, SIGNER)


def test_the_roster_survives_reopening_the_log(log_at: str | Path) -> None:
    club = club_at(log_at)
    club.change(lambda s: s.add_player({"nick": "Ann", "city": "Kyiv"}), source="cli")
    club.change(lambda s: s.add_player({"nick": "Bob"}), source="cli")
    club.change(lambda s: s.grant("Bob", "judge"), source="cli")
    token = club.issue_link("Ann", "player", source="cli")
    judge = club.issue_link("Bob", "judge", source="cli")
    club.log.close()  # type: ignore[attr-defined]

    again = club_at(log_at)
    again.refresh()
    assert [p.nick for p in again.state.players.values()] == ["Ann", "Bob"]
    assert again.state.player("ann").city == "Kyiv"
    assert again.person(token).player.nick == "Ann"
    assert again.person(judge).kind == "judge"
    again.log.close()  # type: ignore[attr-defined]


def test_bad_input_changes_nothing(log_at: str | Path) -> None:
    club = club_at(log_at)
    club.change(lambda s: s.add_player({"nick": "Ann"}), source="cli")
    before = club.seq
    refusals = [
        (lambda s: s.add_player({"nick": "ANN"}), "nick_taken"),
        (lambda s: s.add_player({"nick": "  "}), "bad_field"),
        (lambda s: s.add_player({"nick": "a\u202eb"}), "bad_field"),
        (lambda s: s.add_player({"nick": "Cy", "age": 3}), "bad_field"),
        (lambda s: s.issue_link("Ann", "judge"), "no_right"),
        (lambda s: s.issue_link("Ann", "owner"), "bad_kind"),
        (lambda s: s.revoke_link("Ann", "player"), "no_link"),
        (lambda s: s.grant("Nobody", "judge"), "no_player"),
        (lambda s: s.grant("Ann", "king"), "bad_role"),
    ]
    for question, code in refusals:
        with pytest.raises(ClubError) as refused:
            club.change(question, source="cli")
        assert refused.value.code == code
    assert club.seq == before
    assert club.log.club_records() and len(club.log.club_records()) == before
    club.log.close()  # type: ignore[attr-defined]


def test_revoked_and_reissued_links_are_refused(log_at: str | Path) -> None:
    club = club_at(log_at)
    club.change(lambda s: s.add_player({"nick": "Ann"}), source="cli")
    first = club.issue_link("Ann", "player", source="cli")
    second = club.issue_link("Ann", "player", source="cli")
    with pytest.raises(TokenError) as old:
        club.person(first)
    assert old.value.code == "token_reissued"
    assert club.person(second).player.nick == "Ann"
    club.change(lambda s: s.revoke_link("Ann", "player"), source="cli")
    with pytest.raises(TokenError) as revoked:
        club.person(second)
    assert revoked.value.code == "token_revoked"
    third = club.issue_link("Ann", "player", source="cli")  # re-issued after a revocation
    assert club.person(third).player.nick == "Ann"
    # a judge's link stops when the right is taken back
    club.change(lambda s: s.grant("Ann", "judge"), source="cli")
    judge = club.issue_link("Ann", "judge", source="cli")
    assert club.person(judge).kind == "judge"
    club.change(lambda s: s.grant("Ann", "judge", revoke=True), source="cli")
    with pytest.raises(TokenError) as gone:
        club.person(judge)
    assert gone.value.code == "token_no_right"
    # a table's link is not a personal one
    with pytest.raises(TokenError) as table:
        club.person(SIGNER.issue("t1", "host"))
    assert table.value.code == "token_not_personal"
    club.log.close()  # type: ignore[attr-defined]


def test_two_writers_never_decide_on_a_stale_roster(log_at: str | Path) -> None:
    """Two clubs on one log (two servers, or the server and the command line): the second
    writer's number is taken, so it reads the first one's record and asks again."""
    one, two = club_at(log_at), club_at(log_at)
    one.refresh()
    two.refresh()
    one.change(lambda s: s.add_player({"nick": "Ann"}), source="cli")
    with pytest.raises(ClubError) as refused:  # two had not seen Ann: it sees her now
        two.change(lambda s: s.add_player({"nick": "ann"}), source="cli")
    assert refused.value.code == "nick_taken"
    asked: list[int] = []

    def race(state: ClubState) -> dict[str, object]:
        """Bob's record, while the other writer adds Cy between the question and the write."""
        asked.append(len(state.players))
        if len(asked) == 1:
            one.change(lambda s: s.add_player({"nick": "Cy"}), source="cli")
        return state.add_player({"nick": "Bob"})

    two.change(race, source="cli")
    assert asked == [1, 2]  # asked again on the roster with Cy
    assert two.state.player("Bob").id == "p3"
    one.refresh()
    assert sorted(p.nick for p in one.state.players.values()) == ["Ann", "Bob", "Cy"]
    one.log.close()  # type: ignore[attr-defined]
    two.log.close()  # type: ignore[attr-defined]
