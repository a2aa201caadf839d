"""A table's connection drops (a cable the test pulls out between it and a real Mosquitto): its
last will says "paused" only after the will delay, the host calls it "lost" after its time, the
club screen shows both, and the table is back "online" when the cable is in again."""
from __future__ import annotations

import re
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace

from companion import table as T
from companion.remote import host as host_module
from companion.remote import link as link_module
from companion.remote.club import Broker, ClubView
from tests.remote.linked_rig import host_table, joined_table, wait_for

DOCS = Path(__file__).resolve().parents[2] / "docs" / "remote.md"


class Cable:
    """A TCP cable between a table and the broker: `pull()` drops every connection through it
    and refuses new ones (no MQTT DISCONNECT reaches the broker, as in a Wi-Fi drop); `plug()`."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        probe = socket.create_server(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.lock = threading.Lock()
        self.server: socket.socket | None = None
        self.sockets: list[socket.socket] = []
        self.plug()

    def plug(self) -> None:
        server = socket.create_server(("127.0.0.1", self.port))
        server.settimeout(0.1)
        self.server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def pull(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.close()
        with self.lock:
            ends, self.sockets = self.sockets, []
        for s in ends:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def _accept(self, server: socket.socket) -> None:
        while self.server is server:
            try:
                near, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            far = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [near, far]
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def test_the_documented_times_are_the_codes() -> None:
    words = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert re.search(rf"\*\*paused\*\* for the others after {link_module.WILL_DELAY_S} seconds", words)
    assert f"After {host_module.LOST_AFTER_S:.0f} seconds paused the host calls it **lost**" in words


def test_a_dropped_table_is_paused_after_the_will_delay_then_lost_then_back(broker, tmp_path, monkeypatch):
    monkeypatch.setattr(link_module, "WILL_DELAY_S", 2)  # the documented 10 s, shorter for the test
    creds = broker.credentials("club")
    view = ClubView(Broker(broker.host, broker.port, True, creds.username, creds.password, str(creds.ca)))
    heard: list[tuple[float, str]] = []  # bob's own presence, as the club screen gets it

    def note() -> None:
        p = view.snapshot().presence.get("bob")
        if p is not None and (not heard or heard[-1][1] != p.state):
            heard.append((time.monotonic(), p.state))

    view.listen(note)
    view.start()
    assert view.wait_connected(20)
    cable = Cable(broker.host, broker.port)
    through = SimpleNamespace(host=broker.host, port=cable.port, tls=broker.tls, credentials=broker.credentials)
    alice = host_table(broker, tmp_path, "alice", T.Setup("classic", 4, "highlight"), bots=(), keep=(0, 2))
    alice.link.lost_after_s = 1.0
    bob = None
    try:
        bob = joined_table(through, tmp_path, "bob", alice.link.code, (1, 3))
        wait_for(lambda: heard and heard[-1][1] == "online", 20, "bob online on the club screen")

        # a blip shorter than the will delay: nobody hears of it
        cable.pull()
        time.sleep(0.3)
        cable.plug()
        wait_for(lambda: bob.link.link.connected.is_set(), 20, "bob to reconnect")
        time.sleep(link_module.WILL_DELAY_S + 1.0)
        assert "paused" not in [s for _, s in heard]
        assert alice.link.members["bob"].presence == "online"

        # a drop: paused after the will delay, then lost by the host's clock, both on the club screen
        cable.pull()
        pulled = time.monotonic()
        wait_for(lambda: heard[-1][1] == "paused", 20, "bob's will")
        assert heard[-1][0] - pulled >= link_module.WILL_DELAY_S - 0.2
        wait_for(lambda: alice.link.members["bob"].presence == "lost", 20, "the host to call bob lost")
        snap = wait_club(view, lambda s: s.games["alice"].tables["bob"][1] == "lost")
        assert snap.games["alice"].tables["bob"][1] == "lost"
        assert alice.service.devices_status["remote"]["tables"]["bob"] == "lost"

        # back: online again, for the host and the club screen
        cable.plug()
        wait_for(lambda: alice.link.members["bob"].presence == "online", 30, "bob back at the host")
        wait_for(lambda: heard[-1][1] == "online", 20, "bob back on the club screen")
        wait_club(view, lambda s: s.games["alice"].tables["bob"][1] == "online")
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()
        cable.pull()
        view.stop()


def wait_club(view: ClubView, ok, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while True:
        snap = view.snapshot()
        try:
            if ok(snap):
                return snap
        except KeyError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the club screen")
        time.sleep(0.05)
