"""The club (issue 33): its state and results, folded from its records in the event log, and
the one way they change: a question answered against the state (plugin.club.state), the
answer written durably to the log (`club_records`, plugin.eventlog.core), and only then
applied. A refused question writes nothing; an accepted change is never lost, since it is
answered only once it is durable.

The club catches up with the log before every question and every read (`refresh`: one
query for the records numbered above the last it has), so a roster change made by the
command line, or by another server on a shared PostgreSQL log, is seen at once; a record
whose number another writer took meanwhile (ClubConflict) is asked again on the newer state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from plugin.eventlog import ClubConflict, ClubEntry
from plugin.signing import Signer

from . import links
from .results import Results
from .state import ClubError, ClubState

logger = logging.getLogger(__name__)
ATTEMPTS = 5  # numbers taken by other writers in a row before the change is refused
Question = Callable[[ClubState], dict[str, Any]]


@runtime_checkable
class ClubLog(Protocol):
    """What the club asks of the event log (plugin.eventlog.EventLog has it)."""

    def append_club(self, seq: int, record: dict[str, Any], *, source: str) -> None: ...

    async def commit_club(self, seq: int, record: dict[str, Any], *, source: str) -> None: ...

    def club_records(self, after: int = 0) -> list[ClubEntry]: ...


class Club:
    """One club over one event log (see the module docstring)."""

    def __init__(self, log: ClubLog, signer: Signer) -> None:
        self.log = log
        self.signer = signer
        self.state = ClubState()
        self.results = Results()
        self.seq = 0  # the last record folded

    def refresh(self) -> None:
        """Fold the records written since the last one folded."""
        for entry in self.log.club_records(self.seq):
            self._fold(entry)

    def _fold(self, entry: ClubEntry) -> None:
        self.state.apply(entry.record, wall=entry.wall)
        self.seq = entry.seq
        if entry.record["type"] in ("sheet.sign", "sheet.correct"):
            self.results.put(self.state.signed[entry.record["game_id"]])

    def change(self, question: Question, *, source: str) -> dict[str, Any]:
        """Ask, write durably (waiting for the log), apply; the record written."""
        for _ in range(ATTEMPTS):
            self.refresh()
            record = question(self.state)
            try:
                self.log.append_club(self.seq + 1, record, source=source)
            except ClubConflict:
                continue
            self.refresh()
            return record
        raise ClubError("busy", "the club's records are being written by others; try again", 503)

    async def commit(self, question: Question, *, source: str) -> dict[str, Any]:
        """`change` for the event loop: the loop serves the tables while the log writes."""
        for _ in range(ATTEMPTS):
            self.refresh()
            record = question(self.state)
            try:
                await self.log.commit_club(self.seq + 1, record, source=source)
            except ClubConflict:
                continue
            self.refresh()
            return record
        raise ClubError("busy", "the club's records are being written by others; try again", 503)

    # --- personal links --------------------------------------------------------------

    def issue_link(self, ref: object, kind: object, *, source: str) -> str:
        """A new personal link's token (the person's previous one of that kind stops)."""
        record = self.change(lambda state: state.issue_link(ref, kind), source=source)
        return links.issue(self.signer, record["kind"], record["player"], record["generation"])

    async def commit_link(self, ref: object, kind: object, *, source: str) -> str:
        record = await self.commit(lambda state: state.issue_link(ref, kind), source=source)
        return links.issue(self.signer, record["kind"], record["player"], record["generation"])

    def person(self, token: str) -> links.Person:
        """Who a personal token admits (TokenError otherwise), on the newest roster."""
        self.refresh()
        return links.admit(self.signer, self.state, token)

    def member(self, token: str) -> tuple[str, str]:
        """(player id, nickname) of a player's personal link, for the lobby (TokenError)."""
        person = self.person(token)
        return person.player.id, person.player.nick
