"""What the second outside check found in the LiveKit path, one test per class, against the
contract server (it can hold a ListParticipants answer and make any kind of participant):

- a seat has one spelling: look-alike identities and attributes (`seat-03`, "３", "٣",
  "²") sit nowhere, and one that broke int() no longer stops the reconcile;
- a seated participant of any kind (an agent, a SIP line) is silenced like a player;
- a join that comes while the reconcile's listing is on its way is not overwritten by it;
- a leave that names no session, or a seat beyond the table, changes nothing;
- the bot's backoff is for duplicates in a row, not for every loss after them.
"""

from __future__ import annotations

import asyncio

from livekit import rtc
from livekit.protocol.models import ParticipantInfo

from plugin.rooms.livekit import bot as bot_module
from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.bot import LiveKitBot
from plugin.rooms.livekit.proof import host_attributes
from plugin.rooms.livekit.seats import seat_of
from testing.livekit_contract import ContractServer
from testing.livekit_server import API_KEY, API_SECRET

ROOM = "second"


async def _room(contract: ContractServer, **options: object) -> LiveKitRoom:
    room = LiveKitRoom.connect(
        contract.url, API_KEY, API_SECRET, ROOM, reconcile_every=3600, **options
    )
    await room.start()
    return room


def test_a_seat_has_one_spelling() -> None:
    assert seat_of("seat-3") == 3 and seat_of("seat-99") == 99
    assert seat_of("seat-12") == 12 and seat_of("seat-12.3") == 12
    for identity in ("seat-03", "seat-３", "seat-٣", "seat-²", "seat-0", "seat-3 ", "seat-100"):
        assert seat_of(identity) is None, identity


async def test_look_alike_seats_sit_nowhere_and_the_reconcile_goes_on(contract: ContractServer):
    """A seat attribute "²" passed str.isdigit and broke int(): every reconcile failed while he
    was in it, so a microphone opened behind its back stayed open."""
    contract.join(ROOM, "seat-1", attributes={"seat": "1"})
    contract.join(ROOM, "seat-2", attributes={"seat": "2"})
    for identity, value in (("odd", "²"), ("wide", "３"), ("arabic", "٣"), ("zero", "03")):
        contract.join(ROOM, identity, attributes={"seat": value})
    contract.join(ROOM, "seat-03")
    room = await _room(contract)
    try:
        seated = {i: s.seat for i, s in room.participants.items()}
        assert seated == {"seat-1": 1, "seat-2": 2, "odd": None, "wide": None,
                          "arabic": None, "zero": None, "seat-03": None}  # fmt: skip
        await room.set_speakers(frozenset({1}))
        assert contract.publishing(ROOM) == {"seat-1"}
        contract.rooms[ROOM]["seat-2"].permission.can_publish = True  # behind the room's back
        await room.reconcile()
        assert contract.rooms[ROOM]["seat-2"].permission.can_publish is False
    finally:
        await room.stop()


async def test_a_seated_agent_or_sip_line_is_silenced(contract: ContractServer):
    """A player dialled in over SIP as seat-5 (or an agent told to sit in seat 6) kept his
    microphone open through every turn: only STANDARD participants were touched."""
    contract.join(ROOM, "seat-1")
    for identity, kind in (("seat-5", ParticipantInfo.Kind.SIP),
                           ("seat-6", ParticipantInfo.Kind.AGENT),
                           ("recorder", ParticipantInfo.Kind.EGRESS)):  # fmt: skip
        contract.join(ROOM, identity).kind = kind
    room = await _room(contract)
    try:
        await room.set_speakers(frozenset({1}))
        assert contract.publishing(ROOM) == {"seat-1", "recorder"}  # the club's egress: theirs
        await room.set_speakers(frozenset({5}))
        assert contract.publishing(ROOM) == {"recorder"}  # seat 5 may now (it had no track)
        assert contract.rooms[ROOM]["seat-5"].permission.can_publish
        assert not contract.rooms[ROOM]["seat-6"].permission.can_publish
    finally:
        await room.stop()


async def test_a_join_during_the_reconciles_listing_is_kept(contract: ContractServer):
    """The listing, taken before the join, replaced the room's participants wholesale: the
    player who joined meanwhile kept the microphone his club token allowed until the next
    reconcile (6.7 s in the check), beside the speaker's."""
    contract.join(ROOM, "seat-1")
    contract.join(ROOM, "seat-2")
    room = await _room(contract)
    try:
        await room.set_speakers(frozenset({1}))
        contract.list_delay = 0.5
        reconciling = asyncio.create_task(room.reconcile())
        await asyncio.sleep(0.1)  # the listing is on its way
        joined = contract.join(ROOM, "seat-3")
        await room.participant_joined(joined)
        gone = contract.rooms[ROOM]["seat-2"]
        contract.leave(ROOM, "seat-2")
        await room.participant_left(gone)
        await asyncio.wait_for(reconciling, 5)
        assert set(room.participants) == {"seat-1", "seat-3"}  # seat-2 not brought back
        contract.list_delay = 0.0
        async with asyncio.timeout(5):
            while contract.publishing(ROOM) != {"seat-1"}:
                await asyncio.sleep(0.02)
    finally:
        await room.stop()


async def test_a_leave_naming_no_session_or_a_seat_beyond_the_table_changes_nothing(
    contract: ContractServer,
):
    contract.join(ROOM, "seat-1")
    contract.join(ROOM, "seat-50")
    room = await _room(contract, seats=10)
    try:
        assert room.participants["seat-50"].seat is None  # a spectator at a table of 10
        await room.set_speakers(frozenset({1}))
        await room.participant_left(ParticipantInfo(identity="seat-1"))  # no sid
        assert "seat-1" in room.participants
        await room.set_speakers(frozenset({2}))  # seat 1 is revoked: still known
        assert contract.publishing(ROOM) == set()
        assert not contract.rooms[ROOM]["seat-1"].permission.can_publish
    finally:
        await room.stop()


async def test_the_bots_backoff_is_for_duplicates_in_a_row(monkeypatch) -> None:
    """After six old duplicates an admin's removal kept the bot out for 16 s."""
    bot = LiveKitBot("ws://127.0.0.1:9", "token")
    waits: list[float] = []

    async def no_join() -> None:  # in the room again, as _join says
        bot._joined_at = asyncio.get_running_loop().time()

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(bot_module.asyncio, "sleep", sleep)
    monkeypatch.setattr(LiveKitBot, "identity", property(lambda self: "autohost-bot"))
    monkeypatch.setattr(bot, "_join", lambda room: no_join())
    monkeypatch.setattr(bot, "_spawn", lambda coroutine: coroutine.close())  # run below
    for _ in range(6):
        bot._disconnected(rtc.DisconnectReason.DUPLICATE_IDENTITY)
        await bot._rejoin()
    assert bot.duplicates == 6 and waits[-1] == 0.5 * 2**5  # two bots never fight fast
    waits.clear()
    bot._disconnected(rtc.DisconnectReason.PARTICIPANT_REMOVED)
    await bot._rejoin()
    assert waits == []  # an admin's removal: back at once
    bot._joined_at -= bot_module.STREAK_SECONDS  # a quiet spell in the room
    bot._disconnected(rtc.DisconnectReason.DUPLICATE_IDENTITY)
    await bot._rejoin()
    assert waits == [0.5] and bot.duplicates == 7


async def test_a_reissued_links_old_token_sits_nowhere_and_is_removed(contract: ContractServer):
    """A re-issue closed every socket of the old link but not its LiveKit session: a token
    we minted lasts 6 h, and its holder kept his seat's RPC and microphone. Our identities
    name their link's generation (`seat-3`, `seat-3.1`, `host.1`, `watch.1-...`); an older
    one than its link's now sits nowhere, and a re-issue removes it from the room at once.
    Attributes prove nothing here: any room admin (an old host token is one until it
    expires) can rewrite them, nobody can rewrite an identity."""
    generations: dict[int | str, int] = {}
    proof = host_attributes(API_SECRET, ROOM)  # the proof for identity "host"
    contract.join(ROOM, "seat-3", attributes={"seat": "3"})
    contract.join(ROOM, "seat-4", attributes={"seat": "4"})
    contract.join(ROOM, "seat-5")  # a club's own token (its re-issues are the club's)
    contract.join(ROOM, "host", attributes=proof)
    contract.join(ROOM, "watch-0123456789ab", mic=False)
    room = await _room(contract, generations=lambda: generations)
    try:
        assert room.participants["host"].host
        await room.set_speakers(frozenset({3, 5}))
        assert contract.publishing(ROOM) == {"seat-3", "seat-5", "host"}
        generations.update({3: 1, "host": 1, "watch": 1})  # three links re-issued
        await room.reissued()
        assert set(contract.rooms[ROOM]) == {"seat-4", "seat-5"}  # the old sessions gone
        assert contract.publishing(ROOM) == {"seat-5"}
        # The old tokens join again (not expired yet): removed at once, when seen.
        stale = contract.join(ROOM, "seat-3", attributes={"seat": "3"})
        stale.sid = "PA_seat-3-again"  # a new session, as LiveKit gives a rejoin
        await room.participant_joined(stale)
        old_host = contract.join(ROOM, "host", attributes=proof)
        old_host.sid = "PA_host-again"
        await room.participant_joined(old_host)
        fresh = contract.join(ROOM, "seat-3.1", attributes={"seat": "3"})
        await room.participant_joined(fresh)
        new_host = contract.join(
            ROOM, "host.1", attributes=host_attributes(API_SECRET, ROOM, "host.1")
        )
        await room.participant_joined(new_host)
        async with asyncio.timeout(5):
            while contract.publishing(ROOM) != {"seat-3.1", "seat-5", "host.1"}:
                await asyncio.sleep(0.02)
        # The old tokens' new sessions are removed as soon as the room sees them.
        assert "seat-3" not in contract.rooms[ROOM] and "host" not in contract.rooms[ROOM]
        assert "seat-3" not in room.participants and "host" not in room.participants
        assert room.participants["host.1"].host and room.participants["seat-3.1"].seat == 3
        assert room.participants["seat-4"].seat == 4  # another seat's link is untouched
        # An old host's proof copied onto the new identity proves nothing either.
        forged = contract.join(ROOM, "host.2", attributes=proof)
        assert not room.seen(forged).host
    finally:
        await room.stop()
