"""The LiveKit server's RoomService as a room uses it: the three calls, and their retry.

Calls for one room go one at a time (the room's lock): concurrent updates for a room can
fail with 500 (livekit/livekit#2079). A failed call is retried with backoff on 5xx and
timeouts, each attempt bounded (`Retry.attempt_timeout`): a stalled connection costs one
attempt, and the next one opens a fresh connection.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

import aiohttp
from livekit.api.twirp_client import ServerError
from livekit.protocol.models import ParticipantInfo
from livekit.protocol.room import (
    ListParticipantsRequest,
    ListParticipantsResponse,
    RemoveParticipantResponse,
    RoomParticipantIdentity,
    UpdateParticipantRequest,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


class RoomService(Protocol):
    """The RoomService calls we use; `livekit.api.RoomService` is one."""

    async def list_participants(
        self, list: ListParticipantsRequest
    ) -> ListParticipantsResponse: ...

    async def update_participant(self, update: UpdateParticipantRequest) -> ParticipantInfo: ...

    async def remove_participant(
        self, remove: RoomParticipantIdentity
    ) -> RemoveParticipantResponse: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Retry:
    """Backoff for one RoomService call: 5xx and timeouts are retried, 4xx are not."""

    attempts: int = 6
    first_delay: float = 0.05
    max_delay: float = 1.0
    attempt_timeout: float = 2.0


def not_found(error: ServerError) -> bool:
    return error.status == 404 or error.code == "not_found"


async def call(
    method: Callable[[T], Awaitable[R]],
    request: T,
    retry: Retry,
    on_retry: Callable[[], None] = lambda: None,
) -> R:
    """One RoomService call (the caller holds the room's lock), retried on 5xx and
    timeouts; `on_retry` counts each retry."""
    delay = retry.first_delay
    for attempt in range(1, retry.attempts + 1):
        try:
            async with asyncio.timeout(retry.attempt_timeout):
                return await method(request)
        except ServerError as error:
            if error.status < 500 or attempt == retry.attempts:
                raise
            reason: object = error
        except (TimeoutError, aiohttp.ClientError) as error:
            if attempt == retry.attempts:
                raise
            reason = error
        on_retry()
        log.info("livekit: %s failed (%s), retry %d", type(request).__name__, reason, attempt)
        await asyncio.sleep(delay)
        delay = min(delay * 2, retry.max_delay)
    raise AssertionError("unreachable")
