"""The two ways the engine refuses an event. Either way the state is unchanged."""

from __future__ import annotations


class RuleError(Exception):
    """Base class: `reason` is a stable machine-readable code, the message names the input."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class InvalidAction(RuleError):
    """The event is malformed: a seat outside the table, a wrong type, an unknown choice."""


class IllegalAction(RuleError):
    """The event is well formed but the rules do not allow it now (wrong phase, a dead voter,
    a vote for oneself). `reason` uses the conformance codes where one exists:
    self_vote, not_candidate, not_eligible, duplicate, closed."""
