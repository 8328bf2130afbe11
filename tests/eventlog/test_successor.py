"""The next game after a finished, archived table (issue 17), on both logs: on PostgreSQL
every write is fenced by the table's lease, which nobody holds for an archived table, so
the registry takes it for the successor record and lets it go."""

from __future__ import annotations

from plugin.host.inputs import HOST, EndGame, Start
from plugin.host.registry import Registry
from plugin.host.settings import TableSettings
from testing import FakeClock, FakeHub

from .conftest import OpenHosting


async def test_the_next_game_of_an_archived_table_is_recorded(
    open_hosting_at: OpenHosting,
) -> None:
    log, leases = open_hosting_at()
    first = Registry(
        log, leases=leases, hub=FakeHub(), clock=FakeClock(), save_every=0, heartbeat=60
    )
    await first.start()
    table = await first.create(TableSettings(seats=10, seed=3))
    await table.submit(HOST, Start())
    assert (await table.submit(HOST, EndGame(winner="city"))).ok
    await first.close()

    log, leases = open_hosting_at()
    second = Registry(
        log, leases=leases, hub=FakeHub(), clock=FakeClock(), save_every=0, heartbeat=60
    )
    await second.start()  # the finished table is archived, not hosted
    assert table.id not in second.tables
    final = second.final(table.id)
    assert final is not None and final.successor is None
    new = await second.next_game(table.id)
    assert await second.next_game(table.id) == new and new in second.tables
    final = second.final(table.id)
    assert final is not None and final.successor == new
    await second.close()
