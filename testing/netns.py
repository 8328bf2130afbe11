"""The internet in network namespaces (root only): a "public" namespace where the server and
coturn live, and homes, each behind its own NAT namespace (nftables masquerade), with a
Chromium inside each home.

    [public] 10.77.0.1/24 bridge ── wan 10.77.0.(10+i) [nat_i] lan 10.77.(10+i).1
                                                       ── eth0 10.77.(10+i).2 [home_i]

The public namespace and the NATs route every other address into a sink (a veth pair of
their own, where it is dropped with no error), as the internet drops a private address.

A port-preserving NAT is `masquerade` (Linux keeps the source port when it is free: the
same public port for every destination, so STUN hole punching works); a symmetric one is
`masquerade random` (a new random port per destination: only TURN gets through). Every
address is one this module assigned, inside namespaces it made; `internet()` removes them
all (with their veths) even when the block fails.

The test process itself serves from the public namespace: `inside(ns)` moves the calling
thread there (setns), so the sockets uvicorn and aiortc open while it lasts are the public
namespace's; a Chromium runs in a home through a wrapper executable for Playwright.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .browser import CHROMIUM

CLONE_NEWNET = 0x40000000
SUBNET = "10.77"  # every address the namespaces get is 10.77.x.y, and only inside them
PUBLIC_IP = f"{SUBNET}.0.1"


def netns_missing() -> str | None:
    """Why network namespaces with NAT cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "nft"):
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            return f"{tool} missing (apt-get install iproute2 nftables)"
    probe = f"ah-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"the kernel has no network namespaces here ({made.stderr.strip()})"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


@dataclass(frozen=True, slots=True)
class Home:
    name: str  # the home's namespace
    nat: str  # its NAT's namespace
    address: str  # the home's own (private) address
    public: str  # its NAT's address on the public side
    symmetric: bool


@dataclass(frozen=True, slots=True)
class Internet:
    public: str  # the public namespace
    address: str  # the public host's address (server, coturn)
    homes: tuple[Home, ...]

    def chromium(self, home: Home, folder: Path) -> Path:
        """An executable that runs Debian's Chromium inside `home` (Playwright's
        executable_path: its pipes pass through `ip netns exec`)."""
        wrapper = folder / f"chromium-{home.name}"
        wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {home.name} {CHROMIUM} "$@"\n')
        wrapper.chmod(0o755)
        return wrapper


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


def _in(ns: str, *command: str, stdin: str | None = None) -> None:
    done = subprocess.run(
        ["ip", "netns", "exec", ns, *command],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{ns}: {' '.join(command)}: {done.stderr.strip()}")


def _sink(ns: str) -> None:
    """Every address not ours goes into a sink: dropped inside the namespace,
    with no error for the sender. Found by the NAT test: with no default route coturn's
    relay gets ENETUNREACH sending to a home's private (host candidate) address, and with
    a blackhole route EINVAL; either error makes it close the whole allocation, which a
    real TURN server on the internet (where such a packet is just lost) never sees."""
    # A veth pair inside the namespace: what goes out of sink0 (to a gateway whose
    # neighbour entry is fixed, so no ARP ever fails) arrives at sink1 and is dropped.
    _ip("-n", ns, "link", "add", "sink0", "type", "veth", "peer", "name", "sink1")
    _ip("-n", ns, "addr", "add", f"{SUBNET}.255.1/30", "dev", "sink0")
    for end in ("sink0", "sink1"):
        _ip("-n", ns, "link", "set", end, "up")
    _ip(
        "-n",
        ns,
        "neigh",
        "add",
        f"{SUBNET}.255.2",
        "lladdr",
        "02:00:00:00:00:02",
        "dev",
        "sink0",
        "nud",
        "permanent",
    )
    _ip("-n", ns, "route", "add", "default", "via", f"{SUBNET}.255.2", "dev", "sink0")


def nat_rules(symmetric: bool) -> str:
    """The NAT namespace's nftables ruleset, a home router's: masquerade what leaves by
    `wan`, drop what arrives there unasked.

    The drop matters (found by the NAT test): an unsolicited packet (the other home's
    first ICE check, arriving before this home has sent its own) that reaches the router
    leaves a conntrack entry behind, and this home's own check to that peer then clashes
    with it and is masqueraded to another port, so hole punching fails even between two
    port-preserving NATs. Dropped before conntrack confirms it, it leaves nothing.
    """
    how = "masquerade random" if symmetric else "masquerade"
    return (
        "table ip nat {\n"
        "  chain postrouting {\n"
        "    type nat hook postrouting priority srcnat; policy accept;\n"
        f'    oifname "wan" {how}\n'
        "  }\n"
        "}\n"
        "table inet filter {\n"
        "  chain input {\n"
        "    type filter hook input priority filter; policy accept;\n"
        '    iifname "wan" ct state new drop\n'
        "  }\n"
        "}\n"
    )


@contextlib.contextmanager
def internet(symmetric: Sequence[bool], *, tag: str | None = None) -> Iterator[Internet]:
    """The public namespace and one home per entry of `symmetric` (True: a symmetric NAT).
    Every namespace made is removed afterwards, whatever happened."""
    tag = tag or f"ah{os.getpid() % 100000}"
    public = f"{tag}-pub"
    made: list[str] = []
    try:
        _ip("netns", "add", public)
        made.append(public)
        _ip("-n", public, "link", "set", "lo", "up")
        _ip("-n", public, "link", "add", "br0", "type", "bridge")
        _ip("-n", public, "addr", "add", f"{PUBLIC_IP}/24", "dev", "br0")
        _ip("-n", public, "link", "set", "br0", "up")
        _sink(public)
        homes = []
        for i, sym in enumerate(symmetric, start=1):
            nat, home = f"{tag}-nat{i}", f"{tag}-home{i}"
            wan_ip, lan_net = f"{SUBNET}.0.{10 + i}", f"{SUBNET}.{10 + i}"
            for ns in (nat, home):
                _ip("netns", "add", ns)
                made.append(ns)
                _ip("-n", ns, "link", "set", "lo", "up")
            _ip(
                "-n",
                nat,
                "link",
                "add",
                "wan",
                "type",
                "veth",
                "peer",
                "name",
                f"n{i}",
                "netns",
                public,
            )
            _ip("-n", public, "link", "set", f"n{i}", "master", "br0", "up")
            _ip("-n", nat, "addr", "add", f"{wan_ip}/24", "dev", "wan")
            _ip("-n", nat, "link", "set", "wan", "up")
            _ip(
                "-n",
                nat,
                "link",
                "add",
                "lan",
                "type",
                "veth",
                "peer",
                "name",
                "eth0",
                "netns",
                home,
            )
            _ip("-n", nat, "addr", "add", f"{lan_net}.1/24", "dev", "lan")
            _ip("-n", nat, "link", "set", "lan", "up")
            _sink(nat)
            _ip("-n", home, "addr", "add", f"{lan_net}.2/24", "dev", "eth0")
            _ip("-n", home, "link", "set", "eth0", "up")
            _ip("-n", home, "route", "add", "default", "via", f"{lan_net}.1")
            _in(nat, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
            _in(nat, "nft", "-f", "-", stdin=nat_rules(sym))
            homes.append(Home(home, nat, f"{lan_net}.2", wan_ip, sym))
        yield Internet(public=public, address=PUBLIC_IP, homes=tuple(homes))
    finally:
        for ns in reversed(made):  # a namespace takes its veths and rules with it
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


_libc = ctypes.CDLL("libc.so.6", use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"setns: {os.strerror(error)}")


@contextlib.contextmanager
def inside(ns: str) -> Iterator[None]:
    """The calling thread is in namespace `ns` while the block runs (sockets it opens
    stay there after); back in its own namespace afterwards."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        _setns(target)
        try:
            yield
        finally:
            _setns(own)
    finally:
        os.close(target)
        os.close(own)
