"""Each room of the process hears only its own events from the LiveKit SDK.

The SDK (livekit 1.2) hands every FFI event to every subscriber whose filter accepts it,
and a room's filter refuses only the audio and video stream events. So every room's
listening task woke up for every other room's events and for every `capture_frame` of
every bot: one capture event was delivered to 11 queues with 10 tables, and each room then
ran it through its `_room_queue` and waited for it to be taken (measured in
bench/livekit_tables.py: 1,333 capture events made 14,697 deliveries). The cost grows with
the square of the tables in one server.

`narrow_events(room)` replaces a connected room's filter with one that keeps what the room
handles (its own room events, RPC invocations, the replies to its own participant's
requests) and drops the other rooms' room events and the media events, which have
subscribers of their own. It uses the SDK's private fields; when they are not there (another
version of the SDK) it changes nothing and says so once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from livekit import rtc
from livekit.rtc._ffi_client import FfiClient

log = logging.getLogger(__name__)

# Events a room never handles: each has a subscriber of its own (the audio source waiting
# for its capture, an audio or video stream reading its frames).
MEDIA_EVENTS = frozenset(
    {"capture_audio_frame", "audio_stream_event", "video_stream_event", "data_track_stream_event"}
)
_warned = False


def own_events(handle: int, admit: Callable[[str], bool] | None = None) -> Any:
    """The filter of the room whose FFI handle is `handle`; `admit(identity)` decides, on
    the SDK's thread, whether a data packet from `identity` is handed to Python at all
    (guard.py: a flood is dropped here, before it reaches the event loop)."""

    def keep(event: Any) -> bool:
        which = event.WhichOneof("message")
        if which == "room_event":
            room_event = event.room_event
            if room_event.room_handle != handle:
                return False
            if admit is not None and room_event.WhichOneof("message") == "data_packet_received":
                return admit(room_event.data_packet_received.participant_identity)
            return True
        return which not in MEDIA_EVENTS

    return keep


def narrow_events(room: rtc.Room, admit: Callable[[str], bool] | None = None) -> bool:
    """Make the connected `room` hear only its own events (and of the data packets, only
    those `admit` lets through); whether it could."""
    global _warned
    queue = getattr(room, "_ffi_queue", None)
    handle = getattr(getattr(room, "_ffi_handle", None), "handle", None)
    ffi = FfiClient.instance.queue
    subscribers = getattr(ffi, "_subscribers", None)
    lock = getattr(ffi, "_lock", None)
    if queue is not None and isinstance(handle, int) and isinstance(subscribers, list) and lock:
        with lock:
            for index, entry in enumerate(subscribers):
                if entry[0] is queue:
                    subscribers[index] = (entry[0], entry[1], own_events(handle, admit))
                    return True
    if not _warned:
        _warned = True
        log.warning(
            "livekit: this SDK's event queue is not the one plugin/rooms/livekit/ffi.py knows; "
            "every room of the process hears every event (more CPU per table)"
        )
    return False
