"""A plain Mosquitto on 127.0.0.1 (no TLS, no passwords) that a test may kill and restart."""
from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from companion.remote.link import Endpoint
from tests.remote.linked_rig import wait_for


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class PlainBroker:
    def __init__(self, exe: str, folder: Path) -> None:
        self.exe, self.folder, self.port = exe, folder, _free_port()
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                             f"persistence_location {folder}/\nautosave_interval 1\n")
        self.proc: subprocess.Popen | None = None
        self.start()

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint("127.0.0.1", self.port)

    def start(self) -> None:
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        wait_for(lambda: _answers(self.port) or self.proc.poll() is not None, 20, "mosquitto to listen")
        if self.proc.poll() is not None:
            pytest.fail(f"mosquitto did not start: {self.proc.stderr.read().decode()[:300]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def restart(self) -> None:
        self.stop()
        self.start()


def mosquitto() -> str:
    exe = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
    if exe is None:
        pytest.skip("mosquitto is not installed (apt install mosquitto)")
    return exe


@pytest.fixture(scope="module")
def plain_broker(tmp_path_factory):
    broker = PlainBroker(mosquitto(), tmp_path_factory.mktemp("broker"))
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="module")
def broker_endpoint(plain_broker):
    return plain_broker.endpoint
