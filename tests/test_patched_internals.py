"""The private parts of aioice and uvicorn that the product patches are still there, with the
shape it relies on; pyproject.toml pins both to the versions checked here.

`plugin/rooms/embedded/ice.py` replaces two module attributes of `aioice.ice`, and
`plugin/server/http.py` subclasses two uvicorn protocols and wraps the loop's
`create_server` while uvicorn starts. A release that renames or reshapes any of them would
not fail loudly: the patch would quietly stop applying (a server offering no loopback
candidate, binding outside its firewall range, losing its request deadlines). So each test
reads the library's code and says, by name, which internal changed and which file to
re-read before the pin in pyproject.toml is moved.
"""

from __future__ import annotations

import asyncio
import dis
import inspect
import socket
from collections.abc import Callable, Iterator
from types import CodeType
from typing import Any

import aioice
import aioice.ice
import pytest
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from plugin.rooms.embedded.ice import (
    loopback_ice,
    restore_udp_ports,
    use_udp_port_range,
)
from plugin.server.http import BoundedHttpProtocol, BoundedWebSocketProtocol

ICE = "plugin/rooms/embedded/ice.py"
HTTP = "plugin/server/http.py"


def _changed(library: str, what: str, patched_by: str, detail: str) -> str:
    version = {"aioice": aioice.__version__, "uvicorn": uvicorn.__version__}[library]
    return (
        f"{library} {version}: {what} {detail}. {patched_by} relies on it: re-read that file "
        f"against this {library} before moving its pin in pyproject.toml"
    )


def _codes(code: CodeType) -> Iterator[CodeType]:
    """A code object and every code object nested in it (lambdas, comprehensions)."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from _codes(constant)


def _names_used(function: Callable[..., Any]) -> set[str]:
    """Every global and attribute name the function's own code refers to, and the keywords
    it passes in calls (CPython keeps those as tuples of names among its constants)."""
    names: set[str] = set()
    for code in _codes(function.__code__):
        names |= set(code.co_names)
        for constant in code.co_consts:
            if isinstance(constant, tuple):
                names |= {item for item in constant if isinstance(item, str)}
    return names


def _attributes_set(cls: type) -> set[str]:
    """The `self.<name> = ...` stores in the methods of `cls` and its bases."""
    stored: set[str] = set()
    for klass in cls.__mro__:
        for member in vars(klass).values():
            function = getattr(member, "__code__", None)
            if isinstance(function, CodeType):
                for code in _codes(function):
                    stored |= {
                        str(instruction.argval)
                        for instruction in dis.get_instructions(code)
                        if instruction.opname == "STORE_ATTR"
                    }
    return stored


def _check_method(
    library: str, owner: type, name: str, parameters: list[str], patched_by: str
) -> None:
    where = f"{owner.__module__}.{owner.__qualname__}.{name}"
    method = vars(owner).get(name)
    assert callable(method), _changed(library, where, patched_by, "is gone")
    found = list(inspect.signature(method).parameters)
    assert found == parameters, _changed(
        library, where, patched_by, f"takes ({', '.join(found)}), not ({', '.join(parameters)})"
    )


def _check_uses(
    library: str, function: Callable[..., Any], names: set[str], patched_by: str
) -> None:
    missing = names - _names_used(function)
    assert not missing, _changed(
        library,
        f"{function.__module__}.{function.__qualname__}",
        patched_by,
        f"no longer refers to {', '.join(sorted(missing))}",
    )


# -- aioice: plugin/rooms/embedded/ice.py ------------------------------------------------


def test_aioice_gathers_host_addresses_through_the_module_attribute() -> None:
    """`use_loopback_ice` replaces `aioice.ice.get_host_addresses`; that works only while
    the function keeps its keywords and `Connection.gather_candidates` looks it up in the
    module at call time."""
    function = getattr(aioice.ice, "get_host_addresses", None)
    assert callable(function), _changed("aioice", "aioice.ice.get_host_addresses", ICE, "is gone")
    found = list(inspect.signature(function).parameters)
    assert found == ["use_ipv4", "use_ipv6"], _changed(
        "aioice", "aioice.ice.get_host_addresses", ICE, f"takes ({', '.join(found)})"
    )
    _check_uses("aioice", aioice.ice.Connection.gather_candidates, {"get_host_addresses"}, ICE)


async def test_aioice_gathers_only_loopback_under_the_patch() -> None:
    """And it takes effect: a real aioice connection offers 127.0.0.1 and nothing else."""
    with loopback_ice():
        connection = aioice.ice.Connection(ice_controlling=True)
        try:
            await connection.gather_candidates()
            hosts = {c.host for c in connection.local_candidates if c.type == "host"}
        finally:
            await connection.close()
    assert hosts == {"127.0.0.1"}, _changed(
        "aioice", "aioice.ice.Connection.gather_candidates", ICE, f"offered {sorted(hosts)}"
    )


def test_aioice_binds_host_candidates_through_its_module_asyncio() -> None:
    """`use_udp_port_range` replaces the `asyncio` that `aioice.ice` sees; that works only
    while `get_component_candidates` asks `asyncio.get_running_loop()` for the loop and
    binds each host socket with `create_datagram_endpoint(..., local_addr=(address, 0))`."""
    assert getattr(aioice.ice, "asyncio", None) is asyncio, _changed(
        "aioice", "aioice.ice.asyncio", ICE, "is not the asyncio module"
    )
    _check_method(
        "aioice",
        aioice.ice.Connection,
        "get_component_candidates",
        ["self", "component", "addresses", "timeout"],
        ICE,
    )
    _check_uses(
        "aioice",
        aioice.ice.Connection.get_component_candidates,
        {"asyncio", "get_running_loop", "create_datagram_endpoint", "local_addr"},
        ICE,
    )


async def test_aioice_binds_inside_the_range_under_the_patch() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        low = int(probe.getsockname()[1]) % 40000 + 20000
    high = low + 15
    use_udp_port_range(low, high)
    try:
        with loopback_ice():
            connection = aioice.ice.Connection(ice_controlling=True)
            try:
                await connection.gather_candidates()
                ports = [c.port for c in connection.local_candidates if c.type == "host"]
            finally:
                await connection.close()
    finally:
        restore_udp_ports()
    assert ports, _changed("aioice", "aioice.ice.Connection", ICE, "gathered no host candidate")
    assert all(low <= port <= high for port in ports), _changed(
        "aioice",
        "aioice.ice.Connection.get_component_candidates",
        ICE,
        f"bound {ports}, outside {low}-{high}",
    )


# -- uvicorn: plugin/server/http.py -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "parameters"),
    [
        ("connection_made", ["self", "transport"]),
        ("data_received", ["self", "data"]),
        ("on_response_complete", ["self"]),
        ("handle_websocket_upgrade", ["self", "event"]),
        ("connection_lost", ["self", "exc"]),
    ],
)
def test_uvicorn_h11_protocol_keeps_what_the_bounded_one_overrides(
    name: str, parameters: list[str]
) -> None:
    assert name in vars(BoundedHttpProtocol), f"{HTTP} no longer overrides {name}: update this"
    _check_method("uvicorn", H11Protocol, name, parameters, HTTP)


def test_uvicorn_h11_protocol_keeps_the_attributes_the_bounded_one_reads() -> None:
    """The deadline reads the h11 connection's state, the config, the loop, the transport."""
    missing = {"config", "conn", "loop", "transport"} - _attributes_set(H11Protocol)
    assert not missing, _changed(
        "uvicorn", "H11Protocol", HTTP, f"no longer sets self.{', self.'.join(sorted(missing))}"
    )


@pytest.mark.parametrize(
    ("name", "parameters"),
    [
        ("connection_made", ["self", "transport"]),
        ("connection_lost", ["self", "exc"]),
        ("data_received", ["self", "data"]),
        ("send_receive_event_to_app", ["self"]),
        ("handle_parser_exception", ["self"]),
    ],
)
def test_uvicorn_websocket_protocol_keeps_what_the_bounded_one_overrides(
    name: str, parameters: list[str]
) -> None:
    _check_method("uvicorn", WebSocketsSansIOProtocol, name, parameters, HTTP)


def test_uvicorn_websocket_protocol_keeps_the_attributes_the_bounded_one_reads() -> None:
    """The UTF-8 check reads the message's type and frames and whether a close was sent."""
    wanted = {"config", "conn", "transport", "frames", "curr_msg_data_type", "close_sent"}
    missing = wanted - _attributes_set(WebSocketsSansIOProtocol)
    assert not missing, _changed(
        "uvicorn",
        "WebSocketsSansIOProtocol",
        HTTP,
        f"no longer sets self.{', self.'.join(sorted(missing))}",
    )
    assert issubclass(BoundedWebSocketProtocol, WebSocketsSansIOProtocol)


def test_uvicorn_startup_creates_its_server_through_the_running_loop() -> None:
    """`_bound_tls_handshakes` wraps `loop.create_server` of the running loop for the
    duration of startup; uvicorn must still call it there, passing `ssl=`."""
    _check_method("uvicorn", uvicorn.Server, "startup", ["self", "sockets"], HTTP)
    _check_uses(
        "uvicorn",
        uvicorn.Server.startup,
        {"get_running_loop", "create_server", "ssl"},
        HTTP,
    )
    _check_method("uvicorn", uvicorn.Server, "serve", ["self", "sockets"], HTTP)
    server = uvicorn.Server(uvicorn.Config(app="plugin.server:app"))
    assert server.started is False and server.should_exit is False, _changed(
        "uvicorn", "uvicorn.Server", HTTP, "has no `started`/`should_exit` flags"
    )


# -- livekit-api: plugin/rooms/livekit/server_clock.py -------------------------------------

LIVEKIT_CLOCK = "plugin/rooms/livekit/server_clock.py"


def test_livekit_api_services_sign_every_call_through_auth_header() -> None:
    """`stamp_calls` replaces a service's `_auth_header` (the SDK signs with this machine's
    clock): it must still be the one place a call's token comes from, with (grants, sip)."""
    from livekit.api._service import Service
    from livekit.api.room_service import RoomService

    _check_method("livekit-api", Service, "_auth_header", ["self", "grants", "sip"],
                  LIVEKIT_CLOCK)  # fmt: skip
    for name in ("list_participants", "update_participant", "remove_participant"):
        _check_uses("livekit-api", getattr(RoomService, name), {"_auth_header"}, LIVEKIT_CLOCK)


def test_a_changed_internal_is_reported_by_name() -> None:
    """The checks above can fail, and say what changed."""

    class Reshaped:
        def data_received(self, data: bytes, more: int) -> None:
            del data, more

    with pytest.raises(AssertionError, match=r"Reshaped.data_received takes \(self, data, more\)"):
        _check_method("uvicorn", Reshaped, "data_received", ["self", "data"], HTTP)
    with pytest.raises(AssertionError, match=r"Reshaped.gone is gone"):
        _check_method("uvicorn", Reshaped, "gone", ["self"], HTTP)
    with pytest.raises(AssertionError, match="no longer refers to get_running_loop"):
        _check_uses("uvicorn", Reshaped.data_received, {"get_running_loop"}, HTTP)
