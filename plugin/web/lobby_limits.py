"""Every bound of a table's lobby, in one place (issue 31; docs/protocol.md, "Lobby
limits", lists them with these names). The lobby is the one page a stranger holding the
invite link can write to, so each thing he can make it hold or do is bounded here: its
places, its sockets, its messages, what it writes to the table's log, and how long a place
outlives its device.
"""

from __future__ import annotations

# --- what the lobby holds --------------------------------------------------------------
MAX_WAITING = 30  # waiting players and devices awaiting approval, per table (lobby.py)
MAX_SOCKETS = 120  # players' open lobby sockets per table: the waiting, the seated, tabs
MAX_LOBBY_MESSAGE = 1024  # bytes of one message on a lobby socket
# How long a waiting place (or a device's request) outlives its device's last lobby socket,
# and how long after a restart or a failover an absent device keeps it: a reload comes
# back well within it, a connect that closes after its join does not hold a place
# (lobby_presence.py).
LOBBY_GRACE_SECONDS = 10.0

# --- how fast (token buckets: so many a second, so many at once) ----------------------
LOBBY_CONNECTS_PER_SECOND, LOBBY_CONNECT_BURST = 1.0, 10  # per address and table
LOBBY_MESSAGES_PER_SECOND, LOBBY_MESSAGE_BURST = 5.0, 10  # per connection
# What the players of one table may write to its log: every join and leave is a record,
# and 8 sockets of one invite link wrote 780 in 10 s (the outside check). Each device has
# a budget of its own (a name typed again, a leave and a join back: a few), and the table
# one for all of them (a whole club arriving at once fits its burst). Only what is written
# is charged: a refused message writes nothing. The host is not limited.
LOBBY_DEVICE_RECORDS_PER_SECOND, LOBBY_DEVICE_RECORD_BURST = 0.2, 10
LOBBY_TABLE_RECORDS_PER_SECOND, LOBBY_TABLE_RECORD_BURST = 2.0, 60
# New places from one address (issue 31: one address filled the lobby in 21 s, each
# connect closing after its join): a household or a club's room behind one router joins
# at once, a loop is slowed to one place a minute.
LOBBY_ADDRESS_JOINS_PER_SECOND, LOBBY_ADDRESS_JOIN_BURST = 1 / 60, 6
