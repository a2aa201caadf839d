"""Seats and roles over real HTTP (SEATS.md): a paired phone plays only the seat it holds,
table-wide actions are the host's, and no refusal tells one player what another holds.

The server trusts 127.0.0.1 (the Pi's own screen, a host); phones come from 127.0.0.2 and on:
Red's phone (the owner of the seat most actions are for), Green's phone (another paired
phone), a guest, and a phone paired with the host PIN that holds no seat."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest
from phone import HOST_PIN, Phone

from companion.service import Service
from companion.web.app import HOST_ONLY, NOT_YOURS, ROLES
from companion.web.server import WebServer

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
ROLE_NAMES = ("owner", "other", "guest", "host")
PAIR_FIRST = "pair this device first: type the PIN shown on the table"


@dataclass
class Table:
    service: Service
    web: WebServer
    port: int
    phones: dict[str, Phone]
    tested: set[str]  # the actions whose row of the table ran

    def events(self) -> int:
        return len(self.service.journal.events(self.service.game_id))


@pytest.fixture
def seated(trusted_web_service: tuple[Service, WebServer, int]) -> Table:
    service, web, port = trusted_web_service
    owner, other, guest, host = Phone(port, "127.0.0.2"), Phone(port, "127.0.0.3"), Phone(port, "127.0.0.4"), \
        Phone(port, "127.0.0.5")
    owner.pair()
    other.pair()
    host.pair(HOST_PIN)
    owner.sit(RED)
    other.sit(GREEN)
    return Table(service, web, port, {"owner": owner, "other": other, "guest": guest, "host": host}, set())


def card_words(service: Service) -> set[str]:
    """Every card id in every hand, and its name in every language: what a refusal must not say."""
    from engine.messages import LANGUAGES, card_name

    cards = {c for hand in (service.state.hands or ()) for c in hand}
    return cards | {card_name(c, lang) for c in cards for lang in LANGUAGES}


def refused(t: Table, role: str, name: str, body: dict, message: str) -> None:
    before, words = t.events(), card_words(t.service)
    status, out = t.phones[role].post(f"/api/{name}", body)
    assert status == 403 and out == {"error": message}, (role, name, body, status, out)
    text = json.dumps(out)
    assert not [w for w in words if re.search(rf"(?<![\w/]){re.escape(w)}(?![\w/])", text, re.I)], (role, name, text)
    assert t.events() == before, (role, name)


def allowed(t: Table, role: str, name: str, body: dict, status: int = 200) -> dict:
    got, out = t.phones[role].post(f"/api/{name}", body)
    assert got == status and out.get("error") not in (NOT_YOURS, HOST_ONLY, PAIR_FIRST), (role, name, body, got, out)
    return out


def check(t: Table, name: str, body: dict, allow: tuple[str, ...], status: int = 200,
          refusal: str | None = None) -> None:
    """One row of the table: every role not in `allow` is refused (nothing changes), then each
    role in `allow` gets `status`."""
    refusal = refusal or (HOST_ONLY if ROLES[name] == "host" else NOT_YOURS)
    for role in ROLE_NAMES:
        if role not in allow:
            refused(t, role, name, body, PAIR_FIRST if role == "guest" else refusal)
    for role in allow:
        allowed(t, role, name, body, status)
    t.tested.add(name)


def test_every_action_for_every_role(seated: Table) -> None:
    t = seated
    svc = t.service
    # the exchange: each seat gives a card (no card named: the seat's bot chooses it)
    check(t, "give", {"seat": RED}, ("owner",))
    refused(t, "owner", "give", {"seat": BLUE, "card": svc.state.hands[BLUE][0]}, NOT_YOURS)
    allowed(t, "host", "give", {"seat": BLUE})  # nobody holds Blue: the host acts for it
    allowed(t, "other", "give", {"seat": GREEN})
    allowed(t, "host", "give", {"seat": YELLOW})
    assert svc.state.phase == "play" and svc.state.turn == RED
    # Red's card: whatever card is named, in the hand or not, others hear the same refusal
    for card in (*svc.state.hands[RED], *svc.state.hands[BLUE], "banana"):
        for role in ("other", "host"):
            refused(t, role, "card", {"seat": RED, "card": card}, NOT_YOURS)
            refused(t, role, "card", {"card": card}, NOT_YOURS)  # no seat: the turn's, Red's
    allowed(t, "owner", "card", {"seat": RED, "card": "1/11"} if "1/11" not in svc.state.hands[RED]
            else {"seat": RED, "card": "banana"}, 400)  # Red's own hand's error goes to Red only
    check(t, "card", {"seat": RED, "card": "joker"}, ("owner",))
    check(t, "hint", {"seat": RED}, ("owner",))
    check(t, "hint", {}, ("owner",))  # the card in play's seat
    check(t, "play", {"seat": RED, "index": 0}, ("owner",))
    assert svc.state.turn == BLUE
    check(t, "undo", {"seat": RED}, ("owner",))  # Red's own latest play
    assert svc.state.turn == RED and svc.state.card is None
    check(t, "card", {"seat": RED, "card": "joker"}, ("owner",))
    check(t, "discard", {"seat": RED}, ("owner",), 400)  # a team game discards no single card: the rule's answer, to Red
    check(t, "undo", {"table": True}, ("host",), refusal=HOST_ONLY)  # the host's one step back
    # the simulated board: the holder of the seat whose turn it is, or the host
    check(t, "settle", {}, ("owner", "host"))
    check(t, "move", {"from": "T40", "to": "T41"}, ("owner", "host"), 400)  # no piece there: the board's answer
    check(t, "disc", {"direction": 1}, ("owner", "host"), 400)  # classic has no disc
    check(t, "sitout", {"seat": RED}, ("owner",), 400)  # the joker can move: no lay-down (the words go to Red)
    for role in ("owner", "other"):  # a player's undo is of their own latest action: none is the table's latest
        allowed(t, role, "undo", {}, 400)
    refused(t, "guest", "undo", {}, PAIR_FIRST)
    allowed(t, "host", "undo", {})  # the host playing no seat: one step back
    assert RED not in svc.state.out
    # the table's own actions: the host only
    check(t, "mode", {"mode": "training"}, ("host",))
    check(t, "lang", {"lang": "de"}, ("host",))
    check(t, "turn", {"seat": BLUE}, ("host",))
    check(t, "position", {"position": svc.state.position.to_json()}, ("host",))
    check(t, "board", {"position": svc.state.position.to_json()}, ("host",))
    check(t, "exchange", {}, ("host",), 400)  # the exchange is over
    check(t, "bots", {"seats": [YELLOW]}, ("host",))
    check(t, "bot", {}, ("host",))
    check(t, "free", {"seat": GREEN}, ("host",))
    check(t, "handover", {"table": "bob"}, ("host",), 400)  # a table playing alone hands no seats over
    assert t.phones["other"].state()["me"]["seat"] is None
    check(t, "newgame", {"variant": "classic", "players": 4}, ("host",))
    # the seat claim: any paired device (guests are not)
    refused(t, "guest", "seat", {"seat": BLUE}, PAIR_FIRST)
    for role in ("other", "host"):
        allowed(t, role, "seat", {"seat": None})
    assert t.tested == set(ROLES) - {"seat"}  # every action has its row


def test_the_host_acts_for_seats_no_device_holds_and_the_pis_screen_is_a_host(seated: Table) -> None:
    t = seated
    local = Phone(t.port, "127.0.0.1", host=f"localhost:{t.port}")
    st = local.state()
    assert st["me"] == {"seat": None, "host": True, "paired": True} and st["host_pin"] == HOST_PIN
    for role in ("owner", "other", "guest", "host"):
        other_view = t.phones[role].state()
        assert other_view["host_pin"] is None and other_view["pin"] is None
    assert t.phones["host"].state()["me"] == {"seat": None, "host": True, "paired": True}
    assert t.phones["owner"].state()["me"] == {"seat": RED, "host": False, "paired": True}
    for seat in (BLUE, YELLOW):  # nobody holds them: the Pi's own screen gives for them
        assert local.post("/api/give", {"seat": seat})[0] == 200
    assert local.post("/api/give", {"seat": RED})[0] == 403  # Red's phone holds Red
    # the laptop-plays-all sim flow: the host's screen takes a free seat and plays it
    assert local.post("/api/seat", {"seat": BLUE})[0] == 200
    assert local.state()["me"]["seat"] == BLUE and local.state()["hand"] == list(t.service.state.hands[BLUE])
    assert local.post("/api/seat", {"seat": RED})[0] == 409  # held by Red's phone


def test_a_seat_is_held_by_one_device_until_the_host_frees_it(seated: Table) -> None:
    t = seated
    owner, other, host = t.phones["owner"], t.phones["other"], t.phones["host"]
    status, out = other.post("/api/seat", {"seat": RED})
    assert status == 409 and out == {"error": "Red's seat is taken: ask the host to free it"}
    assert other.state()["me"]["seat"] == GREEN and owner.state()["me"]["seat"] == RED  # nothing moved
    assert other.state()["hand"] == list(t.service.state.hands[GREEN])  # its own hand, not Red's
    holders = [s["holder"] for s in other.state()["seats"]]
    assert holders == ["phone", None, "you", None]
    assert [s["holder"] for s in owner.state()["seats"]] == ["you", None, "phone", None]
    assert [s["holder"] for s in Phone(t.port, "127.0.0.9").state()["seats"]] == ["phone", None, "phone", None]
    assert b"127.0.0" not in owner.request("GET", "/api/state")[2]  # never whose device, never its address
    # claiming another seat releases the first; null watches
    assert owner.post("/api/seat", {"seat": BLUE})[0] == 200
    assert other.post("/api/seat", {"seat": RED})[0] == 200 and other.post("/api/seat", {"seat": GREEN})[0] == 200
    assert owner.post("/api/seat", {"seat": RED})[0] == 200
    # pairing again (as the host, say) keeps the seat: the old pairing is replaced, not left holding it
    owner.pair(HOST_PIN)
    assert owner.state()["me"] == {"seat": RED, "host": True, "paired": True}
    assert owner.post("/api/seat", {"seat": None})[0] == 200 and owner.post("/api/seat", {"seat": RED})[0] == 200
    owner.pair()  # and back to a player
    assert owner.state()["me"] == {"seat": RED, "host": False, "paired": True}
    # only the host frees a seat; then another device may take it
    assert other.post("/api/free", {"seat": RED})[0] == 403
    assert host.post("/api/free", {"seat": RED})[0] == 200
    assert owner.state()["me"]["seat"] is None and owner.state()["hand"] is None
    assert other.post("/api/seat", {"seat": RED})[0] == 200
    assert other.state()["hand"] == list(t.service.state.hands[RED])
    # a bot's seat is not a person's to take; the host switches it back
    assert host.post("/api/bots", {"seats": [YELLOW]})[0] == 200
    status, out = owner.post("/api/seat", {"seat": YELLOW})
    assert status == 409 and out == {"error": "a bot plays Yellow: the host can switch it to a person"}
    assert [s["holder"] for s in owner.state()["seats"]] == ["phone", None, None, "bot"]
    assert host.post("/api/bots", {"seats": []})[0] == 200
    assert owner.post("/api/seat", {"seat": YELLOW})[0] == 200


def test_another_phone_cannot_learn_a_hand(seated: Table) -> None:
    """Every card of every seat, asked for by a phone that does not hold the seat, with and
    without switching seats first: the same answer each time, and nothing changes."""
    t = seated
    other = t.phones["other"]
    for seat in (BLUE, YELLOW):
        t.phones["host"].post("/api/give", {"seat": seat})
    t.phones["owner"].post("/api/give", {"seat": RED})
    other.post("/api/give", {"seat": GREEN})
    before = t.events()
    hands = t.service.state.hands
    deck = sorted({c for h in hands for c in h} | {"2", "3", "5", "6", "7", "8", "9", "10", "12", "13", "4", "swap"})
    answers = set()
    for seat in (RED, BLUE, YELLOW):
        assert other.post("/api/seat", {"seat": seat})[0] == (409 if seat == RED else 200)
        other.sit(GREEN)  # back: its own seat
        for card in deck:
            for name in ("card", "give"):
                status, out = other.post(f"/api/{name}", {"seat": seat, "card": card})
                answers.add((status, json.dumps(out)))
    assert answers == {(403, json.dumps({"error": NOT_YOURS}))}
    assert t.events() == before
    assert other.state()["hand"] == list(hands[GREEN])
    for s in other.state()["seats"]:
        assert "hand" not in s


def test_a_hint_tells_of_a_hand_so_only_its_holder_sees_it(seated: Table) -> None:
    t = seated
    owner, other, host = t.phones["owner"], t.phones["other"], t.phones["host"]
    owner.post("/api/give", {"seat": RED})
    other.post("/api/give", {"seat": GREEN})
    for seat in (BLUE, YELLOW):
        host.post("/api/give", {"seat": seat})
    assert host.post("/api/mode", {"mode": "training"})[0] == 200
    assert owner.post("/api/card", {"seat": RED, "card": "joker"})[0] == 200
    assert owner.post("/api/hint", {"seat": RED})[0] == 200
    mine = owner.state()
    assert mine["hint"] is not None and any(e["kind"] == "hint" for e in mine["log"])
    for viewer in (other, host, t.phones["guest"]):
        st = viewer.state()
        assert st["hint"] is None and not [e for e in st["log"] if e["kind"] == "hint"]
        assert st["card"] == "joker"  # the card itself is on the table for all to see
