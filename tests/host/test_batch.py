"""Inputs waiting together at a table are decided in order and committed together (one
transaction), then the table publishes once (issue 15: a round's ballots arrive at once,
and each waited for its own fsync). The promise does not change: each input is durable
before its effects and its ack, a refused one changes nothing, a retried one is applied
once, and the state is always what the log replays to."""

from __future__ import annotations

import asyncio

from plugin.host.game import is_event_record, replay
from plugin.host.inputs import HOST, Pause, Vote
from plugin.host.ports import LogUnavailable

from .conftest import Harness


async def ballots_at_once(harness: Harness, ballots: list[tuple[int, int | None, str]]) -> list:
    """Every ballot submitted in the same turn of the loop, as a round's widgets do."""
    return await asyncio.gather(
        *(harness.table.submit(voter, Vote(candidate=c), client_id=i) for voter, c, i in ballots)
    )


def replayed(harness: Harness):
    records = [e.record for e in harness.log.entries("t1") if is_event_record(e.record)]
    return replay(harness.settings, records)[0]


async def test_ballots_that_arrive_together_share_one_commit_and_one_publish(
    harness: Harness,
) -> None:
    await harness.to_vote()
    published = len(harness.hub.snapshots)
    commits: list[int] = []
    original = harness.log._insert

    def counting(rows):
        commits.append(len(rows))
        return original(rows)

    harness.log._insert = counting  # type: ignore[method-assign]
    voters = sorted(harness.state.vote.round.voters)
    verdicts = await ballots_at_once(harness, [(v, 6 if v == 5 else 5, f"b{v}") for v in voters])
    assert all(o.ok and not o.duplicate for o in verdicts), verdicts
    assert [o.seq for o in verdicts] == sorted(o.seq for o in verdicts)  # in the order sent
    assert commits and commits[0] > 1, commits  # shared transactions, not one per ballot
    assert len(harness.hub.snapshots) - published < len(voters)
    assert harness.state == replayed(harness)


async def test_a_refused_ballot_in_the_middle_changes_nothing_and_the_others_count(
    harness: Harness,
) -> None:
    await harness.to_vote()
    voters = sorted(harness.state.vote.round.voters)
    a, b = voters[0], voters[1]
    verdicts = await ballots_at_once(harness, [(a, 5, "x1"), (b, 99, "x2"), (b, 6, "x3")])
    assert verdicts[0].ok and verdicts[2].ok
    assert not verdicts[1].ok and verdicts[1].code
    entries = [e.record for e in harness.log.entries("t1") if e.record.get("type") == "vote"]
    assert entries[-2:] == [
        {"type": "vote", "voter": a, "candidate": 5},
        {"type": "vote", "voter": b, "candidate": 6},
    ]
    assert harness.state == replayed(harness)


async def test_the_same_message_twice_in_one_batch_is_applied_once(harness: Harness) -> None:
    await harness.to_vote()
    voter = sorted(harness.state.vote.round.voters)[0]
    verdicts = await ballots_at_once(harness, [(voter, 5, "same"), (voter, 5, "same")])
    assert verdicts[0].ok and not verdicts[0].duplicate
    assert verdicts[1].ok and verdicts[1].duplicate
    votes = [e for e in harness.log.entries("t1") if e.record.get("type") == "vote"]
    assert len(votes) == 1


async def test_a_batch_the_disk_refuses_changes_nothing(harness: Harness) -> None:
    await harness.to_vote()
    before, published = harness.state, len(harness.hub.snapshots)
    rows = len(harness.log.entries("t1"))

    def refuse(rows):
        return [LogUnavailable("the disk is full") for _ in rows]

    harness.log._insert = refuse  # type: ignore[method-assign]
    voters = sorted(harness.state.vote.round.voters)[:4]
    verdicts = await ballots_at_once(harness, [(v, 5, f"d{v}") for v in voters])
    assert [o.code for o in verdicts] == ["log_unavailable"] * len(voters)
    assert harness.state is before
    assert len(harness.hub.snapshots) == published
    assert len(harness.log.entries("t1")) == rows


async def test_the_clock_and_the_host_go_on_their_own(harness: Harness) -> None:
    """A timer's expiry and the host's table commands are never folded into a batch."""
    await harness.to_vote()
    voter = sorted(harness.state.vote.round.voters)[0]
    vote = harness.table.submit(voter, Vote(candidate=5))
    pause = harness.table.submit(HOST, Pause())
    other = harness.table.submit(voter, Vote(candidate=6))
    verdicts = await asyncio.gather(vote, pause, other)
    assert verdicts[0].ok and verdicts[1].ok
    assert harness.table.paused
    assert harness.state == replayed(harness)
