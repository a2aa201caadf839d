"""Two `dogtable sim` processes play a game through a real Mosquitto while things go wrong:
the joined table is killed (-9) and started again, the broker restarts, the host is killed
and started again. At the end both journals hold the same events and the game is over."""
from __future__ import annotations

import json
import urllib.request

from companion import table as T
from companion.journal import Journal
from tests.remote.linked_rig import FAST, Table, count, credentials_file, events, finished, wait_for

# a short game the host sets as a correction (as a family agrees on one): each team a piece or two to bring home
START = {"variant": "classic", "board": 4, "last_card": None,
         "pieces": [["H2", "H3", "T10", "T40"], ["H2", "H3", "T30", "K"], ["H2", "H3", "T50", "T20"],
                    ["K", "K", "T5", "T60"]]}


def test_kills_and_a_broker_restart_lose_nothing(broker, tmp_path):
    (tmp_path / "fast.toml").write_text(FAST)
    url = broker.url
    assert url.startswith("mqtts://")  # TLS, passwords and the access list, as a club runs it
    alice = Table(tmp_path, "alice", ["--broker", url, "--credentials", str(credentials_file(broker, "alice", tmp_path)),
                                      "--host-game", "--seats", "0,2",
                                      "--bots", "0,2", "--new", "--seed", "11"])
    alice.start()
    code = alice.wait_line(r"--join (alice-[A-Z0-9]+)").group(1)
    page = alice.wait_line(r"open (http://localhost:[0-9]+/)").group(1)
    base = correct(page, START)  # the table's own screen is the host
    bob = Table(tmp_path, "bob", ["--broker", url, "--credentials", str(credentials_file(broker, "bob", tmp_path)),
                                  "--join", code, "--seats", "1,3",
                                  "--bots", "1,3", "--seed", "12"])
    try:
        bob.start()
        bob.wait_line(r"joined table alice's game")
        wait_for(lambda: count(alice.journal) > base + 20, 120, "the game to be under way")
        bob.kill()  # a power cut at bob's table
        bob.start()
        bob.wait_line(r"joined table alice's game")
        wait_for(lambda: count(alice.journal) > base + 40, 120, "the game to go on after bob came back")
        broker.restart()
        wait_for(lambda: count(alice.journal) > base + 60, 120, "the game to go on after the broker restarted")
        alice.kill()  # a power cut at the host
        alice.args = [a for a in alice.args if a != "--new"]
        alice.start()
        alice.wait_line(r"hosting game alice: other tables join with --join " + code)
        wait_for(lambda: finished(alice.journal), 240, "the game to end")
        wait_for(lambda: count(bob.journal) == count(alice.journal), 60, "bob to hold every event")
    finally:
        bob.stop()
        alice.stop()
    host, joined = events(alice.journal), events(bob.journal)
    assert [T.public_event_json(e) for e in joined] == [T.public_event_json(e) for e in host]
    assert [T.event_to_json(e) for e in joined] == [T.event_to_json(T.event_for(e, frozenset({1, 3}))) for e in host]

    assert len(host) > base + 60
    for path in (alice.journal, bob.journal):  # the host's restart resumed the game: still the one game
        j = Journal(path, readonly=True)
        assert [g.status for g in j.games()] == ["finished"]
        j.close()


def correct(page: str, position: dict) -> int:
    """The host's correction from its own screen (a browser on the Pi needs no PIN); the events before it."""
    def call(path: str, body: dict | None = None, csrf: str | None = None) -> dict:
        req = urllib.request.Request(page.rstrip("/") + path, data=json.dumps(body).encode() if body else None,
                                     method="POST" if body else "GET")
        req.add_header("Content-Type", "application/json")
        if csrf:
            req.add_header("X-Dogtable-CSRF", csrf)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    call("/api/position", {"position": position}, call("/api/csrf")["csrf"])
    return call("/api/state")["seq"]
