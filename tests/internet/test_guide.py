"""docs/deploy.md followed as written, on a simulated VPS (issue 32): its own network (the
public namespace of testing.netns, a home behind a NAT where a player's Chromium runs) and
its own /etc, /opt and /var (overlays: testing.vps), so the guide's commands act literally.
The shell it runs is the guide's own code blocks (marked `guide-test` there), so the guide
cannot drift from what is tested; each change this test makes to a block is listed in
CHANGES and must still find what it changes.

What cannot be done offline or without systemd as PID 1 is replaced, and said so:
- apt-get: the guide's packages must already be installed (checked with dpkg);
- git clone from the club's URL: from this checkout; `pip install -e .`: a stand-in that
  puts the checkout and this checkout's installed dependencies on the venv's path (no
  network), with the `autohost` command the package declares;
- Let's Encrypt: Caddy's own CA (`tls internal`); in the nginx run (the guide's other
  choice) a test certificate where certbot leaves its own, and certbot's deploy hook run as
  certbot runs it; DNS: the name in /etc/hosts;
- systemctl: each service started as its Debian unit (or ours) runs it: Caddy and coturn as
  their users, autohost from its unit's ExecStart, User, WorkingDirectory and environment
  (`systemd-analyze verify` checks the units the guide installs);
- the firewall: the guide's ruleset loaded with nft into the VPS's namespace.

Then players' pages from two homes (one behind a symmetric NAT) reach the table through the
proxy, the guide's firewall and their NATs, and their audio flows; a backup is made and
restored; an upgrade (stop, start) brings the page's audio back.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from plugin.paths import ROOT
from testing.browser import launch_chromium
from testing.certs import self_signed
from testing.media_pages import mark_connection, open_seat, wait_audio_back
from testing.netns import Internet, internet, netns_missing
from testing.vps import Vps

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GUIDE = ROOT / "docs" / "deploy.md"
NAME = "mafia.example.org"  # the guide's own example name: its blocks run unchanged
CADDY_DATA = "/var/lib/caddy/.local/share/caddy"
CADDY_ROOT_CA = f"{CADDY_DATA}/pki/authorities/local/root.crt"
PYTHON = f"python{sys.version_info[0]}.{sys.version_info[1]}"  # Debian 12's python3 too
SITE_PACKAGES = Path(sys.prefix) / "lib" / PYTHON / "site-packages"
PACKAGES = "adduser git python3 python3-venv espeak-ng coturn caddy"

# (block, what the guide says, what runs instead): every one must match the guide.
CHANGES: list[tuple[str, str, str]] = [
    ("packages", "apt-get update\n", ""),
    ("packages", f"apt-get install -y {PACKAGES}   # or nginx certbot instead of caddy",
     f"dpkg -s {PACKAGES} >/dev/null"),
    ("packages", "https://example.org/your/mafia-autohost.git", str(ROOT)),
    ("packages", ".venv/bin/pip install -e .",
     # offline: this checkout's dependencies, the clone first on the path, the command
     f"printf '%s\\n' /opt/autohost {SITE_PACKAGES} >.venv/lib/{PYTHON}/site-packages/offline.pth"
     " && printf '#!/opt/autohost/.venv/bin/python\\nimport sys\\nfrom plugin.cli import main\\n"
     "sys.exit(main())\\n' >.venv/bin/autohost && chmod 755 .venv/bin/autohost"),
    ("caddy", "systemctl reload caddy\n", ""),  # the test starts Caddy (see below)
    ("caddy", "curl -sS", f"curl --cacert {CADDY_ROOT_CA} -sS"),
    ("coturn-certificate",
     "systemctl daemon-reload && systemctl enable --now coturn-certificate.timer",
     "systemd-analyze verify /etc/systemd/system/coturn-certificate.service"
     " /etc/systemd/system/coturn-certificate.timer"),
    ("coturn-start", "systemctl enable coturn && systemctl restart coturn\n", ""),
    ("service", "systemctl daemon-reload && systemctl enable --now autohost",
     "systemd-analyze verify /etc/systemd/system/autohost.service"),
    ("service",
     'journalctl -u autohost -f          # "autohost: listening on http://127.0.0.1:8000 ..."\n',
     ""),
    ("service", "curl -s", f"curl --cacert {CADDY_ROOT_CA} -sS"),
    ("table", "--seats 10", "--seats 10 --ca-file /etc/autohost/ca.pem --json"),
    ("backups", "systemctl daemon-reload && systemctl enable --now autohost-backup.timer",
     "systemd-analyze verify /etc/systemd/system/autohost-backup.service"
     " /etc/systemd/system/autohost-backup.timer"),
    ("restore", "systemctl stop autohost\n", ""),  # the test stops and starts it
    ("restore", "systemctl start autohost\n", ""),
    ("upgrade", "runuser -u autohost -- .venv/bin/pip install -q -e .\n", ""),
    ("upgrade", "systemctl restart autohost\n", ""),  # the test restarts it
]  # fmt: skip


def block(name: str) -> str:
    """The guide's block marked `guide-test: name`, with this test's CHANGES made."""
    found = re.search(
        rf"<!-- guide-test: {re.escape(name)} -->\n```[a-z]*\n(.*?)^```",
        GUIDE.read_text(),
        flags=re.DOTALL | re.MULTILINE,
    )
    assert found, f"docs/deploy.md has no block marked guide-test: {name}"
    text = found.group(1)
    for where, old, new in CHANGES:
        if where == name:
            assert old in text, f"the guide's {name} block no longer says {old!r}"
            text = text.replace(old, new)
    return text


@pytest.fixture
def net() -> Iterator[Internet]:
    missing = netns_missing()
    for tool in (
        "caddy",
        "nginx",
        "turnserver",
        "nsenter",
        "unshare",
        "setpriv",
        "systemd-analyze",
    ):
        if shutil.which(tool) is None and not missing:
            missing = f"{tool} is not installed"
    if missing:
        pytest.skip(f"no guide test: {missing}")
    with internet([False, True], tag=f"gd{time.monotonic_ns() % 100000}") as made:
        yield made


@pytest.fixture
def vps(net: Internet, tmp_path: Path) -> Iterator[Vps]:
    made = Vps(tmp_path / "vps", net.public)
    try:
        yield made
    finally:
        made.close()


def wait_https(vps: Vps, ca: str, path: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        done = vps.run(
            f"curl --cacert {ca} -s -o /dev/null -w '%{{http_code}}' https://{NAME}{path}",
            check=False,
        )
        if done.stdout.strip() not in ("", "000"):
            return
        assert time.monotonic() < deadline, f"https://{NAME}{path} never answered: {done.stderr}"
        time.sleep(0.2)


def start_caddy(vps: Vps) -> str:
    """Step 4 with Caddy: Let's Encrypt is out of reach offline, so Caddy's own CA (its root
    is what a client trusts then)."""
    lines = block("caddy").splitlines()
    curl = [line for line in lines if line.startswith("curl")]
    vps.run("\n".join(line for line in lines if line not in curl))
    caddyfile = "/etc/caddy/Caddyfile"
    vps.run(  # Caddy's own CA for the site, and no change to this machine's trust store
        f"sed -i 's|^{NAME} {{|{NAME} {{\\n\\ttls internal|' {caddyfile}\n"
        f"printf '{{\\n\\tskip_install_trust\\n}}\\n' | cat - {caddyfile} >{caddyfile}.new\n"
        f"mv {caddyfile}.new {caddyfile}"
    )
    vps.spawn(  # as Debian's caddy.service runs it
        ["caddy", "run", "--environ", "--config", caddyfile],
        name="caddy",
        user="caddy",
        env={"HOME": "/var/lib/caddy"},
        caps=["net_bind_service"],
    )
    wait_https(vps, CADDY_ROOT_CA, "/", 60)
    name_line = lines[0]
    assert name_line.startswith("NAME=")
    answer = vps.run("\n".join([name_line, *curl])).stdout.strip()
    assert answer == "502", answer  # Caddy serves the name; autohost is not running yet
    return CADDY_ROOT_CA


def start_nginx(vps: Vps, tmp_path: Path) -> str:
    """Step 4 with nginx: certbot cannot reach Let's Encrypt offline (nor is it installed
    here), so a test certificate where certbot leaves its own, then certbot's deploy hook as
    certbot runs it; the rest of the block as written. The certificate is its own CA."""
    script = block("nginx")
    certbot = re.search(r"^certbot .*?\n(?=\S)", script, flags=re.MULTILINE | re.DOTALL)
    assert certbot, script
    hook = re.search(r'--deploy-hook "([^"]+)"', certbot.group(0))
    assert hook, certbot.group(0)
    cert, key = self_signed(tmp_path / "le", NAME, ips=())
    live = f"/etc/letsencrypt/live/{NAME}"
    vps.run(
        f"install -d {live}\n"
        f"cat >{live}/fullchain.pem <<'PEM'\n{cert.read_text()}PEM\n"
        f"cat >{live}/privkey.pem <<'PEM'\n{key.read_text()}PEM\n"
        f"chmod 0600 {live}/privkey.pem"
    )
    name_line = script.splitlines()[0]
    before, after = script.split(certbot.group(0))
    vps.run(before.replace("systemctl stop nginx\n", ""))  # nothing runs yet
    vps.run(f"{name_line}\nRENEWED_LINEAGE={live} {hook.group(1)}", env={"COTURN_RESTART": "true"})
    assert "nginx -t && systemctl start nginx" in after
    vps.run(f"{name_line}\n" + after.replace("systemctl start nginx", "true"))
    vps.spawn(["nginx", "-g", "daemon off;"], name="nginx")  # as Debian's nginx.service
    ca = f"{live}/fullchain.pem"
    wait_https(vps, ca, "/", 60)
    return ca


def start_proxy(vps: Vps, proxy: str, tmp_path: Path) -> str:
    """Step 4; the CA file a client of the site trusts."""
    return start_caddy(vps) if proxy == "caddy" else start_nginx(vps, tmp_path)


def start_autohost(vps: Vps):  # type: ignore[no-untyped-def]
    """The unit's ExecStart, as its user, in its WorkingDirectory, with its environment."""
    command, user, cwd, environment = vps.unit_command("/etc/systemd/system/autohost.service")
    service = vps.spawn(command, name="autohost", user=user, env=environment, cwd=cwd)
    service.wait_for("listening on", 120)
    return service


@pytest.mark.parametrize("proxy", ["caddy", "nginx"])
async def test_the_guide_on_a_simulated_vps(
    net: Internet, vps: Vps, tmp_path: Path, proxy: str
) -> None:
    packages = block("packages")
    if proxy == "nginx":  # the guide's other choice: nginx and certbot instead of caddy
        packages = packages.replace(" caddy >/dev/null", " nginx >/dev/null")
    vps.run(packages, timeout=600)
    vps.run(f"echo '{net.address} {NAME}' >>/etc/hosts")  # DNS, step 1
    vps.run(block("secrets"))
    env = vps.read("/etc/autohost/env")
    assert re.fullmatch(r"AUTOHOST_TURN_SECRET=[\w-]{40,}\n", env), env
    assert vps.run("stat -c '%a %U %G' /etc/autohost/env").stdout.split() == ["600", "root", "root"]

    # Step 4: the proxy and its certificate.
    ca = start_proxy(vps, proxy, tmp_path)
    # Step 5, coturn: the configuration with the secret read back, the certificate, start.
    vps.run(block("coturn-config"))
    secret = env.strip().split("=", 1)[1]
    assert f"static-auth-secret={secret}\n" in vps.read("/etc/turnserver.conf")
    vps.run(block("coturn-certificate"), env={"COTURN_RESTART": "true"})
    assert vps.run("stat -c '%a %G' /etc/coturn/privkey.pem").stdout.split() == [
        "640",
        "turnserver",
    ]
    vps.run(block("coturn-start"))
    vps.spawn(  # Debian's coturn.service: it logs to syslog, as the guide's file says
        ["turnserver", "-c", "/etc/turnserver.conf", "--pidfile="],
        name="coturn",
        user="turnserver",
    )
    deadline = time.monotonic() + 30
    while True:  # TURN over TLS answers with the site's certificate, which Caddy's CA signed
        handshake = vps.run(
            f"openssl s_client -connect {NAME}:5349 -CAfile {ca} </dev/null",
            check=False,
        )
        if "Verify return code: 0 (ok)" in handshake.stdout:
            break
        assert time.monotonic() < deadline, handshake.stdout[-2000:] + handshake.stderr
        time.sleep(0.3)
    assert '"turns:' in vps.read("/etc/autohost/server.toml")

    # Step 6, the firewall: the guide's ruleset, loaded as nftables.service would.
    vps.run("nft -f /dev/stdin <<'RULES'\n" + block("firewall") + "RULES")

    # Step 7, the service.
    vps.run(block("service").split("curl")[0])
    service = start_autohost(vps)
    assert not [line for line in service.lines if "pulse" in line.lower()], service.lines
    health = vps.run(f"curl --cacert {ca} -sS https://{NAME}/healthz").stdout
    assert '"ok": true' in health or '"ok":true' in health, health

    # Step 8, a table, trusting Caddy's CA as the guide says.
    vps.run(block("private-ca").split("#")[0].replace(CADDY_ROOT_CA, ca))
    made = vps.run(block("table"), timeout=120)
    links = json.loads(made.stdout)
    seat_links = [seat["link"] for seat in links["seats"][:2]]
    assert all(link.startswith(f"https://{NAME}/") for link in seat_links), seat_links

    # Players from two homes (one behind a symmetric NAT): through their NATs, the guide's
    # firewall, the proxy and the server's UDP range, each page hears the table.
    async with async_playwright() as playwright:
        browsers = [
            await launch_chromium(
                playwright,
                args=[f"--host-resolver-rules=MAP {NAME} {net.address}",
                      "--ignore-certificate-errors"],
                executable=net.chromium(home, tmp_path),
                loopback=False,
            )
            for home in net.homes
        ]  # fmt: skip
        try:
            pages = [
                await open_seat(browser, link)
                for browser, link in zip(browsers, seat_links, strict=True)
            ]
            page = pages[1]  # the symmetric home's
            # Step 9, a backup while it runs.
            vps.run(block("backups"))
            backup = vps.run(
                "runuser -u autohost -- "
                + " ".join(vps.unit_command("/etc/systemd/system/autohost-backup.service")[0])
            ).stdout.strip()
            assert backup.startswith("/var/backups/autohost/autohost-"), backup
            # ... and its restore: the table, made before the backup, is there again.
            await mark_connection(page, "before restore")
            service.stop()
            vps.run(block("restore"))
            service = start_autohost(vps)
            await wait_audio_back(page, "before restore", seconds=30)
            # Step 10, an upgrade: stop, start; the page's audio comes back by itself.
            await mark_connection(page, "before")
            # The club's URL is this checkout here, which another user owns: git asks for
            # it to be named safe before the service's user pulls from it.
            vps.run("git config --system --add safe.directory '*'")
            vps.run(block("upgrade"))
            service.stop()
            start_autohost(vps)
            await wait_audio_back(page, "before", seconds=30)
        finally:
            for browser in browsers:
                await browser.close()
