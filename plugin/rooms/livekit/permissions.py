"""What each participant may publish, as LiveKit permissions that change nothing else.

`UpdateParticipant` with a permission replaces every field (FIELD-NOTES), the rarely used
ones too (`can_update_metadata`, `hidden`, `recorder`, ...). So a `PublishPermission` is
applied onto the permission the participant holds now (from ListParticipants, a room event
or the answer to our last update): only `can_publish` and `can_publish_sources` change.
When we do not know what he holds, can_subscribe and can_publish_data are set, or he would
go deaf or lose the overlay's data. A speaker may publish his microphone; anybody else may
not, and the server then unpublishes his microphone itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from livekit.protocol.models import ParticipantPermission, TrackSource

MICROPHONE = TrackSource.MICROPHONE


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishPermission:
    """The part of a permission we decide: may the participant publish, and which sources.

    `sources` empty with `publish` true means every source (the live host's).
    """

    publish: bool
    sources: tuple[int, ...] = ()

    @property
    def opens_microphone(self) -> bool:
        return self.publish and (not self.sources or MICROPHONE in self.sources)

    def permission(self, held: ParticipantPermission | None = None) -> ParticipantPermission:
        """The permission to send for this one: `held` with only the publish fields
        changed (None: nothing known, so subscribe and data are allowed)."""
        permission = ParticipantPermission()
        if held is None:
            permission.can_subscribe = permission.can_publish_data = True
        else:
            permission.CopyFrom(held)
        permission.can_publish = self.publish
        del permission.can_publish_sources[:]
        if self.publish:
            permission.can_publish_sources.extend(cast(Any, list(self.sources)))
        return permission

    @classmethod
    def of(cls, permission: ParticipantPermission) -> PublishPermission:
        """What a participant may publish now (its publish fields)."""
        if not permission.can_publish:
            return cls(publish=False)
        return cls(publish=True, sources=tuple(sorted(permission.can_publish_sources)))


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """Publish permissions for speakers, the silent and the always-allowed (live host, bot).

    `video_sources` (default none, as the issue asks) lets a club keep cameras on for
    everybody: the silent then publish only those sources and the speaker adds the mic.
    """

    video_sources: tuple[int, ...] = ()

    def speaker(self) -> PublishPermission:
        return PublishPermission(
            publish=True, sources=tuple(sorted({MICROPHONE, *self.video_sources}))
        )

    def silent(self) -> PublishPermission:
        if self.video_sources:
            return PublishPermission(publish=True, sources=tuple(sorted(self.video_sources)))
        return PublishPermission(publish=False)

    @staticmethod
    def always() -> PublishPermission:
        return PublishPermission(publish=True)
