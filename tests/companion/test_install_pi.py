"""The Pi installer's steps (companion/setup_pi.py) in a temporary root, without root rights.

`--root` mode plans the system commands and applies their effect to the root's files, so
the decisions (what to install, create, enable) and their idempotence are checked here;
scripts/check_pi_install.sh runs the real thing in an arm64 Debian root.
"""
from __future__ import annotations

import io
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from companion.setup_pi import Installer, Layout, PlanSystem, StepFailed, main, telling_line

SRC = Path(__file__).resolve().parents[2]


def fresh_root(tmp: Path, *, raspberry_archive: bool = False) -> Path:
    """A bare Raspberry Pi OS as far as the installer looks: users, groups, apt sources, boot config."""
    root = tmp / "root"
    (root / "etc/apt/sources.list.d").mkdir(parents=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000::/home/pi:/bin/bash\n")
    (root / "etc/group").write_text("root:x:0:\nvideo:x:44:pi\ndialout:x:20:pi\npi:x:1000:\n")
    (root / "etc/apt/sources.list").write_text("deb http://deb.debian.org/debian bookworm main\n")
    if raspberry_archive:
        (root / "etc/apt/sources.list.d/raspi.list").write_text("deb http://archive.raspberrypi.com/debian/ bookworm main\n")
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text("[all]\n#dtparam=i2c_arm=on\n#dtparam=spi=on\n")
    return root


def install(root: Path, *args: str, machine: str = "aarch64") -> tuple[int, str, list[str]]:
    out = io.StringIO()
    layout = Layout(root, SRC)
    system = PlanSystem(layout, out, machine=machine)
    inst = Installer(layout, system, out)
    uninstall = "--uninstall" in args
    rc = inst.run_steps(inst.uninstall_steps("--purge" in args) if uninstall else inst.install_steps())
    return rc, out.getvalue(), system.plan


def tree(root: Path) -> dict[str, str]:
    """Every file and link under root with its content or target."""
    return {str(p.relative_to(root)): (f"-> {p.readlink()}" if p.is_symlink() else p.read_text())
            for p in sorted(root.rglob("*")) if p.is_file() or p.is_symlink()}


def test_install_does_every_step_once_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    root = fresh_root(tmp_path)
    rc, out, plan = install(root)
    assert rc == 0, out
    assert "apt-get install -y -q --no-install-recommends python3-venv espeak-ng" in plan
    assert "python3-picamera2" not in " ".join(plan)  # no Raspberry Pi archive here
    assert ["groupadd --system gpio", "groupadd --system spi"] == [c for c in plan if c.startswith("groupadd")]
    assert any(c.startswith("useradd --system --user-group --home-dir /var/lib/dogtable") for c in plan)
    assert "usermod -aG video,gpio,spi,dialout dogtable" in plan
    venv = root / "opt/dogtable/.venv"
    assert f"/usr/bin/python3 -m venv --system-site-packages {venv}" in plan
    # rpi-ws281x has only its C source on PyPI: the compiler comes first, then the pi extra without markers
    build = plan.index("apt-get install -y -q --no-install-recommends gcc libc6-dev python3-dev")
    pip = next(i for i, c in enumerate(plan) if c.startswith(f"{venv}/bin/pip install -q {SRC} "))
    assert build < pip and plan[pip].endswith("rpi-ws281x>=5.0 lgpio>=0.2")
    assert "systemctl enable dogtable.service" in plan
    assert (root / "etc/systemd/system/dogtable.service").read_text() == (SRC / "systemd/dogtable.service").read_text()
    assert (root / "etc/systemd/system/multi-user.target.wants/dogtable.service").is_symlink()
    config = tomllib.loads((root / "etc/dogtable/config.toml").read_text())
    assert config["web"]["host"] == "0.0.0.0" and config["leds"] == {"backend": "ws281x", "pin": 10}
    assert "\ndtparam=spi=on\n" in (root / "boot/firmware/config.txt").read_text()
    assert (root / "var/lib/dogtable").is_dir()
    assert "dogtable:" in (root / "etc/passwd").read_text()
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith("[")] == [
        f"[{n}/10] {name}" for n, name in enumerate(("apt packages", "device groups", "user", "venv", "build tools",
                                                      "dogtable", "config", "SPI", "unit", "page"), 1)]
    assert lines[-1] == "done: 9 change(s)"

    before = tree(root)
    rc, out, plan = install(root)
    assert rc == 0 and plan == [], out
    assert out.splitlines()[-1] == "done: nothing to change"
    assert tree(root) == before


def test_a_changed_source_is_installed_again_and_the_config_is_never_overwritten(tmp_path: Path) -> None:
    root = fresh_root(tmp_path)
    install(root)
    cfg = root / "etc/dogtable/config.toml"
    cfg.write_text('[leds]\nbackend = "bridge"\n')
    layout = Layout(root, SRC)
    inst = Installer(layout, PlanSystem(layout, io.StringIO()), io.StringIO())
    inst.stamp = inst.read_stamp()
    inst.stamp["source"] = "an older checkout"
    inst.write_stamp()
    rc, out, plan = install(root)
    assert rc == 0
    assert [c for c in plan if "pip install" in c] and not [c for c in plan if "apt-get" in c or "useradd" in c]
    assert cfg.read_text() == '[leds]\nbackend = "bridge"\n'
    assert "SPI: not needed (leds.backend = 'bridge')" in out


def test_picamera2_comes_from_apt_where_the_raspberry_pi_archive_is(tmp_path: Path) -> None:
    rc, out, plan = install(fresh_root(tmp_path, raspberry_archive=True))
    assert rc == 0
    assert "apt-get install -y -q --no-install-recommends python3-venv espeak-ng python3-picamera2" in plan
    assert not [c for c in plan if "pip" in c and " picamera2" in c]


def test_on_a_pc_the_pi_packages_and_the_compiler_are_left_out(tmp_path: Path) -> None:
    rc, out, plan = install(fresh_root(tmp_path), machine="x86_64")
    assert rc == 0
    assert "build tools: not needed: the Pi packages are left out on x86_64" in out
    assert not [c for c in plan if "gcc" in c or "ws281x" in c or "lgpio" in c]


def test_a_failing_step_is_one_line_with_the_fix_and_stops_the_install(tmp_path: Path) -> None:
    class NoUseradd(PlanSystem):
        def check(self, cmd, step, fix):
            if cmd[0] == "useradd":
                raise StepFailed("`useradd` failed (useradd: cannot lock /etc/passwd)", fix)
            return super().check(cmd, step, fix)

    root = fresh_root(tmp_path)
    out = io.StringIO()
    layout = Layout(root, SRC)
    inst = Installer(layout, NoUseradd(layout, out), out)
    assert inst.run_steps(inst.install_steps()) == 1
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("[3/10] user: FAILED: `useradd` failed (useradd: cannot lock /etc/passwd); fix: ")
    assert not (root / "opt/dogtable").exists()


def test_uninstall_removes_what_the_install_made_and_keeps_the_journal(tmp_path: Path) -> None:
    root = fresh_root(tmp_path)
    boot_before = (root / "boot/firmware/config.txt").read_text()
    install(root)
    (root / "var/lib/dogtable/journal.sqlite").write_text("a game")
    rc, out, plan = install(root, "--uninstall")
    assert rc == 0, out
    assert "systemctl disable dogtable.service" in plan and "userdel dogtable" in plan
    assert sorted(c for c in plan if c.startswith("groupdel")) == ["groupdel gpio", "groupdel spi"]  # not video, dialout
    assert not (root / "etc/systemd/system/dogtable.service").exists()
    assert not (root / "etc/systemd/system/multi-user.target.wants/dogtable.service").is_symlink()
    assert not (root / "opt/dogtable").exists()
    assert "dogtable" not in (root / "etc/passwd").read_text() + (root / "etc/group").read_text()
    assert "video:x:44:pi" in (root / "etc/group").read_text()
    assert (root / "boot/firmware/config.txt").read_text() == boot_before  # the line commented out again
    assert (root / "var/lib/dogtable/journal.sqlite").read_text() == "a game"
    assert "kept /etc/dogtable, /var/lib/dogtable" in out
    rc, out, plan = install(root, "--uninstall")
    assert rc == 0 and plan == [] and out.splitlines()[-1] == "done: nothing to change"
    rc, out, plan = install(root, "--uninstall", "--purge")
    assert not (root / "var/lib/dogtable").exists() and not (root / "etc/dogtable").exists()


def test_the_command_line_plans_against_a_root_without_root_rights(tmp_path: Path, capsys) -> None:
    root = fresh_root(tmp_path)
    assert main(["--root", str(root), "--source", str(SRC)]) == 0
    assert "plan: useradd" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--purge"])


def test_the_shell_wrapper_runs_the_steps(tmp_path: Path) -> None:
    root = fresh_root(tmp_path)
    proc = subprocess.run([str(SRC / "scripts/install-pi.sh"), "--root", str(root), "--machine", "x86_64"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "done: 8 change(s)"  # no compiler on a PC


@pytest.mark.parametrize(("kernel", "machine", "wanted"), [
    ("6.1.0-31-arm64", "aarch64", {"lgpio"}),  # plain Debian arm64: nothing to compile
    ("6.6.51+rpt-rpi-v8", "aarch64", {"lgpio", "rpi-ws281x"}),  # Raspberry Pi OS
    ("6.1.0-31-amd64", "x86_64", set()),
])
def test_the_pi_extra_asks_for_a_c_build_only_on_a_pi_kernel(kernel: str, machine: str, wanted: set[str]) -> None:
    extra = tomllib.loads((SRC / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pi"]
    env = {"platform_release": kernel, "platform_machine": machine}
    reqs = [Requirement(r) for r in extra]
    assert {r.name for r in reqs if r.marker is None or r.marker.evaluate(env)} == wanted
    assert "picamera2" not in {r.name for r in reqs}  # from apt: pip's would build python-prctl and lack libcamera


def test_the_one_line_of_a_failed_command_is_its_error_not_the_closing_note() -> None:
    pip = """Processing /usr/src/dogtable
  error: subprocess-exited-with-error
  ERROR: No matching distribution found for setuptools>=68
  [end of output]
  note: This error originates from a subprocess, and is likely not a problem with pip.
error: subprocess-exited-with-error
note: This error originates from a subprocess, and is likely not a problem with pip.
"""
    assert telling_line(pip) == "ERROR: No matching distribution found for setuptools>=68"
    assert telling_line("Reading package lists...\nE: Unable to locate package python3-picamera2\n") == \
        "E: Unable to locate package python3-picamera2"
    assert telling_line("something odd\n") == "something odd"
