"""The club screen's view against a real Mosquitto: three games' states, presence changes,
stale and duplicate states, a thousand malformed, oversized and hostile payloads.

The states are the real `state_to_json(state, viewer=None)` of scripted games (new_state /
apply), as a host publishes them. Every wait is for a condition of the view (a sentinel
message published last, on a topic of its own, arrives after everything before it: one
publisher, QoS 1, one subscriber, so the broker keeps the order), never a sleep.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion import table as T
from companion.cli import main as cli_main
from companion.remote.club import (
    COMPLAINTS,
    MAX_PAYLOAD,
    Broker,
    ClubSnapshot,
    ClubView,
    club_json,
    club_routes,
    parse_state,
)
from companion.remote.discovery import discovery_messages, discovery_removal, ha_state_message
from companion.simulated.scripted import scripted_game
from engine.messages import colour_name

MOSQUITTO = "/usr/sbin/mosquitto"
WAIT_S = 60.0  # a generous bound for a condition on a loaded 2-core machine; reached in well under a second


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def plain_mosquitto(where: Path, port: int | None = None) -> Iterator[int]:
    """A plain, anonymous Mosquitto on 127.0.0.1 for one test; yields its port once it answers."""
    if not os.path.exists(MOSQUITTO):
        pytest.skip(f"{MOSQUITTO} is missing (apt-get install -y mosquitto)")
    port = port or _free_port()
    conf = where / f"mosquitto-{port}.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    errors = open(where / f"mosquitto-{port}.log", "wb")
    proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=errors)
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            if proc.poll() is not None:
                errors.flush()
                pytest.fail(f"mosquitto exited: {(where / f'mosquitto-{port}.log').read_text()[-500:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"mosquitto did not answer on port {port}")
                time.sleep(0.02)  # polling the port: a condition, waited for in small steps
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        errors.close()


@pytest.fixture
def broker_port(tmp_path: Path) -> Iterator[int]:
    with plain_mosquitto(tmp_path) as port:
        yield port


class Publisher:
    """A plain paho client publishing QoS 1 and waiting for each acknowledgement."""

    def __init__(self, port: int) -> None:
        import paho.mqtt.client as mqtt  # the library aiomqtt wraps: a plain synchronous publisher for the test
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"pub-{port}",
                                  protocol=mqtt.MQTTv5)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def publish(self, topic: str, payload: bytes | str, retain: bool = False) -> None:
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(WAIT_S)
        assert info.is_published(), topic

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def publisher(broker_port: int) -> Iterator[Publisher]:
    pub = Publisher(broker_port)
    yield pub
    pub.close()


@pytest.fixture
def view(broker_port: int) -> Iterator[ClubView]:
    v = ClubView(Broker("127.0.0.1", broker_port))
    v.start()
    assert v.wait_connected(WAIT_S), v.snapshot().error
    yield v
    v.stop()


def until(view: ClubView, ok: Callable[[ClubSnapshot], bool], what: str) -> ClubSnapshot:
    deadline = time.monotonic() + WAIT_S
    snap = view.snapshot()
    while not ok(snap):
        left = deadline - time.monotonic()
        assert left > 0, f"never saw {what}: {club_json(snap)}"
        snap = view.wait(snap.version, left)
    return snap


def state_topic(game: str) -> str:
    return f"dogtable/v1/games/{game}/public/state"


def presence_topic(table: str) -> str:
    return f"dogtable/v1/tables/{table}/presence"


def states_of(variant: str, players: int, seed: int, count: int) -> list[T.TableState]:
    """`count` states of a scripted game, a few steps apart, each with a verdict (a real table's play)."""
    out: list[T.TableState] = []
    for _, st in scripted_game(variant, players, seed=seed):
        if st.verdict is not None and st.phase == "play" and (not out or st.seq >= out[-1].seq + 3):
            out.append(st)
            if len(out) == count:
                return out
    raise AssertionError(f"the scripted {variant} game had fewer than {count} verdicts")


def state_message(game: str, epoch: int, st: T.TableState, tables: dict[str, dict]) -> bytes:
    return json.dumps({"v": 1, "type": "state", "game": game, "epoch": epoch, "seq": st.seq,
                       "state": T.state_to_json(st, viewer=None), "tables": tables, "sent": time.time()}).encode()


def presence_message(table: str, state: str, game: str | None = None) -> bytes:
    return json.dumps({"v": 1, "type": "presence", "table": table, "state": state, "game": game,
                       "sent": time.time()}).encode()


GAMES = {  # game (= host table) -> variant, players, its tables' seats
    "alice": ("classic", 4, {"alice": [0, 2], "bob": [1, 3]}),
    "carol": ("royal", 6, {"carol": [0, 1, 2, 3, 4, 5]}),
    "dave": ("black", 4, {"dave": [0, 1], "erin": [2, 3]}),
}


def _tables(game: str, presence: str = "online") -> dict[str, dict]:
    return {t: {"seats": seats, "presence": presence} for t, seats in GAMES[game][2].items()}


def test_three_games_newest_kept_stale_and_duplicates_ignored(view: ClubView, publisher: Publisher) -> None:
    runs = {g: states_of(v, n, seed, 4) for seed, (g, (v, n, _)) in enumerate(GAMES.items(), start=1)}
    for g, sts in runs.items():
        for st in sts[:3]:
            publisher.publish(state_topic(g), state_message(g, 1, st, _tables(g)), retain=True)
    snap = until(view, lambda s: all(g in s.games and s.games[g].seq == runs[g][2].seq for g in GAMES), "three games")
    for g, sts in runs.items():
        kept, st = snap.games[g], sts[2]
        assert kept.summary["turn_colour"] == st.position.board.colours[st.turn]
        assert kept.summary["verdict"]["reason"] == st.verdict.reason
        assert kept.summary["board"] == st.position.field_occupancy()
        assert kept.state == T.state_to_json(st, viewer=None)
    before = view.stale
    # older, and the same (epoch, seq) sent no later with other contents: neither replaces what is kept
    publisher.publish(state_topic("alice"), state_message("alice", 1, runs["alice"][0], _tables("alice")))
    dup = json.loads(state_message("alice", 1, runs["alice"][3], _tables("alice")))
    dup["seq"], dup["sent"] = runs["alice"][2].seq, snap.games["alice"].sent
    publisher.publish(state_topic("alice"), json.dumps(dup).encode())
    publisher.publish(state_topic("carol"), state_message("carol", 0, runs["carol"][3], _tables("carol")))  # older epoch
    publisher.publish(presence_topic("zz-sentinel"), presence_message("zz-sentinel", "online"))
    snap = until(view, lambda s: "zz-sentinel" in s.presence, "the sentinel")
    assert view.stale == before + 3
    assert snap.games["alice"].seq == runs["alice"][2].seq
    assert snap.games["alice"].state == T.state_to_json(runs["alice"][2], viewer=None)
    assert snap.games["carol"].epoch == 1 and snap.games["carol"].seq == runs["carol"][2].seq
    # a newer seq replaces; a new epoch replaces even with a lower seq (a new game at the host)
    publisher.publish(state_topic("alice"), state_message("alice", 1, runs["alice"][3], _tables("alice")))
    publisher.publish(state_topic("dave"), state_message("dave", 2, runs["dave"][0], _tables("dave")))
    snap = until(view, lambda s: s.games["alice"].seq == runs["alice"][3].seq and s.games["dave"].epoch == 2,
                 "the newer states")
    assert snap.games["dave"].seq == runs["dave"][0].seq


def test_presence_changes_and_the_hosts_word(view: ClubView, publisher: Publisher) -> None:
    st = states_of("classic", 4, 7, 1)[0]
    publisher.publish(presence_topic("alice"), presence_message("alice", "online", "alice"), retain=True)
    publisher.publish(presence_topic("bob"), presence_message("bob", "online", "alice"), retain=True)
    publisher.publish(state_topic("alice"), state_message("alice", 1, st, _tables("alice")), retain=True)
    until(view, lambda s: "alice" in s.games and "bob" in s.presence, "the game and its tables")

    def word(snap: ClubSnapshot, table: str) -> str:
        return {t["table"]: t["presence"] for g in club_json(snap)["games"] for t in g["tables"]}[table]

    publisher.publish(presence_topic("bob"), presence_message("bob", "paused", "alice"), retain=True)
    snap = until(view, lambda s: s.presence["bob"].state == "paused", "bob paused")
    assert word(snap, "bob") == "paused" and word(snap, "alice") == "online"
    # the host says bob stayed paused too long: lost stands over bob's own (retained) paused.
    # No event came meanwhile: the host publishes the same state (the same seq) again, sent later
    tables = _tables("alice")
    tables["bob"]["presence"] = "lost"
    publisher.publish(state_topic("alice"), state_message("alice", 1, st, tables), retain=True)
    snap = until(view, lambda s: s.games["alice"].tables["bob"][1] == "lost", "the host's lost")
    assert word(snap, "bob") == "lost"
    publisher.publish(presence_topic("bob"), presence_message("bob", "online", "alice"), retain=True)
    snap = until(view, lambda s: s.presence["bob"].state == "online", "bob back")
    assert word(snap, "bob") == "online"
    publisher.publish(presence_topic("frank"), presence_message("frank", "offline"), retain=True)
    snap = until(view, lambda s: "frank" in s.presence, "an idle table")
    assert club_json(snap)["tables"] == [{"table": "frank", "presence": "offline", "game": None}]
    # an empty retained payload clears the topic: the table and the game are gone from the view
    publisher.publish(presence_topic("frank"), b"", retain=True)
    publisher.publish(state_topic("alice"), b"", retain=True)
    snap = until(view, lambda s: "frank" not in s.presence and "alice" not in s.games, "cleared topics")
    assert club_json(snap)["games"] == []


def _hostile(rng: random.Random, good: dict, n: int) -> tuple[str, bytes]:
    """One malformed, oversized or hostile message for game alice (or its topics), number `n`.

    Each would be newer than what is kept (seq 10**6 + n), so a wrongly accepted one shows."""
    msg = json.loads(json.dumps(good))
    msg["seq"] = 10**6 + n
    st = msg["state"]
    topic = state_topic("alice")
    kind = n % 25
    if kind == 0:
        return topic, b"[" * 60_000 + b"]" * 60_000 if n % 2 else b"{\"a\":" * 13_000  # nesting past any stack
    if kind == 1:
        return topic, os.urandom(rng.randint(1, 3000))  # bytes, mostly not UTF-8
    if kind == 2:
        return topic, json.dumps(msg).encode() + b" " * (MAX_PAYLOAD + 1)  # oversized, else good
    if kind == 3:
        return topic, json.dumps(rng.choice([[], None, 1, "state", True, 1e308])).encode()
    if kind == 4:
        del msg[rng.choice(["v", "type", "game", "epoch", "seq", "state", "tables", "sent"])]
    elif kind == 5:
        msg[rng.choice(["epoch", "seq"])] = rng.choice([-1, True, 1.5, "7", None, 2**80, []])
    elif kind == 6:
        msg["game"] = rng.choice(["bob", "Alice", "", None, 3, "alice/x"])
    elif kind == 7:
        msg["v"] = rng.choice([2, True, "1", None, 1.0000001])
    elif kind == 8:
        msg["type"] = rng.choice(["presence", "event", "STATE", None])
    elif kind == 9:
        st["position"] = rng.choice([None, [], {"variant": "nope", "pieces": []}, {"variant": "classic", "pieces": [[99]]},
                                     {"variant": "classic", "board": 4, "pieces": [["K"] * 4] * 3}, "x" * 500])
    elif kind == 10:
        st["turn"] = rng.choice([-1, 9, True, "0", None, 1.0])
    elif kind == 11:
        st["phase"] = rng.choice(["won", None, 3, ""])
    elif kind == 12:
        st["seats"] = rng.choice([None, [], [{"seat": 9}], st["seats"][:-1], [1, 2, 3, 4], "seats",
                                  [dict(row, seat=True) if row["seat"] == 1 else row for row in st["seats"]]])
    elif kind == 13:
        st["verdict"] = rng.choice([1, [], {"legal": "yes", "reason": {}}, {"legal": True, "seat": 0, "reason": {"en": 5}},
                                    {"legal": True, "seat": 0, "reason": {"en": "x" * 5000}},
                                    {"legal": True, "seat": 9, "reason": {"en": "ok"}}])
    elif kind == 14:
        msg["tables"] = rng.choice([None, [], {"Bad Name": {"seats": [0], "presence": "online"}},
                                    {"bob": {"seats": [7], "presence": "online"}},
                                    {"bob": {"seats": [0], "presence": "asleep"}},
                                    {f"t{i}": {"seats": [0], "presence": "online"} for i in range(40)}])
    elif kind == 15:
        msg["sent"] = rng.choice([None, "now", -5, True])
        if n % 2:  # and NaN / Infinity, which Python's json reads and writes: never a time
            return topic, json.dumps(msg).replace('"sent": null', '"sent": NaN').encode()
    elif kind == 16:
        st["winner"] = rng.choice([7, [9], ["red"], {"0": 1}])
    elif kind == 17:
        return rng.choice([f"dogtable/v1/games/{x}/public/state" for x in ("UPPER", "a" * 40, "-x", "é", "a b")]), \
            json.dumps(msg).encode()
    elif kind == 18:
        return presence_topic("bob"), json.dumps({"v": 1, "type": "presence", "table": rng.choice(["alice", None, "BOB"]),
                                                  "state": "online", "game": None, "sent": 1}).encode()
    elif kind == 19:
        return presence_topic("bob"), json.dumps({"v": 1, "type": "presence", "table": "bob",
                                                  "state": rng.choice(["lost", "away", None, 1]),
                                                  "game": rng.choice([None, "Alice!", 5]), "sent": 1}).encode()
    elif kind == 20:
        st["card"] = rng.choice([5, ["7"], "x" * 300])
    elif kind == 21:
        st["seats"][0]["cards"] = rng.choice([-1, "6", None, 10**9])
    elif kind == 22:
        st["variant"] = rng.choice(["black", None, 1])
    elif kind == 23:
        st["title"] = "t" * rng.randint(81, 5000)
    else:  # a good message but for another game, on alice's topic
        msg["game"] = "carol"
    return topic, json.dumps(msg).encode("utf-8", "surrogatepass")


def test_a_thousand_hostile_payloads_are_ignored_and_the_newest_good_one_kept(
        view: ClubView, publisher: Publisher, caplog: pytest.LogCaptureFixture) -> None:
    st = states_of("classic", 4, 3, 1)[0]
    good_bytes = state_message("alice", 1, st, _tables("alice"))
    publisher.publish(state_topic("alice"), good_bytes, retain=True)
    publisher.publish(presence_topic("bob"), presence_message("bob", "online", "alice"), retain=True)
    kept = until(view, lambda s: "alice" in s.games and "bob" in s.presence, "the good state").games["alice"]
    rng = random.Random(5)
    good = json.loads(good_bytes)
    small = 0
    caplog.set_level(logging.WARNING, logger="companion.remote.club")
    for n in range(1000):
        topic, payload = _hostile(rng, good, n)
        small += len(payload) <= MAX_PAYLOAD
        publisher.publish(topic, payload)
    publisher.publish(presence_topic("zz-sentinel"), presence_message("zz-sentinel", "online"))
    snap = until(view, lambda s: "zz-sentinel" in s.presence, "the sentinel after the flood")
    assert snap.connected and view._thread is not None and view._thread.is_alive()
    assert snap.games["alice"] == kept and set(snap.games) == {"alice"}
    assert snap.presence["bob"].state == "online" and snap.presence["bob"].game == "alice"
    assert view.ignored == 1000 and small < 1000  # every one reached the view, the oversized ones too
    lines = [r for r in caplog.records if r.name == "companion.remote.club"]
    assert 1 <= len(lines) <= COMPLAINTS[0] + 1, [r.getMessage() for r in lines]  # a flood is a count, not a full disk
    assert all("malformed" in r.getMessage() for r in lines)


def test_the_size_cap_and_every_check_hold_without_a_broker() -> None:
    v = ClubView(Broker("127.0.0.1", 1))
    st = states_of("classic", 4, 4, 1)[0]
    good = state_message("alice", 1, st, _tables("alice"))
    assert not v.ingest(state_topic("alice"), good + b" " * (MAX_PAYLOAD - len(good) + 1))
    assert v.ignored == 1 and not v.snapshot().games
    assert v.ingest(state_topic("alice"), good + b" " * (MAX_PAYLOAD - len(good)))  # exactly the cap: fine
    assert v.snapshot().games["alice"].seq == st.seq
    assert parse_state(state_topic("alice"), good).summary == v.snapshot().games["alice"].summary


def test_unreachable_broker_is_said_and_retried_until_it_answers(tmp_path: Path) -> None:
    port = _free_port()
    v = ClubView(Broker("127.0.0.1", port))
    v.start()
    try:
        assert not v.wait_connected(WAIT_S)
        snap = v.snapshot()
        assert snap.error is not None and snap.error.startswith(f"cannot reach the broker at 127.0.0.1:{port}: "), snap.error
        assert club_json(snap)["error"] == snap.error and club_json(snap)["connected"] is False
        with plain_mosquitto(tmp_path, port):
            snap = until(v, lambda s: s.connected, "the broker once it runs")
            assert snap.error is None
        until(v, lambda s: not s.connected and s.error is not None, "the broker gone again")
    finally:
        v.stop()


def test_club_cli_bad_url_or_unreachable_broker_is_one_line_and_exit_2(capsys: pytest.CaptureFixture) -> None:
    for url, says in (("http://example.org", "broker URL 'http://example.org': unknown scheme 'http'"),
                      ("mqtt://user:pw@host", "they belong in the [remote] credentials file"),
                      (f"mqtt://127.0.0.1:{_free_port()}", "cannot reach the broker at 127.0.0.1:")):
        assert cli_main(["club", "--broker", url, "--port", "0"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err, err


def test_credentials_file_is_read_and_checked(tmp_path: Path) -> None:
    good = tmp_path / "remote.toml"
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    good.write_text(f'username = "club"\npassword = "s3cret"\nca = "{ca}"\n')
    good.chmod(0o600)
    b = Broker.from_url("mqtts://broker.example:8884", good)
    assert (b.host, b.port, b.tls, b.username, b.password, b.ca) == ("broker.example", 8884, True, "club", "s3cret",
                                                                      str(ca))
    assert "s3cret" not in repr(b)
    assert Broker.from_url("mqtts://b").port == 8883 and Broker.from_url("mqtt://b").port == 1883
    bad = tmp_path / "bad.toml"
    bad.write_text('username = "club"\n')
    with pytest.raises(Exception, match="password"):
        Broker.from_url("mqtt://b", bad)


def test_the_page_mounted_under_club_long_polls_the_view(view: ClubView, publisher: Publisher) -> None:
    """The table's web server mounts the page with add_subapp("/club/", ...): every URL works there."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer  # the page's own HTTP, in-process

    st = states_of("classic", 4, 9, 1)[0]

    async def run() -> None:
        root = web.Application()
        root.add_subapp("/club/", club_routes(view))
        async with TestClient(TestServer(root)) as client:
            page = await client.get("/club/")
            assert page.status == 200 and "club.js" in await page.text()
            assert (await client.get("/club/club.js")).status == 200
            assert (await client.get("/club/texts/de.json")).status == 200
            assert (await client.get("/club/texts/..%2Fapp.json")).status == 404
            first = await (await client.get("/club/api/club?since=-1")).json()
            waiting = asyncio.ensure_future(client.get(f"/club/api/club?since={first['version']}"))
            await asyncio.sleep(0)  # let the poll start waiting (it answers with news either way)
            await asyncio.get_running_loop().run_in_executor(
                None, publisher.publish, state_topic("alice"), state_message("alice", 1, st, _tables("alice")))
            news = await (await waiting).json()
            assert [g["game"] for g in news["games"]] == ["alice"] and news["version"] > first["version"]
            assert "4" in news["geometry"] and news["games"][0]["turn_colour"] == st.position.board.colours[st.turn]

    asyncio.run(run())


def test_home_assistant_discovery_is_one_device_with_four_sensors() -> None:
    msgs = discovery_messages("alice")
    assert len(msgs) == 4 and all(retain for _, _, retain in msgs)
    configs = {topic: json.loads(payload) for topic, payload, _ in msgs}
    assert set(configs) == {f"homeassistant/sensor/alice/{o}/config" for o in ("turn", "verdict", "presence", "game")}
    ids = {c["unique_id"] for c in configs.values()}
    assert len(ids) == 4
    for c in configs.values():
        assert c["device"]["identifiers"] == ["dogtable_alice"] and c["state_topic"] == "dogtable/v1/tables/alice/ha"
        assert c["value_template"].startswith("{{ value_json.")
    st = states_of("classic", 4, 2, 1)[0]
    topic, payload, retain = ha_state_message("alice", T.state_to_json(st, viewer=None), presence="online", game="alice")
    values = json.loads(payload)
    assert topic == "dogtable/v1/tables/alice/ha" and retain
    assert values["turn"] == colour_name(st.position.board.colours[st.turn], "en")
    assert values["verdict"] == st.verdict.reason["en"] and values["presence"] == "online" and values["game"] == "alice"
    assert [(t, p) for t, p, _ in discovery_removal("alice")] == [(t, b"") for t in configs]
    with pytest.raises(ValueError):
        discovery_messages("Not A Table")
