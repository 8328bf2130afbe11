"""Inputs handled together: which may share one commit, and how a batch is handled.

A round's ballots reach a table at once; committing each on its own would cost an fsync
each. The table's loop (plugin.host.table) takes the plain engine inputs already waiting
(up to MAX_BATCH) and hands them here; anything else (the clock, the room, the table's own
actions, the host's `next`) goes on its own.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plugin.rules import Effect, Event
from plugin.rules import effects as fx
from plugin.rules.events import to_record

from .commands import ROUTES, first_accepted, route
from .game import is_event_record, replay
from .inputs import CLOCK, ROOM, Input, Refused, Sender, Verdict, source_of
from .ports import LogUnavailable

if TYPE_CHECKING:
    from .table import Table

logger = logging.getLogger(__name__)

MAX_BATCH = 64  # inputs decided and committed together at most (a round's ballots: 12)


@dataclass(frozen=True, slots=True)
class Job:
    """One input in a table's queue: who sent it, with which client id, and who waits for
    its verdict (None: the table's own clock or room)."""

    sender: Sender
    given: Input
    client_id: str | None
    reply: asyncio.Future[Verdict] | None


def log_key(job: Job) -> str | None:
    """How the log keeps the job's client id: ids are the sender's own (seat 3's "1" and
    seat 4's "1" are different messages)."""
    return None if job.client_id is None else f"{source_of(job.sender)}/{job.client_id}"


def batchable(job: Job) -> bool:
    """A plain engine input from a client: it may share its commit with its queue
    neighbours. The clock, the room, the table's own actions and the host's `next`
    (which also clears the voice's queue) go one at a time."""
    found = ROUTES.get(type(job.given))
    return job.sender not in (CLOCK, ROOM) and (found is None or found.batchable)


async def handle_batch(table: Table, batch: list[Job]) -> list[Verdict]:
    """Inputs already waiting at this table, taken together (a round's ballots arrive
    at once): each is decided in order against the state the ones before it made, all
    that were accepted are committed in one transaction (one fsync, not one each), and
    only then does the state change, the effects run in order and the table publish,
    once. A refused input changes nothing and costs no commit."""
    state = table.state
    verdicts: list[Verdict | None] = []
    accepted: list[tuple[int, Event, list[Effect], str | None, Sender]] = []
    keys: dict[str, int] = {}  # client id -> index of the input that carries it
    for index, job in enumerate(batch):
        # batchable() keeps the clock's and the room's inputs out of a batch.
        sender, given, key = job.sender, job.given, log_key(job)
        try:
            if key is not None:
                seq = table.log.find_client_id(table.id, key)
                if seq is not None:
                    verdicts.append(Verdict(ok=True, duplicate=True, seq=seq))
                    continue
                if key in keys:  # the same message twice in one batch: applied once
                    verdicts.append(Verdict(ok=True, duplicate=True))
                    continue
            route(sender, given)
            event, state, effects = first_accepted(state, sender, given)
        except Refused as refusal:
            verdicts.append(refusal.verdict())
            continue
        except Exception as error:  # a bug must not bring the table down
            logger.exception("table %s: input %r failed", table.id, given)
            verdicts.append(Verdict(ok=False, code="internal", message=f"internal: {error}"))
            continue
        if key is not None:
            keys[key] = index
        accepted.append((index, event, effects, key, sender))
        verdicts.append(None)
    if accepted:
        inputs = [
            (to_record(event), source_of(sender), key) for _, event, _, key, sender in accepted
        ]  # in order, so their sequence numbers follow the order applied
        results: list[int | BaseException]
        try:
            results = list(await table.log.commit_many(table.id, inputs))
        except Exception as error:  # the log is closed: nothing was written
            results = [error for _ in inputs]
        failures = [r for r in results if isinstance(r, BaseException)]
        if failures and len(failures) < len(results):
            # Some inputs are durable and some are not (never seen: a batch shares one
            # transaction). The log is the truth: rebuild the state from it.
            logger.error("table %s: a batch was committed in part; replaying", table.id)
            logged = [e.record for e in table.log.entries(table.id) if is_event_record(e.record)]
            table.state, last_timer = replay(table.settings, logged)
            table.resume_timer(last_timer, None)
            await table.safely(table.room.set_speakers(frozenset(table.state.speakers)))
        elif not failures:
            table.state = state
        spoken: list[fx.Announce] = []
        for (index, _, effects, _, _), result in zip(accepted, results, strict=True):
            if isinstance(result, BaseException):
                code = "log_unavailable" if isinstance(result, LogUnavailable) else "internal"
                verdicts[index] = Verdict(ok=False, code=code, message=str(result))
            else:
                verdicts[index] = Verdict(ok=True, seq=result)
                if not failures:
                    spoken += await table.carry_out(effects)
        if len(failures) < len(results):
            await table.changed()
        await table.speak(spoken)
    return [verdict or Verdict(ok=False, code="internal") for verdict in verdicts]
