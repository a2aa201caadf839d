"""Install (or remove) dogtable as a service on Raspberry Pi OS: the steps behind scripts/install-pi.sh.

Standard library only: it runs with the system's python3 before any venv exists.

Each step looks at the machine first and acts only where something is missing, so a
second run changes nothing. Every step prints one line (`[n/N] name: what it did`); a
failure is one line naming the step and the fix, and the install stops there.

`--root DIR` does every step against DIR as if it were `/`, for the test suite: files are
written under DIR, and the commands (apt-get, useradd, systemctl, pip, ...) are printed as
a plan and replaced by their effect on DIR's files (passwd, group, dpkg status, unit
links, a venv's marker files), so that the steps' decisions, and their idempotence, are
testable without root rights and without touching the real system.

Over 600 lines because the installer must be one file the system's python3 runs from a
clone before anything of dogtable is installed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

USER = "dogtable"
# camera, GPIO (encoder, buttons), SPI (LEDs), serial (the Pico): the unit's SupplementaryGroups=
DEVICE_GROUPS = ("video", "gpio", "spi", "dialout")
BASE_PACKAGES = ("python3-venv", "espeak-ng")
# picamera2 needs libcamera, which only the Raspberry Pi archive packages; pip's picamera2
# builds python-prctl and still lacks libcamera, so it comes from apt and the venv sees it
# through --system-site-packages
PICAMERA_PACKAGE = "python3-picamera2"
BUILD_PACKAGES = ("gcc", "libc6-dev", "python3-dev")  # for a Pi package that has no wheel for this machine
PI_MACHINES = ("aarch64", "armv7l")
SPI_LINE = "dtparam=spi=on"
SPI_PIN = 10  # GPIO10 = SPI0 MOSI: rpi-ws281x drives the strip through /dev/spidev0.0 without root
PORT = 8377
LOG = "/var/log/dogtable-install.log"  # a failed command's whole output

CONFIG_TEXT = """\
# dogtable at this table. Every key not set here keeps its default
# (companion/data/default-config.toml); `dogtable config check` validates the file,
# `dogtable doctor` checks the devices it names.

[table]
edition = "classic"       # classic, compact, royal-basic, royal, black

[leds]
backend = "ws281x"        # "bridge" on a Pi 5 (the Pico drives the LEDs), "none" without LEDs
pin = 10                  # SPI: the service has no root rights, which PWM (GPIO18) would need

[service]
players = 4

[web]
host = "0.0.0.0"          # phones on the LAN reach the page
"""


class StepFailed(Exception):
    """A step could not be done: str() says what went wrong, `fix` what to do."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


@dataclass(frozen=True)
class Layout:
    """Where everything goes, under `root` (/ on a real install)."""

    root: Path
    source: Path  # the dogtable source tree (a clone)

    def at(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    @property
    def app(self) -> Path:
        return self.at("/opt/dogtable")

    @property
    def venv(self) -> Path:
        return self.app / ".venv"  # the path the unit's ExecStart names

    @property
    def stamp(self) -> Path:
        """What this installer put in place (read by --uninstall); inside the venv, so it goes with it."""
        return self.venv / "dogtable-install.json"

    @property
    def etc(self) -> Path:
        return self.at("/etc/dogtable")

    @property
    def config(self) -> Path:
        return self.etc / "config.toml"

    @property
    def state(self) -> Path:
        return self.at("/var/lib/dogtable")

    @property
    def unit(self) -> Path:
        return self.at("/etc/systemd/system/dogtable.service")

    @property
    def unit_link(self) -> Path:
        return self.at("/etc/systemd/system/multi-user.target.wants/dogtable.service")

    def boot_config(self) -> Path | None:
        for p in ("/boot/firmware/config.txt", "/boot/config.txt"):  # bookworm, then older releases
            if self.at(p).is_file():
                return self.at(p)
        return None


# --- the machine: real commands, or their effect on a root prefix ----------------------
class System:
    """Runs commands on this machine and answers what is installed."""

    def __init__(self, layout: Layout, out=sys.stdout) -> None:
        self.layout = layout
        self.out = out

    def run(self, cmd: Sequence[str], *, quiet: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(list(cmd), text=True, capture_output=quiet, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})

    def check(self, cmd: Sequence[str], step: str, fix: str) -> str:
        proc = self.run(cmd)
        if proc.returncode != 0:
            text = (proc.stdout or "") + (proc.stderr or "")
            log = self.layout.at(LOG)
            try:
                with log.open("a") as f:
                    f.write(f"$ {' '.join(cmd)}\n{text}\n")
            except OSError:
                pass
            raise StepFailed(f"`{' '.join(cmd)}` failed ({telling_line(text) or f'exit {proc.returncode}'})",
                             f"{fix} (the whole output is in {LOG})")
        return proc.stdout or ""

    def machine(self) -> str:
        return platform.machine()

    def passwd(self, db: str) -> dict[str, list[str]]:
        """name -> fields of /etc/passwd or /etc/group."""
        try:
            lines = self.layout.at(f"/etc/{db}").read_text().splitlines()
        except FileNotFoundError:
            return {}
        return {f[0]: f for f in (line.split(":") for line in lines) if len(f) > 3}

    def members(self, group: str) -> list[str]:
        g = self.passwd("group").get(group)
        return [m for m in g[3].split(",") if m] if g else []

    def installed(self, package: str) -> bool:
        proc = self.run(["dpkg-query", "-W", "-f=${Status}", package])
        return proc.returncode == 0 and proc.stdout.endswith("installed") and "not-installed" not in proc.stdout

    def apt_lists(self) -> str:
        """The apt sources, to tell whether the Raspberry Pi archive is configured."""
        texts = []
        for p in [self.layout.at("/etc/apt/sources.list"), *sorted(self.layout.at("/etc/apt/sources.list.d").glob("*"))]:
            try:
                texts.append(p.read_text())
            except (OSError, UnicodeDecodeError):
                pass
        return "\n".join(texts)

    sets_owners = True  # chown needs root; a plan in a test's prefix leaves owners as they are

    def systemd_running(self) -> bool:
        return Path("/run/systemd/system").is_dir()  # sd_booted()'s test

    def has_wheel(self, pip: Path, requirement: str) -> bool:
        with tempfile.TemporaryDirectory() as tmp:
            return self.run([str(pip), "download", "-q", "--no-deps", "--only-binary", ":all:", "-d", tmp,
                             requirement]).returncode == 0

    def venv_has(self, python: Path, module: str) -> bool:
        return self.run([str(python), "-c", f"import importlib.util,sys; sys.exit(not importlib.util.find_spec({module!r}))"]).returncode == 0


class PlanSystem(System):
    """`--root DIR`: every command is printed as the plan and its effect applied to DIR's files."""

    def __init__(self, layout: Layout, out=sys.stdout, machine: str = "aarch64") -> None:
        super().__init__(layout, out)
        self.plan: list[str] = []
        self._machine = machine
        self.status = layout.at("/var/lib/dpkg/status")

    sets_owners = False

    def machine(self) -> str:
        return self._machine

    def systemd_running(self) -> bool:
        return False

    def installed(self, package: str) -> bool:
        return self.status.is_file() and f"Package: {package}\n" in self.status.read_text()

    def has_wheel(self, pip: Path, requirement: str) -> bool:
        return not requirement.startswith("rpi-ws281x")  # PyPI has only its source (a C build)

    def venv_has(self, python: Path, module: str) -> bool:
        return (python.parent.parent / "site" / module).exists()

    def run(self, cmd: Sequence[str], *, quiet: bool = True) -> subprocess.CompletedProcess:
        cmd = list(cmd)
        if cmd[0] in ("dpkg-query", "systemd-analyze"):  # questions and checks: nothing changes
            return subprocess.CompletedProcess(cmd, 0, "", "")
        self.plan.append(" ".join(cmd))
        print(f"      plan: {' '.join(cmd)}", file=self.out)
        self._apply(cmd)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    def _append(self, db: str, line: str) -> None:
        path = self.layout.at(f"/etc/{db}")
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(line + "\n")

    def _rewrite(self, db: str, name: str, change) -> None:
        path = self.layout.at(f"/etc/{db}")
        lines = []
        for line in path.read_text().splitlines():
            f = line.split(":")
            if f[0] == name:
                f = change(f)
                if f is None:
                    continue
            lines.append(":".join(f))
        path.write_text("".join(x + "\n" for x in lines))

    def _apply(self, cmd: list[str]) -> None:
        prog, args = cmd[0], cmd[1:]
        if prog == "apt-get" and args[:1] == ["install"]:
            self.status.parent.mkdir(parents=True, exist_ok=True)
            with self.status.open("a") as f:
                for pkg in (a for a in args[1:] if not a.startswith("-")):
                    f.write(f"Package: {pkg}\nStatus: install ok installed\n\n")
        elif prog == "groupadd":
            gids = [int(f[2]) for f in self.passwd("group").values()]
            self._append("group", f"{args[-1]}:x:{max(gids + [900]) + 1}:")
        elif prog == "useradd":
            gid = max([int(f[2]) for f in self.passwd("group").values()] + [900]) + 1
            self._append("group", f"{USER}:x:{gid}:")
            self._append("passwd", f"{USER}:x:{gid}:{gid}::/var/lib/dogtable:/usr/sbin/nologin")
        elif prog == "usermod":
            for g in args[args.index("-aG") + 1].split(","):
                self._rewrite("group", g, lambda f: f[:3] + [",".join([m for m in f[3].split(",") if m] + [USER])])
        elif prog == "userdel":
            self._rewrite("passwd", USER, lambda f: None)
            self._rewrite("group", USER, lambda f: None)
            for g in self.passwd("group"):
                self._rewrite("group", g, lambda f: f[:3] + [",".join(m for m in f[3].split(",") if m and m != USER)])
        elif prog == "groupdel":
            self._rewrite("group", args[-1], lambda f: None)
        elif prog.endswith("python3") and args[:2] == ["-m", "venv"]:
            venv = Path(args[-1])
            (venv / "bin").mkdir(parents=True, exist_ok=True)
            for name in ("python", "pip", "dogtable"):
                (venv / "bin" / name).write_text("")
            (venv / "pyvenv.cfg").write_text("include-system-site-packages = true\n")
        elif prog.endswith("/pip") and args[:1] == ["install"]:
            site = Path(prog).parent.parent / "site"
            site.mkdir(exist_ok=True)
            for a in args[1:]:
                if not a.startswith("-"):
                    (site / ("dogtable" if "/" in a else module_name(a))).touch()
        elif prog == "systemctl":
            link = self.layout.unit_link
            if "enable" in args:
                link.parent.mkdir(parents=True, exist_ok=True)
                if not link.is_symlink():
                    link.symlink_to("/etc/systemd/system/dogtable.service")
            elif "disable" in args and link.is_symlink():
                link.unlink()


# --- the steps --------------------------------------------------------------------------
@dataclass
class Installer:
    layout: Layout
    system: System
    out: object = sys.stdout
    changes: list[str] = field(default_factory=list)
    stamp: dict = field(default_factory=dict)
    apt_updated: bool = False

    def say(self, text: str) -> None:
        print(text, file=self.out)
        if hasattr(self.out, "flush"):
            self.out.flush()

    def changed(self, what: str) -> str:
        self.changes.append(what)
        return what

    # --- install
    def install_steps(self):
        return [("apt packages", self.packages), ("device groups", self.groups), ("user", self.user),
                ("venv", self.venv), ("build tools", self.build_tools), ("dogtable", self.python_packages),
                ("config", self.config), ("SPI", self.spi), ("unit", self.unit), ("page", self.page)]

    def read_stamp(self) -> dict:
        try:
            return json.loads(self.layout.stamp.read_text())
        except (OSError, ValueError):
            return {}

    def write_stamp(self) -> None:
        if self.layout.venv.is_dir():
            text = json.dumps(self.stamp, indent=1, sort_keys=True) + "\n"
            if not self.layout.stamp.is_file() or self.layout.stamp.read_text() != text:
                self.layout.stamp.write_text(text)

    def apt_install(self, packages: Sequence[str], fix: str) -> str:
        missing = [p for p in packages if not self.system.installed(p)]
        if not missing:
            return ""
        if not self.apt_updated:  # once per run: lists from an earlier run may be stale
            self.system.check(["apt-get", "update", "-q"], "apt packages",
                              "check the network and /etc/apt/sources.list, then run the installer again")
            self.apt_updated = True
        self.system.check(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], "apt packages", fix)
        self.stamp["apt_installed"] = sorted(set(self.stamp.get("apt_installed", [])) | set(missing))
        return self.changed(f"installed {' '.join(missing)}")

    def raspberry_pi_archive(self) -> bool:
        return "archive.raspberrypi" in self.system.apt_lists()

    def packages(self) -> str:
        wanted = list(BASE_PACKAGES)
        note = ""
        if self.raspberry_pi_archive():
            wanted.append(PICAMERA_PACKAGE)
        else:
            note = f"; {PICAMERA_PACKAGE} left out: no Raspberry Pi archive in the apt sources (the Pi camera needs it)"
        done = self.apt_install(wanted, f"run `apt-get install {' '.join(wanted)}` to see why")
        return (done or f"already installed ({', '.join(wanted)})") + note

    def groups(self) -> str:
        groups = self.system.passwd("group")
        missing = [g for g in DEVICE_GROUPS if g not in groups]
        for g in missing:  # the unit cannot start with a supplementary group that does not exist
            self.system.check(["groupadd", "--system", g], "device groups", f"create the group by hand: groupadd --system {g}")
        self.stamp.setdefault("groups_created", [])
        self.stamp["groups_created"] = sorted(set(self.stamp["groups_created"]) | set(missing))
        return self.changed(f"created {', '.join(missing)}") if missing else f"present ({', '.join(DEVICE_GROUPS)})"

    def user(self) -> str:
        done = []
        if USER not in self.system.passwd("passwd"):
            self.system.check(["useradd", "--system", "--user-group", "--home-dir", "/var/lib/dogtable", "--no-create-home",
                               "--shell", "/usr/sbin/nologin", USER], "user",
                              f"see why `useradd --system {USER}` fails (a group {USER} without the user?)")
            done.append(f"created {USER}")
        missing = [g for g in DEVICE_GROUPS if USER not in self.system.members(g)]
        if missing:
            self.system.check(["usermod", "-aG", ",".join(missing), USER], "user", f"run: usermod -aG {','.join(missing)} {USER}")
            done.append(f"added to {', '.join(missing)}")
        return self.changed("; ".join(done)) if done else f"{USER} exists, in {', '.join(DEVICE_GROUPS)}"

    def venv(self) -> str:
        venv = self.layout.venv
        cfg = venv / "pyvenv.cfg"
        if not cfg.is_file():
            if not self.layout.app.exists():
                self.stamp["app_created"] = True
            self.layout.app.mkdir(parents=True, exist_ok=True)
            self.system.check(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], "venv",
                              "install python3-venv (apt-get install python3-venv) and run the installer again")
            return self.changed(f"created {self.real(venv)} (sees the system's packages: picamera2 from apt)")
        text = cfg.read_text()
        if re.search(r"include-system-site-packages\s*=\s*true", text):
            return f"{self.real(venv)} present, with system site packages"
        cfg.write_text(re.sub(r"include-system-site-packages\s*=\s*\w+", "include-system-site-packages = true", text))
        return self.changed(f"{self.real(venv)} now sees the system's packages (picamera2 from apt)")

    def pi_requirements(self) -> list[str]:
        """The pyproject's pi extra, its markers dropped: this installer sets up a Pi, whatever the kernel says."""
        try:
            project = tomllib.loads((self.layout.source / "pyproject.toml").read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise StepFailed(f"cannot read {self.layout.source}/pyproject.toml ({exc})",
                             "run the installer from a dogtable clone: sudo ./scripts/install-pi.sh") from None
        reqs = project.get("project", {}).get("optional-dependencies", {}).get("pi", [])
        return [r.split(";")[0].strip() for r in reqs]

    def build_tools(self) -> str:
        if self.system.machine() not in PI_MACHINES:
            return f"not needed: the Pi packages are left out on {self.system.machine()}"
        pip = self.layout.venv / "bin" / "pip"
        python = self.layout.venv / "bin" / "python"
        need = [r for r in self.pi_requirements()
                if not self.system.venv_has(python, module_name(r)) and not self.system.has_wheel(pip, r)]
        if not need:
            return "not needed (every Pi package is installed or has a wheel for this machine)"
        done = self.apt_install(BUILD_PACKAGES, f"run `apt-get install {' '.join(BUILD_PACKAGES)}` to see why")
        why = f"no wheel of {', '.join(need)} for {self.system.machine()}: built from source"
        return f"{done}: {why}" if done else f"present ({why})"

    def source_digest(self) -> str:
        h = hashlib.sha256()
        src = self.layout.source
        files = [src / "pyproject.toml"] + sorted(
            p for room in ("engine", "vision", "hardware", "firmware_bridge", "companion")
            for p in (src / room).rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".so"))
        for p in files:
            h.update(str(p.relative_to(src)).encode() + b"\0" + p.read_bytes() + b"\0")
        return h.hexdigest()

    def python_packages(self) -> str:
        pip = str(self.layout.venv / "bin" / "pip")
        reqs = self.pi_requirements() if self.system.machine() in PI_MACHINES else []
        digest = self.source_digest()
        want = {"source": digest, "requirements": reqs}
        if {k: self.stamp.get(k) for k in want} == want:
            return "installed, up to date with this source"
        fix = ("check that pip reaches pypi.org (network, proxy, certificates); a C compiler missing: "
               "apt-get install " + " ".join(BUILD_PACKAGES))
        self.system.check([pip, "install", "-q", str(self.layout.source), *reqs], "dogtable", fix)
        # the same version number with changed code: pip would keep the old copy
        self.system.check([pip, "install", "-q", "--no-deps", "--force-reinstall", str(self.layout.source)], "dogtable", fix)
        self.stamp.update(want)
        return self.changed(f"installed dogtable{' and ' + ', '.join(reqs) if reqs else ''} into {self.real(self.layout.venv)}")

    def config(self) -> str:
        done = []
        etc, state = self.layout.etc, self.layout.state
        etc.mkdir(parents=True, exist_ok=True)
        if not self.layout.config.exists():
            self.layout.config.write_text(CONFIG_TEXT)
            done.append(f"wrote {self.real(self.layout.config)}")
        if not state.is_dir():
            state.mkdir(parents=True)
            done.append(f"made {self.real(state)}")
        ids = self.system.passwd("passwd").get(USER)
        if ids and self.system.sets_owners:
            uid, gid = int(ids[2]), int(ids[3])
            # the config may hold a fixed PIN: readable by the service, not by everyone
            for path, owner, mode in ((self.layout.config, (0, gid), 0o640), (state, (uid, gid), 0o750)):
                st = path.stat()
                if (st.st_uid, st.st_gid) != owner or st.st_mode & 0o777 != mode:
                    os.chown(path, *owner)
                    path.chmod(mode)
                    done.append(f"set owner and mode of {self.real(path)}")
        return self.changed("; ".join(done)) if done else f"{self.real(self.layout.config)} and {self.real(state)} present (the config is never overwritten)"

    def leds(self) -> dict:
        try:
            return tomllib.loads(self.layout.config.read_text()).get("leds", {})
        except (OSError, tomllib.TOMLDecodeError):
            return {}

    def spi(self) -> str:
        leds = self.leds()
        backend, pin = leds.get("backend", "ws281x"), leds.get("pin", 18)
        if backend != "ws281x":
            return f"not needed (leds.backend = {backend!r})"
        if pin != SPI_PIN:
            return (f"not enabled: leds.pin = {pin} is PWM, which needs root and the unit has none; "
                    f"set [leds] pin = {SPI_PIN} in {self.real(self.layout.config)} and run the installer again")
        boot = self.layout.boot_config()
        if boot is None:
            return "skipped: no /boot/firmware/config.txt (not Raspberry Pi OS)"
        lines = boot.read_text().splitlines()
        if SPI_LINE in (line.strip() for line in lines):
            return f"on ({self.real(boot)})"
        commented = [i for i, line in enumerate(lines) if line.strip().lstrip("#").strip() == SPI_LINE]
        if commented:
            lines[commented[0]] = SPI_LINE
        else:
            lines.append(SPI_LINE)
        boot.write_text("".join(x + "\n" for x in lines))
        self.stamp["spi_enabled"] = str(boot.relative_to(self.layout.root))
        self.stamp["spi_was_commented"] = bool(commented)  # --uninstall puts the file back as it was
        return self.changed(f"{SPI_LINE} in {self.real(boot)}: reboot once for /dev/spidev0.0 to appear")

    def unit(self) -> str:
        src = (self.layout.source / "systemd" / "dogtable.service").read_text()
        unit = self.layout.unit
        done = []
        if not unit.is_file() or unit.read_text() != src:
            unit.parent.mkdir(parents=True, exist_ok=True)
            unit.write_text(src)
            done.append(f"installed {self.real(unit)}")
        if not self.layout.unit_link.is_symlink():
            self.system.check(["systemctl", "enable", "dogtable.service"], "unit", "run: systemctl enable dogtable")
            done.append("enabled")
        if self.system.systemd_running():
            if done or self.changes:
                self.system.check(["systemctl", "daemon-reload"], "unit", "run: systemctl daemon-reload")
                self.system.check(["systemctl", "restart", "dogtable"], "unit",
                                  "see why: journalctl -u dogtable -n 20; dogtable doctor")
                done.append("(re)started")
            elif self.system.run(["systemctl", "is-active", "-q", "dogtable"]).returncode != 0:
                self.system.check(["systemctl", "start", "dogtable"], "unit", "see why: journalctl -u dogtable -n 20")
                done.append("started")
            note = ""
        else:
            self.system.check(["systemd-analyze", "verify", str(unit)], "unit",
                              "the installed unit does not verify: see the message above")
            note = "verified; systemd is not running here: it starts at the next boot"
        if done:
            return self.changed("; ".join(done + ([note] if note else [])))
        return f"{self.real(unit)} installed and enabled" + (f"; {note}" if note else "")

    def page(self) -> str:
        if not self.system.systemd_running():
            return "not shown: the service is not running here (systemd starts it at boot; then: sudo ./scripts/install-pi.sh --page)"
        return show_page(self.layout, self.out)

    # --- uninstall
    def uninstall_steps(self, purge: bool):
        return [("unit", self.remove_unit), ("SPI", self.remove_spi), ("venv", self.remove_venv),
                ("user", self.remove_user), ("device groups", self.remove_groups),
                ("config and journal", lambda: self.remove_data(purge))]

    def remove_unit(self) -> str:
        done = []
        if self.layout.unit_link.is_symlink() or self.layout.unit.exists():
            args = ["systemctl", "disable", "--now", "dogtable.service"] if self.system.systemd_running() else \
                ["systemctl", "disable", "dogtable.service"]
            self.system.check(args, "unit", "run: systemctl disable --now dogtable")
            done.append("stopped and disabled" if self.system.systemd_running() else "disabled")
        if self.layout.unit.exists():
            self.layout.unit.unlink()
            done.append(f"removed {self.real(self.layout.unit)}")
            if self.system.systemd_running():
                self.system.check(["systemctl", "daemon-reload"], "unit", "run: systemctl daemon-reload")
        return self.changed("; ".join(done)) if done else "no unit installed"

    def remove_spi(self) -> str:
        where = self.stamp.get("spi_enabled")
        boot = self.layout.at(where) if where else None
        if boot is None or not boot.is_file():
            return "left as it was (this installer did not turn it on)"
        back = ["#" + SPI_LINE] if self.stamp.get("spi_was_commented") else []
        lines = [kept for line in boot.read_text().splitlines() for kept in (back if line.strip() == SPI_LINE else [line])]
        boot.write_text("".join(x + "\n" for x in lines))
        return self.changed(f"{'commented out' if back else 'removed'} {SPI_LINE} in {self.real(boot)}")

    def remove_venv(self) -> str:
        if not self.layout.venv.exists():
            return "no venv"
        shutil.rmtree(self.layout.venv)
        text = f"removed {self.real(self.layout.venv)}"
        if self.stamp.get("app_created") and self.layout.app.is_dir() and not any(self.layout.app.iterdir()):
            self.layout.app.rmdir()
            text += f" and {self.real(self.layout.app)}"
        return self.changed(text)

    def remove_user(self) -> str:
        if USER not in self.system.passwd("passwd"):
            return "no user"
        self.system.check(["userdel", USER], "user", f"a process of {USER} still runs? stop it, then: userdel {USER}")
        return self.changed(f"removed {USER}")

    def remove_groups(self) -> str:
        gone = [g for g in self.stamp.get("groups_created", []) if g in self.system.passwd("group") and not self.system.members(g)]
        for g in gone:
            self.system.check(["groupdel", g], "device groups", f"run: groupdel {g}")
        return self.changed(f"removed {', '.join(gone)}") if gone else "none created by the installer"

    def remove_data(self, purge: bool) -> str:
        apt = self.stamp.get("apt_installed")
        if apt:  # other programs may use them by now
            self.say(f"      apt packages it installed stay: {' '.join(apt)} (apt-get remove them if nothing else needs them)")
        if purge:
            gone = [p for p in (self.layout.etc, self.layout.state, self.layout.at(LOG)) if p.exists()]
            for p in gone:
                shutil.rmtree(p) if p.is_dir() else p.unlink()
            return self.changed(f"removed {', '.join(map(self.real, gone))}") if gone else "none left"
        kept = [self.real(p) for p in (self.layout.etc, self.layout.state) if p.exists()]
        return f"kept {', '.join(kept)} (the journal and calibration): --uninstall --purge removes them" if kept else "none left"

    def real(self, path: Path) -> str:
        """The path as it is on the machine being set up (without the test's root prefix)."""
        return "/" + str(path.relative_to(self.layout.root)).lstrip("/") if path.is_relative_to(self.layout.root) else str(path)

    # --- driving
    def run_steps(self, steps) -> int:
        self.stamp = self.read_stamp()
        for n, (name, step) in enumerate(steps, 1):
            try:
                text = step()
            except StepFailed as exc:
                self.say(f"[{n}/{len(steps)}] {name}: FAILED: {exc}; fix: {exc.fix}")
                self.write_stamp()
                return 1
            self.say(f"[{n}/{len(steps)}] {name}: {text}")
        self.write_stamp()
        self.say(f"done: {len(self.changes)} change(s)" if self.changes else "done: nothing to change")
        return 0


def telling_line(output: str) -> str:
    """The line of a failed command's output that says what went wrong (pip's and apt's last words
    are often a generic note after it)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    generic = ("error: subprocess-exited-with-error", "note: ", "╰─>", "×", "[end of output]")
    for pattern in (r"^(E:|ERROR:|error:|fatal error)", r"(Could not|cannot|No such file|No matching)"):
        found = [line for line in lines if re.search(pattern, line) and not line.startswith(generic)]
        if found:
            return found[-1][:240]
    return lines[-1][:240] if lines else ""


def module_name(requirement: str) -> str:
    name = re.split(r"[<>=!~\[ ;]", requirement)[0]
    return name.replace("-", "_").lower()


def show_page(layout: Layout, out=sys.stdout, timeout_s: float = 30.0, port: int | None = None) -> str:
    """The page's address, the QR code that pairs a phone, and the PIN: asked of the running service.

    The service shows the PIN and a pairing link only to a browser on this machine, so the
    question goes to 127.0.0.1 as the Pi's own browser would ask it.
    """
    try:
        port = port or int(tomllib.loads(layout.config.read_text()).get("web", {}).get("port", PORT))
    except (OSError, tomllib.TOMLDecodeError, ValueError):
        port = PORT
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/state", headers={"Host": f"localhost:{port}"})
    deadline = time.monotonic() + timeout_s
    state = None
    while state is None:
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                state = json.loads(r.read())
        except (OSError, ValueError) as exc:
            if time.monotonic() > deadline:
                raise StepFailed(f"the service does not answer on port {port} ({exc})",
                                 "see why: journalctl -u dogtable -n 30; dogtable doctor") from None
            time.sleep(0.5)
    link, pin = state.get("pair_url"), state.get("pin")
    if not link or not pin:
        raise StepFailed("the service does not show this machine the PIN",
                         "set [web] trust_localhost = true, or read it: journalctl -u dogtable | grep PIN")
    python = layout.venv / "bin" / "python"
    qr = subprocess.run([str(python), "-c", "import sys; from companion.web.server import qr_text; "
                         "sys.stdout.write(qr_text(sys.argv[1]))", link], text=True, capture_output=True).stdout
    address = link.split("#")[0]
    print(f"open {address} on a phone, or scan (pairs it):", file=out)
    print(qr, end="", file=out)
    print(f"pairing PIN: {pin}", file=out)
    return f"the page is at {address}, PIN {pin}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="install-pi.sh", description="Install dogtable as a service on Raspberry Pi OS.")
    ap.add_argument("--uninstall", action="store_true", help="remove the unit, the venv, the user and the groups it made")
    ap.add_argument("--purge", action="store_true", help="with --uninstall: also remove /etc/dogtable and the journal")
    ap.add_argument("--page", action="store_true", help="only print the running service's address, QR code and PIN")
    ap.add_argument("--port", type=int, help="with --page: the service's port (default: [web] port of /etc/dogtable/config.toml)")
    ap.add_argument("--root", type=Path, help="do the steps against this directory as if it were / (a plan: for tests)")
    ap.add_argument("--machine", default="aarch64", help="with --root: the machine to plan for (default aarch64)")
    ap.add_argument("--source", type=Path, default=Path(__file__).resolve().parent.parent, help="the dogtable source tree")
    args = ap.parse_args(argv)
    if args.purge and not args.uninstall:
        ap.error("--purge goes with --uninstall")
    layout = Layout(args.root.resolve() if args.root else Path("/"), args.source.resolve())
    if args.root is None and os.geteuid() != 0:
        print("install-pi.sh: run it as root: sudo ./scripts/install-pi.sh", file=sys.stderr)
        return 2
    system = PlanSystem(layout, sys.stdout, machine=args.machine) if args.root else System(layout, sys.stdout)
    inst = Installer(layout, system, sys.stdout)
    if args.page:
        try:
            show_page(layout, sys.stdout, port=args.port)
        except StepFailed as exc:
            print(f"page: FAILED: {exc}; fix: {exc.fix}")
            return 1
        return 0
    return inst.run_steps(inst.uninstall_steps(args.purge) if args.uninstall else inst.install_steps())


if __name__ == "__main__":
    sys.exit(main())
