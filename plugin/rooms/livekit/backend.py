"""LiveKitRoom: the table's microphones in a LiveKit room, through RoomService.

Theory of operation. The engine says who may speak (`set_speakers`); the room keeps what
it believes each participant holds now (from ListParticipants and from the answers to its
own updates) and converges the two: one `UpdateParticipant` per participant whose publish
permission differs, revokes before grants (never two open microphones at a turn change),
each with a complete permission (permissions.py); calls go one at a time, retried
(service.py). Every few seconds a reconcile
re-reads ListParticipants and re-applies what the engine said, so a participant who
rejoined with his token's grants, or an update lost on the way, is put right; it runs on
its own schedule, however often room events wake the loop in between.

An update changes only the publish fields of what the participant holds (permissions.py).
What LiveKit lists now is the truth about who is in the room (issue 30): a leave (the
bot's SDK reports every participant gone and back on a full reconnect; a signed webhook
may name a session that is still there) keeps the session under the room's control and
has the room re-read within a second; only a listing without it, or a 404 for it, takes
it out. A join of a session remembered as gone is believed once a listing shows it. Any
reconnect of the bot (`relist_soon`) and any retried call re-read the room at once. The
live host and the bot are proved, not named (proof.py): an unproved `host` or a second
`autohost-bot` is silenced like any participant without a seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

import aiohttp
from livekit.api.twirp_client import ServerError
from livekit.protocol.models import ParticipantInfo
from livekit.protocol.room import (
    ListParticipantsRequest,
    RoomParticipantIdentity,
    UpdateParticipantRequest,
)

from plugin.host.ports import PresenceCallback
from plugin.rooms.livekit import service
from plugin.rooms.livekit.permissions import Policy, PublishPermission
from plugin.rooms.livekit.presence import Presence
from plugin.rooms.livekit.proof import host_proof
from plugin.rooms.livekit.seats import (
    BOT_IDENTITY,
    MAX_SEAT,
    check_seat,
    is_bot_identity,
)
from plugin.rooms.livekit.seen import Seen, see
from plugin.rooms.livekit.server_clock import ServerClock, stamp_calls
from plugin.rooms.livekit.service import Retry, RoomService, not_found
from plugin.rooms.livekit.tokens import Credentials

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")
GONE_SESSIONS = 1024  # sids remembered as left: a join of one waits for a listing
RELIST_SECONDS = 0.2  # a leave is checked against a listing this soon (well within 1 s)
RELIST_RETRY_SECONDS = 0.5  # a re-read that failed is tried again this soon

__all__ = ["LiveKitRoom", "Retry", "RoomService", "Seen"]


class LiveKitRoom:
    """RoomBackend for one LiveKit room (see the module docstring)."""

    def __init__(
        self,
        service: RoomService,
        room: str,
        *,
        policy: Policy | None = None,
        host_proof: str | Callable[[str], str] | None = None,
        retry: Retry | None = None,
        reconcile_every: float = 5.0,
        grace: float = 10.0,
        on_stop: Callable[[], Awaitable[None]] | None = None,
        may_act: Callable[[], bool] = lambda: True,
        seats: int = MAX_SEAT,
        generations: Callable[[], Mapping[int | str, int]] = dict,
        server_time: Callable[[], float | None] = lambda: None,
    ) -> None:
        if not room:
            raise ValueError("a LiveKit room name is required")
        self.room = room
        self.seats = seats  # a `seat-50` at a table of 10 sits nowhere: a spectator
        self.generations = generations  # each seat's (and "host"'s) link generation now
        self.policy = policy or Policy()
        self.host_proof = host_proof  # None: nobody can be proved the live host
        self.bot_sid: str | None = None  # the session of our own bot, once it joined
        self.bot_identity = BOT_IDENTITY  # the name it joined under (bot.py)
        self.impostors = 0  # sessions under a bot's name not ours, removed
        self.on_impostor: Callable[[str], None] | None = None  # told of each removal
        self.listed_since = 0.0  # LiveKit's time of the first listing: older webhooks are history
        self.server_time = server_time
        self.retry = retry or Retry()
        self.reconcile_every = reconcile_every
        self.presence = Presence(grace=grace)
        self.participants: dict[str, Seen] = {}
        self.updates_sent = 0
        self.retries = 0
        self.last_error: BaseException | None = None
        self._service = service
        self._speakers: frozenset[int] | None = None  # None: the engine has not spoken yet
        self._released = False
        self._stopping = False
        self._gone: OrderedDict[str, None] = OrderedDict()
        self._left_meanwhile: set[str] = set()  # sids that left while a listing was out
        self._due: float | None = None  # loop time of a re-read asked for (relist_soon)
        self._listing: dict[str, Seen] | None = None  # joins while a reconcile lists the room
        self._lock = asyncio.Lock()  # one RoomService call at a time (livekit/livekit#2079)
        self._wake = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._on_stop = on_stop
        # False while this server may no longer own the table (a lease not renewed in
        # time): no update is sent, the new owner's are left alone.
        self.may_act = may_act

    @classmethod
    def connect(
        cls, url: str, api_key: str, api_secret: str, room: str, **options: Any
    ) -> LiveKitRoom:
        """A room driven through livekit-api at `url` (its own HTTP session, closed by stop)."""
        from livekit import api

        retry = options.get("retry") or Retry()
        assert isinstance(retry, Retry)
        # failover=False: we retry ourselves (the SDK retries only *.livekit.cloud anyway).
        options.setdefault("host_proof", lambda identity: host_proof(api_secret, room, identity))
        clock = ServerClock()  # LiveKit's own time, from its answers (issue 31)
        session = clock.session(aiohttp.ClientTimeout(total=retry.attempt_timeout))
        lkapi = api.LiveKitAPI(url, api_key, api_secret, failover=False, session=session)
        creds = Credentials(url=url, api_key=api_key, api_secret=api_secret)
        stamp_calls(lkapi.room, creds, options.pop("clock", None))
        options.setdefault("server_time", lambda: clock.last)
        return cls(lkapi.room, room, on_stop=session.close, **options)

    # RoomBackend -------------------------------------------------------------------

    async def start(self) -> None:
        """Read who is in the room, then keep reconciling in the background."""
        await self.reconcile()
        self._worker = asyncio.create_task(self._run(), name=f"livekit-room-{self.room}")

    async def set_speakers(self, seats: frozenset[int]) -> None:
        """Exactly `seats` may publish their microphone; returns once the server agrees
        (or the retries ran out: the reconcile then keeps trying)."""
        speakers = frozenset(check_seat(seat) for seat in seats)
        self._speakers = speakers
        self._released = False
        await self._converge()

    async def release_all(self) -> None:
        """Every participant may publish his microphone again."""
        self._released = True
        await self._converge()

    def on_presence(self, callback: PresenceCallback) -> None:
        self.presence.subscribe(callback)

    async def stop(self) -> None:
        self._stopping = True  # the worker ends even if a cancellation were lost
        if self._worker is not None:
            self._wake.set()
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)
            self._worker = None
        await self.presence.stop()
        if self._on_stop is not None:
            await self._on_stop()
            self._on_stop = None

    # Room events (webhook, the bot's room) ------------------------------------------

    async def participant_joined(self, info: ParticipantInfo) -> None:
        """A participant is in the room: let him publish what the engine says, soon."""
        if info.sid and info.sid in self._gone:
            # A session remembered as gone: a stale or replayed join, or the bot's SDK
            # reporting everybody back after a full reconnect. A listing decides.
            self.relist_soon()
            return
        before = self.participants.get(info.identity)
        if before is not None and before.sid and info.sid and before.sid != info.sid:
            self._forget_session(before.sid)  # a new session replaces the old one
        seen = self.seen(info)
        if before is not None and before.sid == info.sid and before.permission is not None:
            # The same session seen again (webhook and the bot's event): what we hold from
            # ListParticipants and our own updates is newer and complete (the rtc SDK's
            # permission lacks `recorder` and `agent`).
            seen = replace(seen, publishing=before.publishing, permission=before.permission)
        self.participants[info.identity] = seen
        if self._listing is not None:  # newer than the listing a reconcile is waiting for
            self._listing[info.identity] = seen
        if seen.seat is not None:
            await self.presence.joined(seen.seat)
        self._wake.set()
        if seen.stale or self._impostor(info.identity):  # out as soon as he is seen
            await self._remove_stale()

    async def participant_left(self, info: ParticipantInfo) -> None:
        """A session left, says the bot's SDK or a webhook. He stays under control (revoked
        at the next turn change like anybody) until a listing without him, which comes
        within RELIST_SECONDS: a remembered leave never outweighs what LiveKit lists."""
        seen = self.participants.get(info.identity)
        if info.sid:
            self._forget_session(info.sid)
            if self._listing is not None:  # the listing on its way may predate the leave
                self._listing.pop(info.identity, None)
                self._left_meanwhile.add(info.sid)
        if seen is None or (seen.sid and info.sid != seen.sid):
            return  # another session's, or none named (LiveKit always names it): stale
        self.participants[info.identity] = replace(seen, left=True)
        await self._report_left(seen)
        self.relist_soon(RELIST_SECONDS)

    async def bot_joined(self, sid: str, identity: str = BOT_IDENTITY) -> None:
        """Our own bot joined as session `sid` under `identity`: only that session
        publishes as the bot. A join of the bot is a new connection: what it saw before may
        be stale."""
        self.bot_sid, self.bot_identity = sid, identity
        self.relist_soon()
        await self._converge()

    def relist_soon(self, delay: float = 0.0) -> None:
        """Re-read the room within `delay` seconds (the bot reconnected; a leave to check;
        a call that needed retries): the listing is the truth."""
        with contextlib.suppress(RuntimeError):  # no loop: nothing runs to re-read anyway
            due = asyncio.get_running_loop().time() + delay
            self._due = due if self._due is None else min(self._due, due)
            self._wake.set()

    async def _left(self, identity: str) -> None:
        seen = self.participants.pop(identity, None)
        if seen is not None and not seen.left:
            await self._report_left(seen)

    async def _report_left(self, seen: Seen) -> None:
        if seen.seat is None:
            return
        if not any(o.seat == seen.seat and not o.left for o in self.participants.values()):
            await self.presence.left(seen.seat)

    def _forget_session(self, sid: str) -> None:
        self._gone[sid] = None
        self._gone.move_to_end(sid)
        while len(self._gone) > GONE_SESSIONS:
            self._gone.popitem(last=False)

    # Convergence -------------------------------------------------------------------

    async def reconcile(self) -> None:
        """Re-read the room from ListParticipants, report presence, re-apply the grants."""
        async with self._lock:
            # Joins and leaves that come while ListParticipants is on its way may be newer
            # than its answer: a join is kept (not overwritten by the older listing, which
            # left a player who joined meanwhile with the microphone his token allowed
            # until the next reconcile); a session that left is left out of this listing
            # and the room is re-read at once, so the server has the last word.
            self._listing, self._left_meanwhile = {}, set()
            asked = time.time()  # only if LiveKit's answer is not dated (listed_since)
            try:
                request = ListParticipantsRequest(room=self.room)
                listed = await self._call(self._service.list_participants, request)
                infos = list(listed.participants)
            except ServerError as error:
                if not not_found(error):
                    raise
                infos = []  # the room does not exist yet: nobody is in it
            finally:
                newer, self._listing = self._listing, None
                left_meanwhile, self._left_meanwhile = self._left_meanwhile, set()
            if not self.listed_since:  # the first listing: what happened before, it shows
                self.listed_since = self._dated(asked)
            before = dict(self.participants)
            self.participants = {}
            for info in infos:
                if info.sid in left_meanwhile:
                    continue
                self._gone.pop(info.sid, None)  # listed: here, whatever was remembered
                self.participants[info.identity] = self.seen(info)
            for identity, seen in newer.items():
                listed_seen = self.participants.get(identity)
                if listed_seen is None or listed_seen.sid != seen.sid:
                    self.participants[identity] = seen
            if left_meanwhile:
                self.relist_soon()
        for identity in before.keys() - self.participants.keys():
            self.participants[identity] = before[identity]  # so that the leave is reported
            await self._left(identity)
        for seen in self.participants.values():
            if seen.seat is not None:
                await self.presence.joined(seen.seat)
        await self._converge()
        await self._remove_stale()

    def _dated(self, asked: float) -> float:
        """The listing's time by LiveKit's clock, as webhooks' created_at (server_clock.py);
        `asked` (this machine's, before asking) only if its answer carried no Date."""
        dated = self.server_time()
        return asked if dated is None else dated

    def wanted(self, identity: str, seen: Seen) -> PublishPermission | None:
        """What `identity` should be allowed to publish now; None leaves him as he is."""
        if seen.host or (identity == self.bot_identity and seen.sid == self.bot_sid):
            held = seen.publishing
            return None if held is not None and held.publish else self.policy.always()
        if identity == self.bot_identity and self.bot_sid is not None:
            # Another session under our bot's identity: an update names the identity, not
            # the session, so it would land on our own bot once it is back. An impostor
            # is removed instead (the bot's own rejoin replaces him).
            return None
        if not seen.standard and seen.seat is None:
            return None  # the club's egress, agents or SIP lines, seated nowhere: theirs
        if self._speakers is None and not self._released:
            return None  # the engine has not said anything yet
        if self._released or (self._speakers is not None and seen.seat in self._speakers):
            return self.policy.speaker()
        return self.policy.silent()

    def plan(self) -> list[tuple[str, PublishPermission]]:
        """The updates still to send: revokes first, so two microphones never overlap."""
        changes = []
        for identity, seen in self.participants.items():
            publishing = self.wanted(identity, seen)
            if publishing is not None and publishing != seen.publishing:
                changes.append((identity, publishing))
        return sorted(changes, key=lambda change: (change[1].opens_microphone, change[0]))

    async def _converge(self) -> None:
        async with self._lock:
            failed: set[str] = set()
            while True:
                todo = [change for change in self.plan() if change[0] not in failed]
                if not todo or not self.may_act():
                    return
                identity, publishing = todo[0]
                if not await self._send(identity, publishing):
                    failed.add(identity)

    async def _send(self, identity: str, publishing: PublishPermission) -> bool:
        seen = self.participants.get(identity)
        held = seen.permission if seen is not None else None
        request = UpdateParticipantRequest(
            room=self.room, identity=identity, permission=publishing.permission(held)
        )
        try:
            info = await self._call(self._service.update_participant, request)
        except ServerError as error:
            if not_found(error):
                await self._left(identity)  # he left meanwhile
                return True
            return self._failed(identity, error)
        except (TimeoutError, aiohttp.ClientError) as error:
            return self._failed(identity, error)
        self.updates_sent += 1
        seen = self.participants.get(identity)
        if seen is not None:
            self.participants[identity] = replace(
                seen, publishing=PublishPermission.of(info.permission), permission=info.permission
            )
        return True

    def _failed(self, identity: str, error: BaseException) -> bool:
        log.warning("livekit: could not update %s in %s: %s", identity, self.room, error)
        self.last_error = error
        seen = self.participants.get(identity)
        if seen is not None:  # unknown now; the next reconcile sends it again
            self.participants[identity] = replace(seen, publishing=None)
        return False

    def _call(self, method: Callable[[T], Awaitable[R]], request: T) -> Awaitable[R]:
        return service.call(method, request, self.retry, self._retried)  # the lock held

    def _retried(self) -> None:  # the way to the server failed meanwhile: re-read after
        self.retries += 1
        self.relist_soon()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_reconcile = loop.time() + self.reconcile_every
        while not self._stopping:
            # The reconcile keeps its own deadline, however often events wake the loop.
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a
            # cancellation that arrives as its timeout fires (cpython#86296).
            deadline = next_reconcile if self._due is None else min(next_reconcile, self._due)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, deadline - loop.time())):
                    await self._wake.wait()
            self._wake.clear()
            now = loop.time()
            due = now >= next_reconcile or (self._due is not None and now >= self._due)
            if due:
                next_reconcile = now + self.reconcile_every
                self._due = None
            try:
                await (self.reconcile() if due else self._converge())
            except asyncio.CancelledError:
                raise
            except Exception as error:  # keep reconciling: the server may come back
                self.last_error = error
                log.warning("livekit: reconcile of %s failed: %s", self.room, error)
                if due:
                    self.relist_soon(min(self.reconcile_every, RELIST_RETRY_SECONDS))

    def seen(self, info: ParticipantInfo) -> Seen:
        """Who `info` is to this room: his seat, or the proved host (the overlay's RPC)."""
        return see(info, self.host_proof, self.seats, self.generations())

    async def reissued(self) -> None:
        """A link of this table was re-issued: every session of an older token of ours is
        nobody's now, and removed from the room (by the reconcile's _remove_stale)."""
        await self.reconcile()

    def _impostor(self, identity: str) -> bool:
        """A reserved bot name that is not the one our bot joined under (seats.py)."""
        return is_bot_identity(identity) and identity != self.bot_identity

    async def _remove_stale(self) -> None:
        """Remove every session the room sees of a token minted for a link re-issued since
        (issue 30: his generation is stale), and every impostor under another bot name
        than our bot's, whenever the bot sees them: at a re-issue, at a join, at any
        listing."""
        unwanted = [i for i, s in self.participants.items() if s.stale or self._impostor(i)]
        if not unwanted:
            return
        async with self._lock:
            for identity in unwanted:
                if identity not in self.participants or not self.may_act():
                    continue
                impostor = self._impostor(identity)
                why = "is an impostor of the bot" if impostor else "holds a re-issued token"
                log.warning("livekit: %s in %s %s: removed", identity, self.room, why)
                await self._remove(identity)
                if impostor:
                    self.impostors += 1
                    if self.on_impostor is not None:
                        self.on_impostor(identity)

    async def remove(self, identity: str) -> bool:
        """Remove `identity` from the room (a flooder, an impostor); whether it was done
        (not while this server may not act for the table)."""
        async with self._lock:
            if not self.may_act():
                return False
            await self._remove(identity)
            return True

    async def _remove(self, identity: str) -> None:
        request = RoomParticipantIdentity(room=self.room, identity=identity)
        try:
            await self._call(self._service.remove_participant, request)
        except ServerError as error:
            if not not_found(error):
                raise
        seen = self.participants.pop(identity, None)  # that session is over
        if seen is not None and seen.sid:
            self._forget_session(seen.sid)
            await self._report_left(seen)

    def hosts(self) -> list[str]:
        """The identities of the proved live host in the room now."""
        return [identity for identity, seen in self.participants.items() if seen.host]
