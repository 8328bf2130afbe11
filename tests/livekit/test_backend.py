"""LiveKitRoom against the contract server: complete permissions, only changes sent,
one call at a time, retries and convergence under injected 500s and timeouts."""

from __future__ import annotations

import asyncio

import pytest
from livekit.api.twirp_client import ServerError
from livekit.protocol.models import TrackSource

from plugin.rooms.livekit.backend import LiveKitRoom, Retry
from plugin.rooms.livekit.proof import host_attributes
from testing.livekit_contract import ContractServer
from testing.livekit_server import API_KEY, API_SECRET

ROOM = "table-1"
FAST = Retry(attempts=5, first_delay=0.01, max_delay=0.05, attempt_timeout=0.5)


def seat_players(contract: ContractServer, seats: range) -> None:
    for seat in seats:
        contract.join(ROOM, f"seat-{seat}", attributes={"seat": str(seat)})
    contract.join(ROOM, "host", attributes=host_attributes(API_SECRET, ROOM))
    contract.join(ROOM, "autohost-bot")


async def started(contract: ContractServer, secret: str = API_SECRET, **options) -> LiveKitRoom:
    options.setdefault("retry", FAST)
    room = LiveKitRoom.connect(contract.url, API_KEY, secret, ROOM, **options)
    await room.start()
    await room.bot_joined("PA_autohost-bot")  # the contract server's sid for the bot
    return room


def assert_complete(contract: ContractServer) -> None:
    for update in contract.updates():
        permission = update.permission
        assert update.HasField("permission")
        assert permission.can_subscribe and permission.can_publish_data, update
        if permission.can_publish:
            assert list(permission.can_publish_sources) == [TrackSource.MICROPHONE]
        else:
            assert list(permission.can_publish_sources) == []


async def test_speech_turn_leaves_only_the_speaker_and_the_hosts_publishing(contract):
    seat_players(contract, range(1, 5))
    room = await started(contract)
    try:
        await room.set_speakers(frozenset({3}))
        assert contract.publishing(ROOM) == {"seat-3", "host", "autohost-bot"}
        # seat 3 already held the token's microphone grant: only the others were sent
        assert sorted(u.identity for u in contract.updates()) == ["seat-1", "seat-2", "seat-4"]
        assert_complete(contract)
    finally:
        await room.stop()


async def test_turn_change_sends_two_updates_revoke_first(contract):
    seat_players(contract, range(1, 5))
    room = await started(contract)
    try:
        await room.set_speakers(frozenset({3}))
        sent = len(contract.updates())
        await room.set_speakers(frozenset({4}))
        change = contract.updates()[sent:]
        assert [(u.identity, u.permission.can_publish) for u in change] == [
            ("seat-3", False),
            ("seat-4", True),
        ]
        await room.set_speakers(frozenset({4}))  # idempotent: nothing more to send
        assert len(contract.updates()) == sent + 2
        assert_complete(contract)
    finally:
        await room.stop()


async def test_injected_500s_are_retried_until_applied(contract):
    seat_players(contract, range(1, 4))
    room = await started(contract)
    try:
        contract.inject("500", "500", "500")
        await room.set_speakers(frozenset({1}))
        assert room.retries == 3
        assert contract.publishing(ROOM) == {"seat-1", "host", "autohost-bot"}
        assert room.plan() == []
    finally:
        await room.stop()


async def test_a_call_that_times_out_is_retried(contract):
    seat_players(contract, range(1, 4))
    room = await started(contract, retry=Retry(attempts=3, first_delay=0.01, attempt_timeout=0.2))
    try:
        contract.inject("hang")
        await room.set_speakers(frozenset({2}))
        assert room.retries == 1
        assert contract.publishing(ROOM) == {"seat-2", "host", "autohost-bot"}
    finally:
        await room.stop()


async def test_reconcile_converges_after_the_retries_ran_out(contract):
    seat_players(contract, range(1, 3))
    room = await started(contract, retry=Retry(attempts=2, first_delay=0.01, attempt_timeout=0.5))
    try:
        contract.inject("500", "500")
        await room.set_speakers(frozenset({2}))  # seat-1's update fails twice: given up
        assert isinstance(room.last_error, ServerError)
        assert "seat-1" in contract.publishing(ROOM)
        await room.reconcile()
        assert contract.publishing(ROOM) == {"seat-2", "host", "autohost-bot"}
    finally:
        await room.stop()


async def test_calls_for_one_room_go_one_at_a_time(contract):
    contract.processing = 0.01
    seat_players(contract, range(1, 13))
    room = await started(contract)
    try:
        await asyncio.gather(*(room.set_speakers(frozenset({seat})) for seat in range(1, 13)))
        await asyncio.gather(room.release_all(), room.set_speakers(frozenset()), room.reconcile())
        assert contract.max_in_flight == 1
        assert len(contract.updates()) > 12
    finally:
        await room.stop()


async def test_the_check_sees_concurrent_calls():
    """The one-at-a-time test can fail: calls made without the room's lock overlap."""
    contract = ContractServer(API_KEY, API_SECRET, processing=0.05)
    await contract.start()
    try:
        seat_players(contract, range(1, 4))
        room = LiveKitRoom.connect(contract.url, API_KEY, API_SECRET, ROOM, retry=FAST)
        await room.start()
        await asyncio.gather(*(room._send(f"seat-{s}", room.policy.silent()) for s in (1, 2, 3)))
        await room.stop()
        assert contract.max_in_flight > 1
    finally:
        await contract.stop()


async def test_everyone_muted_then_released(contract):
    seat_players(contract, range(1, 13))
    room = await started(contract)
    try:
        await room.set_speakers(frozenset())
        assert contract.publishing(ROOM) == {"host", "autohost-bot"}
        await room.release_all()
        granted = {u.identity for u in contract.updates() if u.permission.can_publish}
        assert granted == {f"seat-{seat}" for seat in range(1, 13)}
        assert_complete(contract)
    finally:
        await room.stop()


async def test_a_rejoined_player_gets_his_permission_back(contract):
    seat_players(contract, range(1, 4))
    room = await started(contract, reconcile_every=0.05)
    try:
        await room.set_speakers(frozenset({1}))
        contract.leave(ROOM, "seat-2")
        info = contract.join(ROOM, "seat-2", attributes={"seat": "2"})  # token grants again
        await room.participant_joined(info)
        for _ in range(200):
            if contract.publishing(ROOM) == {"seat-1", "host", "autohost-bot"}:
                break
            await asyncio.sleep(0.01)
        assert contract.publishing(ROOM) == {"seat-1", "host", "autohost-bot"}
    finally:
        await room.stop()


async def test_the_engine_not_having_spoken_touches_nobody(contract):
    seat_players(contract, range(1, 4))
    room = await started(contract)
    try:
        await room.reconcile()
        assert contract.updates() == []
    finally:
        await room.stop()


async def test_a_bad_seat_is_refused_and_changes_nothing(contract):
    seat_players(contract, range(1, 3))
    room = await started(contract)
    try:
        with pytest.raises(ValueError, match="seat"):
            await room.set_speakers(frozenset({0}))
        assert contract.updates() == []
        assert room.plan() == []
    finally:
        await room.stop()


async def test_wrong_credentials_fail_at_start_without_retrying(contract):
    room = LiveKitRoom.connect(contract.url, API_KEY, "x" * 40, ROOM, retry=FAST)
    with pytest.raises(ServerError) as refused:
        await room.start()
    await room.stop()
    assert refused.value.status == 401
    assert room.retries == 0


async def test_the_periodic_reconcile_silences_a_rejoin_nobody_reported(contract):
    seat_players(contract, range(1, 3))
    room = await started(contract, reconcile_every=0.05)
    try:
        await room.set_speakers(frozenset({1}))
        contract.leave(ROOM, "seat-2")
        contract.join(ROOM, "seat-2", attributes={"seat": "2"})  # no webhook, no room event
        for _ in range(200):
            if contract.publishing(ROOM) == {"seat-1", "host", "autohost-bot"}:
                break
            await asyncio.sleep(0.01)
        assert contract.publishing(ROOM) == {"seat-1", "host", "autohost-bot"}
    finally:
        await room.stop()


async def test_presence_from_listparticipants_with_grace(contract):
    seat_players(contract, range(1, 3))
    room = LiveKitRoom.connect(
        contract.url, API_KEY, API_SECRET, ROOM, retry=FAST, reconcile_every=3600, grace=0.05
    )
    seen: list[tuple[int, bool]] = []

    async def record(seat: int, joined: bool) -> None:
        seen.append((seat, joined))

    room.on_presence(record)  # before start, as the table does
    await room.start()
    try:
        await room.reconcile()  # the same participants again: reported once
        assert sorted(seen) == [(1, True), (2, True)]
        contract.leave(ROOM, "seat-2")
        await room.reconcile()
        assert (2, False) not in seen  # not before the grace period
        await asyncio.sleep(0.2)
        assert seen[-1] == (2, False)
    finally:
        await room.stop()


async def test_stop_ends_the_worker_however_busy_its_schedule(contract):
    """Found in a full run: the worker's wait_for (Python 3.11) could swallow stop()'s
    cancellation when it fired with its timeout, and stop() then waited for ever."""
    seat_players(contract, range(1, 3))
    for _ in range(40):
        room = await started(contract, reconcile_every=0.0)
        await asyncio.sleep(0.005)
        async with asyncio.timeout(5):
            await room.stop()
