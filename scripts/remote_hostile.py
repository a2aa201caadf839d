#!/usr/bin/env python3
"""Hostile broker messages at a linked table: nothing crashes it, nothing changes its game.

A joined table and its host are set up in one process on a real Mosquitto, a game dealt.
Then N messages are handed to each table's message handler exactly as the link hands them
over (topic, payload bytes): broken JSON, other versions and types, wrong field types,
oversized, deeply nested, lone surrogates, events of another game or epoch, repeats of past
events with other contents, requests for other tables' seats, table-wide requests, requests
from tables that never joined, forged presence. Prints how many were handled, how many
raised (a crash), and whether either game changed (its sequence number and journal).

Then `--via-broker K` more of the host's kind go the whole way: published through Mosquitto by
an MQTT client logged in as carol, a club table outside the game, on the topics they pick (the
broker's access list drops those carol may not write). (Not as the joined table: the broker
takes a login's name as its client id, so a second bob would push the real one off.) The last
message is a request with its own id, which the host answers: once the answer is in, the host
has dealt with everything the broker let through. Payloads over 64 KiB are not sent (the
broker refuses them: tests/remote/test_broker_acl.py).

    python scripts/remote_hostile.py --messages 100000 --via-broker 100000
"""
from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import table as T  # noqa: E402
from companion.remote import protocol as P  # noqa: E402

GAME, HOST, JOINED, STRANGER = "alice", "bob", "bob", "carol"


def mutations(rng: random.Random, good: dict) -> dict:
    """A well-formed message with one field broken."""
    out = json.loads(json.dumps(good))
    key = rng.choice(sorted(out))
    choice = rng.randrange(9)
    if choice == 0:
        del out[key]
    elif choice == 1:
        out[key] = rng.choice([None, True, -1, 2 ** 70, 1.5, "", "x" * 5000, [], {}, [[[]]]])
    elif choice == 2:
        out[key] = {"kind": rng.choice(list(T.EVENT_TYPES) + ["", "__class__", "nope"])}
    elif choice == 3 and isinstance(out.get("event"), dict):
        ev = out["event"]
        field = rng.choice(sorted(ev))
        ev[field] = rng.choice([None, 7, "?", "\ud800", [1, 2], {"a": 1}, True, -5, "T99", ["s9", "T1"]])
    elif choice == 4:
        out["extra"] = "x"
        out["v"] = rng.choice([0, 2, "1", None])
    elif choice == 5:
        out["type"] = rng.choice(list(P.SCHEMAS) + ["", "Event", 1])
    elif choice == 6:
        out["seq"] = rng.choice([-1, 0, 10 ** 9, "3", 1.0])
    elif choice == 7:
        out["epoch"] = rng.choice([0, 99, -1])
    else:
        out["game"] = rng.choice(["Alice", "../x", "", "a" * 40, "carol"])
    return out


def raw_payload(rng: random.Random) -> bytes:
    kind = rng.randrange(8)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
    if kind == 1:
        return b"[" * rng.randrange(1, 100_000) + b"]" * rng.randrange(0, 3)
    if kind == 2:
        return b'{"v":1,"type":"event","x":"' + b"A" * (P.MAX_PAYLOAD + rng.randrange(1, 100)) + b'"}'
    if kind == 3:
        return '{"v":1,"type":"event","game":"alice","epoch":1,"seq":0,"event":{"kind":"card","card":"\\ud800"},"sent":0}'.encode()
    if kind == 4:
        return b""
    if kind == 5:
        return json.dumps(rng.choice([None, 1, "x", [], [1, {}], {"v": 1}])).encode()
    if kind == 6:
        return b'{"v":1,"type":"presence","table":"alice","state":"paused","sent":1e309}'
    return b"\xff\xfe" + "héllo".encode("utf-16")


def hostile_for_joined(rng: random.Random, past: list[tuple[int, T.Event]], epoch: int) -> tuple[str, bytes]:
    topic = rng.choice([P.table_topic(GAME, JOINED, "events"), P.table_topic(GAME, JOINED, "replies"),
                        P.public_topic(GAME, "state"), P.presence_topic(GAME),
                        P.table_topic(GAME, STRANGER, "events"), "dogtable/v1/games/alice/tables", "x/y"])
    r = rng.random()
    if r < 0.3:
        return topic, raw_payload(rng)
    seq, ev = rng.choice(past)
    other = rng.choice([T.CardSeen("13", 0, "web"), T.SitOut(1), T.Undo("web"), T.SetTurn(2),
                        T.SetMode("training"), T.Deal(0, ((), (), (), ())), T.HandShown(1, ("A",))])
    if r < 0.6:  # a past event again, with other contents: dropped by its sequence number
        good = {"v": 1, "type": "event", "game": GAME, "epoch": epoch, "seq": seq,
                "event": T.event_to_json(other), "sent": time.time()}
        return P.table_topic(GAME, JOINED, "events"), json.dumps(good).encode()
    good = {"v": 1, "type": "event", "game": GAME, "epoch": epoch, "seq": seq,
            "event": T.event_to_json(ev), "sent": time.time()}
    if r < 0.7:  # an event of another game or an earlier epoch
        good = {**good, "epoch": epoch + rng.choice([-1, 1, 50]), "event": T.event_to_json(other)}
        return P.table_topic(GAME, JOINED, "events"), json.dumps(good).encode()
    bad = mutations(rng, good)
    if bad.get("seq") == good["seq"] + 0 and bad.get("epoch") == epoch and bad.get("event") == good["event"]:
        bad["seq"] = -1
    return topic, json.dumps(bad).encode("utf-8", "surrogatepass")


def hostile_for_host(rng: random.Random, epoch: int, at: int, turn_seat: int) -> tuple[str, bytes]:
    table = rng.choice([JOINED, STRANGER, "dave"])
    topic = rng.choice([P.table_topic(GAME, table, "requests"), P.presence_topic(table),
                        P.table_topic("carol", table, "requests"), P.table_topic(GAME, table, "events")])
    r = rng.random()
    if r < 0.3:
        return topic, raw_payload(rng)
    # requests a joined table may never make: other seats, the host's actions, stale states, strangers
    ev = rng.choice([T.CardSeen("5", 0, "web"), T.CardSeen("5", 2, "web"), T.Undo("web"), T.SetTurn(1),
                     T.SetMode("training"), T.SetPosition("{}"), T.Deal(0, ((), (), (), ())),
                     T.HandShown(1, ("A",) * 6), T.ExchangeDone(), T.CardGiven(0, "A"), T.SitOut(2),
                     T.BoardSettled(()), T.Discard(), T.AskHint()])
    good = {"v": 1, "type": "request", "table": table, "id": f"{rng.randrange(1 << 30):x}",
            "epoch": epoch, "at": at, "event": T.event_to_json(ev)}
    if table == JOINED and r < 0.5:
        good = {**good, "at": at + rng.choice([-3, -1, 1, 7]), "event": T.event_to_json(T.CardSeen("5", 1, "web"))}
    elif table == JOINED and r < 0.6:
        good = {**good, "epoch": epoch + 1, "event": T.event_to_json(T.CardSeen("5", 1, "web"))}
    elif r < 0.7:
        good = {"v": 1, "type": "join", "table": table, "code": rng.choice(["alice-AAAAAAAA", "x", "alice-"]),
                "seats": rng.choice([[0], [1, 3], [9], []])}
    elif r < 0.8:
        good = mutations(rng, good)
    elif r < 0.9:
        good = {"v": 1, "type": "presence", "table": rng.choice([table, "alice"]),
                "state": rng.choice(["paused", "offline", "lost", "online"]), "sent": 0}
    return topic, json.dumps(good).encode("utf-8", "surrogatepass")


class Crashes(logging.Handler):
    """Counts what a handler logged as a failure (an exception it did not expect)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0
        self.first: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.count += 1
            self.first = self.first or self.format(record)


def via_broker(broker, count: int, rng: random.Random, epoch: int, at: int, turn_seat: int) -> dict:
    """`count` hostile messages for the host published through `broker` as a club table outside the
    game; returns how many were sent and skipped, once the host answered the client's marker."""
    import asyncio
    import secrets

    from tests.remote.conftest import client

    async def send_as(name: str, n: int) -> tuple[int, int]:
        sent = skipped = 0
        token = secrets.token_hex(8)
        async with client(broker, name, identifier=f"{name}-hostile-{token}") as mqtt:
            await mqtt.subscribe(P.table_topic(GAME, name, "replies"), qos=1)
            for _ in range(n):
                topic, payload = hostile_for_host(rng, epoch, at, turn_seat)
                if len(payload) > P.MAX_PAYLOAD:
                    skipped += 1
                    continue
                await mqtt.publish(topic, payload, qos=0)
                sent += 1
            marker = {"v": 1, "type": "request", "table": name, "id": token, "epoch": epoch, "at": at,
                      "event": T.event_to_json(T.SetMode("training"))}
            await mqtt.publish(P.table_topic(GAME, name, "requests"), json.dumps(marker).encode(), qos=1)
            async with asyncio.timeout(600):
                async for m in mqtt.messages:
                    try:
                        reply = json.loads(m.payload)
                    except ValueError:
                        continue
                    if isinstance(reply, dict) and reply.get("id") == token:
                        assert reply.get("ok") is False, reply
                        return sent, skipped
        raise AssertionError(f"the host never answered {name}'s marker")

    sent, skipped = asyncio.run(send_as(STRANGER, count))
    return {"sent": sent, "skipped": skipped}


def run(messages: int, seed: int, folder: Path, broker, quiet: bool = False, through: int = 0) -> dict:
    """Both tables on `broker` (a companion.remote.broker.LocalBroker); returns the figures."""
    from tests.remote.linked_rig import host_table, joined_table, wait_for

    rng = random.Random(seed)
    alice = host_table(broker, folder, GAME, T.Setup("classic", 4, "highlight"), bots=(), keep=(0, 2), seed=seed)
    bob = joined_table(broker, folder, JOINED, alice.link.code, (1, 3))
    crashes = Crashes()
    logging.getLogger().addHandler(crashes)
    try:
        wait_for(lambda: bob.service.state.seq == alice.service.state.seq and bob.service.state.hands is not None,
                 what="the deal to reach bob")
        alice.link.link.flush(10)
        before = (alice.service.state.seq, bob.service.state.seq, T.board_key(bob.service.state.position))
        epoch = alice.service.game_id
        with bob.service.lock:
            past = list(enumerate(bob.service.journal.events(bob.service.game_id)))
        raised = 0
        started = time.perf_counter()
        for i in range(messages):
            if i % 2:
                topic, payload = hostile_for_joined(rng, past, epoch)
                handler = bob.link.handle
            else:
                topic, payload = hostile_for_host(rng, epoch, alice.service.state.seq, alice.service.state.turn)
                handler = alice.link.handle
            try:
                handler(topic, payload)
            except Exception as exc:  # noqa: BLE001 - counted: a handler must never raise
                raised += 1
                crashes.first = crashes.first or f"{topic} {payload[:200]!r}: {type(exc).__name__}: {exc}"
            if not quiet and i and i % 20000 == 0:
                print(f"  {i} messages", flush=True)
        assert alice.link.wait_idle(300), "the host's worker did not finish"
        bob.link.drain()
        took = time.perf_counter() - started
        broker_sent = None
        if through:
            broker_sent = via_broker(broker, through, rng, epoch, alice.service.state.seq, alice.service.state.turn)
            assert alice.link.wait_idle(300), "the host's worker did not finish"
            bob.link.drain()
        after = (alice.service.state.seq, bob.service.state.seq, T.board_key(bob.service.state.position))
        return {"messages": messages, "raised": raised, "logged_failures": crashes.count,
                "first_failure": crashes.first, "changed": before != after, "before": before[:2],
                "after": after[:2], "seconds": round(took, 1), "via_broker": broker_sent}
    finally:
        logging.getLogger().removeHandler(crashes)
        bob.stop()
        alice.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--via-broker", type=int, default=0,
                    help="then this many more, published through Mosquitto as the joined table and a stranger")
    args = ap.parse_args()
    import tempfile

    from tests.remote.linked_rig import club_broker

    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        broker = club_broker(Path(tmp) / "broker")
        try:
            out = run(args.messages, args.seed, Path(tmp), broker, through=args.via_broker)
        finally:
            broker.stop()
    print(f"{out['messages']} hostile messages in {out['seconds']} s: {out['raised']} raised, "
          f"{out['logged_failures']} logged failures, game changed: {out['changed']} "
          f"(events host/joined before {out['before']}, after {out['after']})")
    if out["via_broker"] is not None:
        print(f"then through the broker: {out['via_broker']['sent']} published as table carol (not in the game), "
              f"{out['via_broker']['skipped']} over 64 KiB not sent; the counts above include them")
    if out["first_failure"]:
        print(out["first_failure"][:2000])
    return 0 if not out["raised"] and not out["logged_failures"] and not out["changed"] else 1


if __name__ == "__main__":
    sys.exit(main())
