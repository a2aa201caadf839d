"""The club's access list on a real Mosquitto, with real MQTT clients: no table reads another's hand.

Each test waits for a marker message published last on a topic the subscriber may read: the
broker delivers one client's messages in order, so once the marker is in, every earlier
message the subscriber was allowed is in too, and any it was not allowed will never come.
"""
from __future__ import annotations

import asyncio
import json
import math
import secrets
from pathlib import Path

import aiomqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.remote.broker import LocalBroker, MosquittoMissing, make_certificates
from tests.remote.conftest import ARRIVAL_BOUND_S, ROOT, client, collect_until, start_broker

HANDS = {"bob": ["AH", "7S", "KC", "2D", "JK"], "carol": ["QH", "4S", "TC", "9D", "3H"]}


def events_of(table: str, game: str = "alice") -> str:
    return f"{ROOT}/games/{game}/tables/{table}/events"


PUBLIC_EVENTS = f"{ROOT}/games/alice/public/events"
PUBLIC_STATE = f"{ROOT}/games/alice/public/state"
ALICE_PRESENCE = f"{ROOT}/tables/alice/presence"
ALICE_HA_CONFIG = "homeassistant/sensor/alice/seats/config"
ALICE_HA_STATE = f"{ROOT}/tables/alice/ha"


def message(run: str, kind: str, **fields: object) -> bytes:
    """A payload carrying the test's run token, so that a test tells its messages from retained ones."""
    return json.dumps({"v": 1, "type": kind, "run": run, **fields}).encode()


def text(m: aiomqtt.Message) -> str:
    return m.payload.decode() if isinstance(m.payload, bytes) else str(m.payload)


def marker(run: str):
    return lambda m: str(m.topic) == PUBLIC_EVENTS and json.loads(text(m)).get("type") == f"marker-{run}"


async def host_plays(alice: aiomqtt.Client, run: str) -> None:
    """What the host of game alice sends: each joined table its hand, the public side without hands, then a marker."""
    for table, hand in HANDS.items():
        event = {"kind": "deal", "seat": 1 if table == "bob" else 2, "cards": hand}
        await alice.publish(events_of(table), message(run, "event", game="alice", epoch=1, seq=1, event=event), qos=1)
    await alice.publish(PUBLIC_EVENTS, message(run, "event", game="alice", epoch=1, seq=1,
                                               event={"kind": "deal", "seats": [1, 2]}), qos=1)
    await alice.publish(PUBLIC_STATE, message(run, "state", game="alice", epoch=1, seq=1), qos=1, retain=True)
    await alice.publish(ALICE_PRESENCE, message(run, "presence", table="alice", state="online"), qos=1, retain=True)
    await alice.publish(ALICE_HA_CONFIG, message(run, "ha-config"), qos=1, retain=True)
    await alice.publish(ALICE_HA_STATE, message(run, "ha"), qos=1, retain=True)
    await alice.publish(PUBLIC_EVENTS, message(run, f"marker-{run}"), qos=1)


def watch_everything(broker: LocalBroker, user: str | None) -> tuple[str, list[aiomqtt.Message]]:
    """`user` subscribed to `#` while alice hosts: every message the broker lets it read."""
    run = secrets.token_hex(4)

    async def main() -> list[aiomqtt.Message]:
        async with client(broker, user) as watcher, client(broker, "alice") as alice:
            await watcher.subscribe("#", qos=1)
            await host_plays(alice, run)
            return await collect_until(watcher, marker(run))

    return run, asyncio.run(main())


def topics_of(run: str, got: list[aiomqtt.Message]) -> set[str]:
    return {str(m.topic) for m in got if json.loads(text(m)).get("run") == run}


def table_topics(got: list[aiomqtt.Message]) -> set[str]:
    return {str(m.topic) for m in got if "/tables/" in str(m.topic) and not str(m.topic).startswith(f"{ROOT}/tables/")}


def hand_cards_seen(got: list[aiomqtt.Message], table: str) -> bool:
    return any(json.dumps(HANDS[table]) in text(m) for m in got)


def test_a_table_reads_the_public_side_and_its_own_topic_never_another_tables_hand(broker: LocalBroker) -> None:
    run, got = watch_everything(broker, "carol")
    # Not the discovery topics: those are for the club's screen and Home Assistant.
    assert topics_of(run, got) == {events_of("carol"), PUBLIC_EVENTS, PUBLIC_STATE, ALICE_PRESENCE}
    assert table_topics(got) == {events_of("carol")}
    assert not hand_cards_seen(got, "bob")
    own = [m for m in got if str(m.topic) == events_of("carol")]
    assert json.loads(text(own[-1]))["event"]["cards"] == HANDS["carol"]


def test_the_club_reads_the_public_side_presence_and_discovery_and_no_table_topic(broker: LocalBroker) -> None:
    run, got = watch_everything(broker, "club")
    assert topics_of(run, got) == {PUBLIC_EVENTS, PUBLIC_STATE, ALICE_PRESENCE, ALICE_HA_CONFIG, ALICE_HA_STATE}
    assert table_topics(got) == set()
    assert not hand_cards_seen(got, "bob") and not hand_cards_seen(got, "carol")


def test_an_anonymous_client_let_in_reads_only_the_public_side(open_broker: LocalBroker) -> None:
    # This broker lets anonymous clients in: the access list alone keeps the hands from them.
    run, got = watch_everything(open_broker, None)
    assert topics_of(run, got) == {PUBLIC_EVENTS, PUBLIC_STATE, ALICE_PRESENCE}
    assert table_topics(got) == set()
    assert not hand_cards_seen(got, "bob") and not hand_cards_seen(got, "carol")


def test_a_table_cannot_write_as_the_host_or_as_another_table(broker: LocalBroker) -> None:
    run = secrets.token_hex(4)
    forged = message(run, "forged")
    forbidden = [PUBLIC_STATE, PUBLIC_EVENTS, events_of("carol"), f"{ROOT}/games/alice/tables/carol/replies",
                 f"{ROOT}/games/alice/tables/carol/requests", f"{ROOT}/tables/carol/presence",
                 "homeassistant/sensor/carol/seats/config"]
    bob_requests = f"{ROOT}/games/alice/tables/bob/requests"

    async def main() -> tuple[list[aiomqtt.Message], list[aiomqtt.Message]]:
        async with client(broker, "alice") as alice, client(broker, "carol") as carol, client(broker, "bob") as bob:
            await alice.subscribe(f"{ROOT}/games/alice/#", qos=1)
            await alice.subscribe(f"{ROOT}/tables/+/presence", qos=1)
            await carol.subscribe("#", qos=1)
            for topic in forbidden:
                await bob.publish(topic, forged, qos=1)
            # The last of bob's messages, on the one topic of these he may write: once the host
            # has it, the broker has dealt with all the ones before.
            await bob.publish(bob_requests, message(run, "join", table="bob"), qos=1)
            at_host = await collect_until(alice, lambda m: str(m.topic) == bob_requests and run in text(m))
            await alice.publish(PUBLIC_EVENTS, message(run, f"marker-{run}"), qos=1)
            at_carol = await collect_until(carol, marker(run))
            return at_host, at_carol

    at_host, at_carol = asyncio.run(main())
    assert [str(m.topic) for m in at_host if run in text(m)] == [bob_requests]
    assert not any(text(m) == forged.decode() for m in at_host + at_carol)


def test_a_table_using_another_tables_client_id_does_not_push_it_off(broker: LocalBroker) -> None:
    run = secrets.token_hex(4)

    async def main() -> tuple[list[aiomqtt.Message], list[aiomqtt.Message]]:
        async with client(broker, "carol", identifier="carol") as carol:
            await carol.subscribe("#", qos=1)
            # Under its own client id carol's session would go to bob with the events queued
            # for her; the broker gives bob his username as client id instead.
            async with client(broker, "bob", identifier="carol", clean_start=False) as bob, \
                    client(broker, "alice") as alice:
                await bob.subscribe("#", qos=1)
                await host_plays(alice, run)
                at_bob = await collect_until(bob, marker(run))
            at_carol = await collect_until(carol, marker(run))
            return at_bob, at_carol

    at_bob, at_carol = asyncio.run(main())
    assert events_of("carol") in topics_of(run, at_carol)
    assert table_topics(at_bob) == {events_of("bob")}


@pytest.mark.parametrize("user, password", [("bob", "not-bobs-password"), ("dave", "any")])
def test_a_wrong_password_or_unknown_user_is_refused(broker: LocalBroker, user: str, password: str) -> None:
    async def main() -> None:
        async with client(broker, user, password=password):
            pass

    with pytest.raises(aiomqtt.MqttCodeError) as refused:
        asyncio.run(main())
    # MQTT 5 reason codes: 134 "Bad user name or password", 135 "Not authorized".
    assert getattr(refused.value.rc, "value", refused.value.rc) in (134, 135), str(refused.value)


def test_an_anonymous_client_is_refused_by_the_clubs_broker(broker: LocalBroker) -> None:
    async def main() -> None:
        async with client(broker, None):
            pass

    with pytest.raises(aiomqtt.MqttCodeError):
        asyncio.run(main())


def test_a_broker_certificate_from_another_authority_is_refused(broker: LocalBroker, tmp_path: Path) -> None:
    stranger = make_certificates(tmp_path / "stranger", authority="some other CA")

    async def main() -> None:
        async with client(broker, "carol", ca=stranger.ca):
            pass

    with pytest.raises(aiomqtt.MqttError, match="(?i)certificate verify failed"):
        asyncio.run(main())


def test_a_payload_over_64_kib_is_refused_and_one_of_64_kib_goes_through(broker: LocalBroker) -> None:
    run = secrets.token_hex(4)

    def padded(size: int) -> bytes:
        head = message(run, "event", size=size, pad="")
        return head[:-2] + b"x" * (size - len(head)) + head[-2:]

    async def main() -> list[aiomqtt.Message]:
        async with client(broker, "carol") as carol:
            await carol.subscribe(PUBLIC_EVENTS, qos=1)
            async with client(broker, "alice") as alice:
                await alice.publish(PUBLIC_EVENTS, padded(65536), qos=1)
            # Mosquitto ends the connection of a client that sends a larger payload (MQTT 5
            # "protocol error"), without acknowledging it: waited for as the client's end.
            with pytest.raises(aiomqtt.MqttError, match="Disconnected"):
                async with client(broker, "alice") as alice:
                    oversized = asyncio.create_task(alice.publish(PUBLIC_EVENTS, padded(65537), qos=1, timeout=math.inf))
                    try:
                        async with asyncio.timeout(ARRIVAL_BOUND_S):
                            async for _ in alice.messages:
                                pass
                    finally:
                        oversized.cancel()
            async with client(broker, "alice") as alice:
                await alice.publish(PUBLIC_EVENTS, message(run, f"marker-{run}"), qos=1)
            return await collect_until(carol, marker(run))

    got = asyncio.run(main())
    sizes = [json.loads(text(m))["size"] for m in got if json.loads(text(m)).get("run") == run and "size" in text(m)]
    assert sizes == [65536]


def session_kept() -> Properties:
    # A table's session outlives a dropped connection (ten minutes here), so the broker
    # queues its QoS 1 events while it is away.
    properties = Properties(PacketTypes.CONNECT)
    properties.SessionExpiryInterval = 600
    return properties


def test_a_restart_keeps_the_events_queued_for_a_table_that_is_away(tmp_path: Path) -> None:
    own = start_broker(tmp_path / "broker")
    run = secrets.token_hex(4)
    try:
        async def away() -> None:
            async with client(own, "carol", identifier="carol", clean_start=False, properties=session_kept()) as carol:
                await carol.subscribe(events_of("carol"), qos=1)
            async with client(own, "alice") as alice:
                await alice.publish(events_of("carol"), message(run, "event", seq=7), qos=1)

        async def back() -> list[aiomqtt.Message]:
            async with client(own, "carol", identifier="carol", clean_start=False, properties=session_kept()) as carol:
                return await collect_until(carol, lambda m: run in text(m))

        asyncio.run(away())
        port = own.port
        own.restart()
        assert own.port == port
        got = asyncio.run(back())
        assert [json.loads(text(m))["seq"] for m in got] == [7]
    finally:
        own.stop()


def test_a_killed_broker_comes_back_on_its_port(tmp_path: Path) -> None:
    own = start_broker(tmp_path / "broker")
    try:
        port = own.port
        own.kill()
        assert not own.running

        async def connect() -> None:
            async with client(own, "carol"):
                pass

        with pytest.raises(aiomqtt.MqttError):
            asyncio.run(connect())
        own.start()
        assert own.port == port
        asyncio.run(connect())
    finally:
        own.stop()


def test_without_mosquitto_the_local_broker_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(MosquittoMissing) as missing:
        LocalBroker(tmp_path, search_path=str(tmp_path))
    said = str(missing.value)
    assert "\n" not in said
    assert said.startswith("mosquitto is not installed") and said.endswith(": apt install mosquitto")
