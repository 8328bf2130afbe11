"""The one routing table: every input the host defines has exactly one route, and one
meaning (engine events or the table's own action)."""

from __future__ import annotations

import pytest

from plugin.host import inputs
from plugin.host.commands import ROUTES, Who, route
from plugin.host.inputs import HOST, Input, Refused

# The inputs plugin.host.inputs defines (a slotted dataclass leaves its first draft among
# the subclasses too, and tests define inputs of their own).
EVERY_INPUT = sorted(
    {cls for cls in Input.__subclasses__() if getattr(inputs, cls.__name__, None) is cls},
    key=lambda cls: cls.kind,
)


def test_every_input_has_its_own_kind() -> None:
    kinds = [cls.kind for cls in EVERY_INPUT]
    assert len(kinds) == len(set(kinds)) == len(ROUTES)


@pytest.mark.parametrize("cls", EVERY_INPUT, ids=lambda cls: cls.kind)
def test_every_input_has_one_route_with_one_meaning(cls: type[Input]) -> None:
    found = ROUTES[cls]
    assert (found.events is None) != (found.act is None), cls
    # The table's own clock and room inputs are actions, never engine translations.
    if found.by in (Who.CLOCK, Who.ROOM):
        assert found.act is not None and not found.batchable


def test_the_clock_and_the_room_are_senders_no_client_can_be() -> None:
    for sender in (HOST, 3):
        for given in (inputs.Expire(timer=1), inputs.Warn(timer=1), inputs.StreamDue()):
            with pytest.raises(Refused) as refused:
                route(sender, given)
            assert refused.value.code == "table_only"
    assert route("clock", inputs.Expire(timer=1)).by is Who.CLOCK
    assert route("room", inputs.Presence(seat=3, joined=True)).by is Who.ROOM
