"""A real TURN server for the internet tests: Debian's coturn (`turnserver`), with a shared
secret (the TURN REST API scheme the server mints page credentials in), started by a test
and stopped after it.

    with running_coturn(tmp_path, secret="s3cret") as turn:
        IceSettings(stun=(turn.stun_url,), turn=(turn.turn_url,), turn_secret=b"s3cret")

`prefix` runs it inside a network namespace (`["ip", "netns", "exec", "pub"]`); it then
listens and relays on `listen`, an address of that namespace.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .loopback import free_port

TURNSERVER = "/usr/bin/turnserver"
READY = "Total General servers"  # coturn 4.6 prints it once its listeners are up


def coturn_missing() -> str | None:
    """Why the real coturn cannot run here, or None."""
    if shutil.which("turnserver") is None and not Path(TURNSERVER).exists():
        return "coturn missing: apt-get install coturn (scripts/test installs it as root)"
    return None


@dataclass(frozen=True, slots=True)
class Coturn:
    host: str
    port: int
    log: Path
    tls_port: int | None = None  # TURN over TLS, when started with a certificate

    @property
    def stun_url(self) -> str:
        return f"stun:{self.host}:{self.port}"

    @property
    def turn_url(self) -> str:
        return f"turn:{self.host}:{self.port}?transport=udp"

    @property
    def turn_tcp_url(self) -> str:
        return f"turn:{self.host}:{self.port}?transport=tcp"

    @property
    def turns_url(self) -> str:
        assert self.tls_port is not None, "coturn was started without TLS"
        return f"turns:{self.host}:{self.tls_port}?transport=tcp"

    def allocations(self) -> int:
        """How many relay allocations coturn has made so far (its log says each)."""
        return self.log.read_text(errors="replace").count("ALLOCATE processed, success")


@contextlib.contextmanager
def running_coturn(
    folder: Path,
    *,
    secret: str,
    listen: str = "127.0.0.1",
    port: int | None = None,
    relay_ports: tuple[int, int] = (49160, 49400),
    prefix: Sequence[str] = (),
    loopback_peers: bool = True,
    tls: tuple[Path, Path] | None = None,
    timeout: float = 15,
) -> Iterator[Coturn]:
    """coturn on `listen`:`port` (a free one by default) with `use-auth-secret`; loopback
    peers allowed unless told otherwise (the server under test is on 127.0.0.1); `tls`
    (certificate, key): TURN over TLS too, on `Coturn.tls_port`. Stopped (SIGTERM, then
    SIGKILL) when the block ends, even when it fails."""
    folder.mkdir(parents=True, exist_ok=True)
    port = port or free_port(socket.SOCK_DGRAM)
    tls_port = free_port() if tls else None
    secure = (
        ["--cert", str(tls[0]), "--pkey", str(tls[1]), "--tls-listening-port", str(tls_port)]
        if tls
        else ["--no-tls"]
    )
    log = folder / "turnserver.log"
    command = [
        *prefix, TURNSERVER, "-n",
        "--listening-ip", listen, "--listening-port", str(port), "--relay-ip", listen,
        "--use-auth-secret", "--static-auth-secret", secret, "--realm", "autohost.test",
        "--fingerprint", "--no-cli", *secure, "--no-dtls",
        *(["--allow-loopback-peers"] if loopback_peers else []),
        "--min-port", str(relay_ports[0]), "--max-port", str(relay_ports[1]),
        "--pidfile", str(folder / "turnserver.pid"), "--db", str(folder / "turndb"),
        "--log-file", "stdout", "--simple-log", "--verbose",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while READY not in log.read_text(errors="replace"):
            if process.poll() is not None:
                raise RuntimeError(f"turnserver exited ({process.returncode}):\n{_tail(log)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"turnserver not ready in {timeout:g} s:\n{_tail(log)}")
            time.sleep(0.05)
        yield Coturn(host=listen, port=port, log=log, tls_port=tls_port)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-3000:]
