"""What each participant may publish, as complete LiveKit permissions.

`UpdateParticipant` with a permission replaces every field (FIELD-NOTES), so every
permission we send is built here, whole: can_subscribe and can_publish_data are always
true, or the participant goes deaf or loses the overlay's data. A speaker may publish his
microphone; anybody else may not, and the server then unpublishes his microphone itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from livekit.protocol.models import ParticipantPermission, TrackSource

MICROPHONE = TrackSource.MICROPHONE


@dataclass(frozen=True, slots=True, kw_only=True)
class Grant:
    """The part of a permission we decide: may the participant publish, and which sources.

    `sources` empty with `publish` true means every source (the live host's grant).
    """

    publish: bool
    sources: tuple[int, ...] = ()

    @property
    def opens_microphone(self) -> bool:
        return self.publish and (not self.sources or MICROPHONE in self.sources)

    def permission(self) -> ParticipantPermission:
        """The complete permission to send for this grant."""
        return ParticipantPermission(
            can_subscribe=True,
            can_publish=self.publish,
            can_publish_data=True,
            can_publish_sources=cast(Any, list(self.sources) if self.publish else []),
        )

    @classmethod
    def of(cls, permission: ParticipantPermission) -> Grant | None:
        """The grant a participant holds now; None when it is not one of ours (e.g. deaf)."""
        if not (permission.can_subscribe and permission.can_publish_data):
            return None
        if not permission.can_publish:
            return cls(publish=False)
        return cls(publish=True, sources=tuple(sorted(permission.can_publish_sources)))


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """Grants for speakers, the silent and the always-allowed (live host, bot).

    `video_sources` (default none, as the issue asks) lets a club keep cameras on for
    everybody: the silent then publish only those sources and the speaker adds the mic.
    """

    video_sources: tuple[int, ...] = ()

    def speaker(self) -> Grant:
        return Grant(publish=True, sources=tuple(sorted({MICROPHONE, *self.video_sources})))

    def silent(self) -> Grant:
        if self.video_sources:
            return Grant(publish=True, sources=tuple(sorted(self.video_sources)))
        return Grant(publish=False)

    @staticmethod
    def always() -> Grant:
        return Grant(publish=True)
