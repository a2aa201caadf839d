"""The web API over real HTTP: viewing is open, changing the game needs the PIN."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

from phone import HOST_PIN

from companion.service import Service
from companion.web.server import WebServer


class Client:
    """A phone's browser, reduced: the pairing cookie and the page's CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookie: str | None = None
        self.csrf: str | None = None

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self._req(path), timeout=5) as r:
            return json.loads(r.read())

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        if self.csrf is None:
            self.csrf = self.get("/api/csrf")["csrf"]
        req = self._req(path, json.dumps(body).encode())
        req.add_header("X-Dogtable-CSRF", self.csrf)
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                out = json.loads(r.read())
                if r.headers.get("Set-Cookie"):
                    self.cookie = r.headers["Set-Cookie"].split(";")[0]
                    self.csrf = out["csrf"]
                return r.status, out
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def _req(self, path: str, data: bytes | None = None) -> urllib.request.Request:
        req = urllib.request.Request(self.base + path, data=data, method="POST" if data is not None else "GET")
        req.add_header("Content-Type", "application/json")
        if self.cookie:
            req.add_header("Cookie", self.cookie)
        return req


def test_view_open_changes_need_pairing_then_a_turn_plays(web_service: tuple[Service, WebServer]) -> None:
    service, web = web_service
    c = Client(web.url.rstrip("/"))
    st = c.get("/api/state")
    assert st["phase"] == "exchange" and st["paired"] is False and st["pin"] is None
    geo = c.get("/api/geometry")
    assert len([k for k in geo["centres"] if k.startswith("T")]) == 64
    assert c.post("/api/card", {"card": "1/11"})[0] == 403
    assert c.post("/api/pair", {"pin": "000000"})[0] == 403
    status, _ = c.post("/api/pair", {"pin": "424242"})
    assert status == 200 and c.cookie
    assert c.get("/api/state")["paired"] is True
    assert c.post("/api/seat", {"seat": 0})[0] == 200  # Red's phone
    # the exchange first (each seat gives a card; the bot chooses Red's too), then Red plays its joker
    assert c.post("/api/card", {"card": "joker"})[0] == 400
    assert c.post("/api/give", {"seat": 0})[0] == 200
    assert c.post("/api/give", {"seat": 1})[0] == 403  # another seat's card: not Red's phone's to give
    host = Client(c.base)  # the host gives for the seats no phone holds
    assert host.post("/api/pair", {"pin": HOST_PIN})[0] == 200
    for seat in (1, 2, 3):
        assert host.post("/api/give", {"seat": seat})[0] == 200
    assert "joker" in service.state.hands[0] and "1/11" not in service.state.hands[0]
    assert c.post("/api/card", {"card": "1/11"})[0] == 400  # not in Red's hand
    assert c.post("/api/card", {"card": "joker"})[0] == 200
    st = c.get("/api/state")
    assert st["card"] == "joker" and st["leds"] == {"S0K3": "movable", "T0": "target"}
    # a wrong move is flagged with the reason, and the board must be put right
    assert c.post("/api/move", {"from": "S0K0", "to": "T3"})[0] == 200
    st = c.get("/api/state")
    assert st["staged"] and st["flag"] is None  # not a legal play: waits for "done", like a hand over the board
    assert c.post("/api/settle", {})[0] == 200
    st = c.get("/api/state")
    assert st["flag"] and "should stand on T0" in st["flag"]["reason"]["en"] and st["leds"] == {"T3": "error"}
    assert c.post("/api/move", {"from": "T3", "to": "T0"})[0] == 200
    st = c.get("/api/state")
    assert st["flag"] is None and st["verdict"]["legal"] and st["turn"] == 1
    assert st["log"][-1]["text"]["de"] == "Rot: Joker als 1/11 — bringt einen Stein aus dem Startbereich aufs Startfeld"
    assert st["log"][-1]["notation"] == "joker as 1/11: K-T0"
    # undo puts the simulated board back too (Red takes back Red's own play)
    assert c.post("/api/undo", {"seat": 0})[0] == 200
    st = c.get("/api/state")
    assert st["turn"] == 0 and st["board"].get("T0") is None
    # bad input is a 400 with a readable reason
    status, out = c.post("/api/card", {"card": "banana"})
    assert status == 400 and "unknown card" in out["error"]
    assert c.post("/api/nothing", {})[0] == 404
    exported = c.get("/api/export")
    assert exported["events"][0]["kind"] == "board"


def test_bots_play_their_seats_and_events_stream(web_service: tuple[Service, WebServer]) -> None:
    service, web = web_service
    table = web.app.simulated
    table.set_bots([0, 1, 2, 3])
    for _ in range(40):
        assert table.bot_step()
    st = web.app.view(None)
    assert st["seq"] > 40 and st["flag"] is None
    assert sum(1 for e in st["log"] if e["kind"] == "play") >= 10
    with urllib.request.urlopen(web.url + "api/events", timeout=5) as r:
        line = r.readline()
        assert line.startswith(b"data: ")
        assert json.loads(line[6:])["seq"] == st["seq"]


def test_static_page_is_served_with_a_strict_policy(web_service: tuple[Service, WebServer]) -> None:
    _, web = web_service
    with urllib.request.urlopen(web.url, timeout=5) as r:
        page = r.read().decode()
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert "/static/app.js" in page and "http" not in page.replace("http-equiv", "")
    for name in ("app.js", "app.css"):
        with urllib.request.urlopen(web.url + "static/" + name, timeout=5) as r:
            assert r.status == 200
    try:
        urllib.request.urlopen(web.url + "static/../server.py", timeout=5)
        raise AssertionError("path traversal served a file")
    except urllib.error.HTTPError as exc:
        assert exc.code == 404


def test_the_game_record_downloads_as_text_and_reads_back(web_service: tuple[Service, WebServer], tmp_path) -> None:
    from companion.record import read_record

    svc, server = web_service
    base = server.url.rstrip("/")
    req = urllib.request.Request(base + "/api/export?format=txt&download=1")
    with urllib.request.urlopen(req, timeout=5) as r:
        assert r.headers["Content-Type"].startswith("text/plain")
        assert r.headers["Content-Disposition"] == f'attachment; filename="dogtable-game-{svc.game_id}.txt"'
        text = r.read().decode()
    assert '[Edition "classic (' in text
    saved = tmp_path / "game.txt"
    saved.write_text(text)
    assert read_record(saved)["edition"] == "classic"
    try:
        urllib.request.urlopen(base + "/api/export?format=pdf", timeout=5)
        raise AssertionError("an unknown format was served")
    except urllib.error.HTTPError as exc:
        assert exc.code == 400
