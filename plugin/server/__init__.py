"""The assembly: the only package that imports every part (web, host, rooms, voice) and wires
them into a server, from one configuration, run by one uvicorn loop.

Public API:
- `ServerOptions`, `LiveKitOptions`: what a server is (address, log, media, voice).
- `build(options) -> Hosting`: the ASGI app with its tables' factories (tests serve it).
- `run(options, session=...)`: listen, print the URL, run a session, stop on a signal.
- `listening(app)`, `run_until_signalled(main)`, `PortInUse`: the one uvicorn loop.
- `check_tls_files(cert, key)`, `TlsFilesError`: a certificate and key the server can use.
- `plugin.server.demo`: the demo's table and simulated players.

The command line (`plugin.cli`: serve, livekit, demo) are thin front doors onto these.
"""

from .assembly import Hosting, build, run
from .http import Listening, PortInUse, listening, run_until_signalled, wait_stopped
from .options import DEFAULT_DB, LiveKitOptions, ServerOptions
from .tls import TlsFilesError, check_tls_files

__all__ = [
    "DEFAULT_DB",
    "Hosting",
    "Listening",
    "LiveKitOptions",
    "PortInUse",
    "ServerOptions",
    "TlsFilesError",
    "build",
    "check_tls_files",
    "listening",
    "run",
    "run_until_signalled",
    "wait_stopped",
]
