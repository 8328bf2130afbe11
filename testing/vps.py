"""A volunteer's VPS simulated on this machine (root only): a network namespace (the public
one of testing.netns) and a mount namespace where /etc, /opt, /var and /run are overlays of
this machine's, so the deploy guide's commands (adduser, /etc/autohost, /opt/autohost,
Caddy's, nginx's and coturn's files, pid files) act literally without changing anything
outside. Every command and
every service runs inside both (nsenter into a holder process); `close()` stops them all
and the overlays go with the holder. systemd is not PID 1 here: a unit's ExecStart is run
as its User with its Environment (`unit_command`).

    vps = Vps(folder, net.public); vps.run("adduser --system ...")
    caddy = vps.spawn(["caddy", "run", ...], user="caddy")
"""

from __future__ import annotations

import shlex
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

OVERLAID = ("/etc", "/opt", "/var", "/run")  # /run: pid files (nginx) stay in the VPS
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class Service:
    """A long-running command on the VPS; its output lines are kept (`lines`)."""

    def __init__(self, command: list[str], name: str) -> None:
        self.name = name
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert self.process.stdout is not None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, seconds: float) -> str:
        """The first line with `text`; AssertionError (with the output) after `seconds` or
        when the service ends first."""
        deadline = time.monotonic() + seconds
        while True:
            for line in list(self.lines):
                if text in line:
                    return line
            ended = self.process.poll() is not None
            if ended or time.monotonic() > deadline:
                output = "\n".join(dict.fromkeys(self.lines[-200:]))  # each line once
                how = f"ended ({self.process.returncode})" if ended else f"{seconds:g} s passed"
                raise AssertionError(f"{self.name}: {how} without {text!r}:\n{output}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._reader.join(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


class Vps:
    """See the module docstring. `folder` holds the overlays' upper layers."""

    def __init__(self, folder: Path, namespace: str) -> None:
        mounts = []
        for top in OVERLAID:
            upper, work = folder / "upper" / top.strip("/"), folder / "work" / top.strip("/")
            upper.mkdir(parents=True)
            work.mkdir(parents=True)
            mounts.append(
                f"mount -t overlay overlay -o lowerdir={top},upperdir={upper},workdir={work} {top}"
            )
        script = " && ".join([*mounts, "echo ready", "exec sleep infinity"])
        self.services: list[Service] = []
        self.holder = subprocess.Popen(
            ["ip", "netns", "exec", namespace, "unshare", "--mount", "--propagation", "private",
             "sh", "-c", script],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert self.holder.stdout is not None
        ready = self.holder.stdout.readline().strip()
        if ready != "ready":
            self.holder.kill()
            raise RuntimeError(f"the VPS's overlays could not be mounted ({ready!r})")
        self.pid = self.holder.pid  # `sleep` (exec'd): its namespaces are the VPS's

    def enter(self) -> list[str]:
        """The prefix of a command that runs inside the VPS."""
        return ["nsenter", "-t", str(self.pid), "-m", "-n", "--"]

    def run(
        self,
        script: str,
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = 300,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        """A shell script as root on the VPS (sh -e, in / with a login's PATH)."""
        variables = {"PATH": SYSTEM_PATH, "HOME": "/root", "LANG": "C.UTF-8", **(env or {})}
        done = subprocess.run(
            [*self.enter(), "env", "-i", *(f"{k}={v}" for k, v in variables.items()),
             "sh", "-ec", f"cd /\n{script}"],
            capture_output=True,
            text=True,
            timeout=timeout,
        )  # fmt: skip
        if check and done.returncode != 0:
            raise AssertionError(
                f"exit {done.returncode} from:\n{script}\n--- stdout\n{done.stdout}"
                f"\n--- stderr\n{done.stderr}"
            )
        return done

    def read(self, path: str) -> str:
        return self.run(f"cat {shlex.quote(path)}").stdout

    def spawn(
        self,
        command: Sequence[str],
        *,
        name: str,
        user: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str = "/",
        caps: Sequence[str] = (),
    ) -> Service:
        """A service on the VPS, as `user` (root by default) with only `env` (and PATH),
        with the ambient capabilities `caps` (e.g. "net_bind_service")."""
        variables = {"PATH": SYSTEM_PATH, **(env or {})}
        inner = ["env", "-i", *(f"{k}={v}" for k, v in variables.items()), *command]
        shell = f"cd {shlex.quote(cwd)} && exec {shlex.join(inner)}"
        if user is None:
            full = [*self.enter(), "sh", "-c", shell]
        else:
            drop = ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups"]
            if caps:
                wanted = ",".join(f"+{c}" for c in caps)
                drop += [f"--inh-caps={wanted}", f"--ambient-caps={wanted}"]
            full = [*self.enter(), *drop, "--", "sh", "-c", shell]
        service = Service(full, name)
        self.services.append(service)
        return service

    def unit_command(self, unit_path: str) -> tuple[list[str], str, str, dict[str, str]]:
        """A systemd unit's (ExecStart, User, WorkingDirectory, environment): its
        Environment= lines and its EnvironmentFile (read as root, as systemd does)."""
        text = self.read(unit_path)
        environment: dict[str, str] = {}
        service: dict[str, list[str]] = {}
        section = ""
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            if section == "Service" and "=" in line:
                key, value = line.split("=", 1)
                service.setdefault(key, []).append(value)
        for assignment in service.get("Environment", []):
            for word in shlex.split(assignment):
                key, value = word.split("=", 1)
                environment[key] = value
        for path in service.get("EnvironmentFile", []):
            optional = path.startswith("-")
            found = self.run(f"cat {shlex.quote(path.lstrip('-'))}", check=not optional)
            for line in found.stdout.splitlines():
                if "=" in line and not line.lstrip().startswith("#"):
                    key, value = line.split("=", 1)
                    environment[key.strip()] = value.strip()
        (exec_start,) = service["ExecStart"]
        (user,) = service["User"]
        (cwd,) = service.get("WorkingDirectory", ["/"])
        return shlex.split(exec_start), user, cwd, environment

    def close(self) -> None:
        for service in reversed(self.services):
            service.stop()
        self.holder.kill()
        self.holder.wait(timeout=10)
        if self.holder.stdout is not None:
            self.holder.stdout.close()
