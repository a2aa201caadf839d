"""Soak over the pty with 1 % of bytes corrupted in both directions: every LED command is
delivered or superseded by a newer one, in order, nothing duplicated; every input event
reaches the host once, in order, and the encoder loses no step."""
import time

from firmware_bridge import ButtonEvent, EncoderDelta, FieldLight
from firmware_bridge.simulator import Faults, table_of


def state(i):
    # distinct for every i, spread over several fields so some updates need two frames
    fields = {i % 64: FieldLight((i & 0xFF, (i >> 8) & 0xFF, 1), "blink")}
    if i % 7 == 0:
        fields.update({(i + k) % 64: FieldLight((k, 2, 3)) for k in range(1, 56)})
    return fields


def wire(fields):
    return {index: light.wire() for index, light in fields.items()}


def test_soak_with_one_percent_corrupted_bytes(make_sim, make_client, wait_for):
    sim = make_sim(fields=64, faults=Faults(corrupt=0.01, seed=20240611))
    client = make_client(sim.port)
    states = [state(i) for i in range(800)]
    index_of = {tuple(sorted(wire(s).items())): i for i, s in enumerate(states)}
    client.set_leds(states[0])  # wanted before the link is up: the first commit carries it
    client.connect(timeout=5)
    presses = 0
    for i, fields in enumerate(states[1:], start=1):
        client.set_leds(fields)
        if i % 10 == 0:
            sim.spin(3 if i % 20 else -1)
            sim.press(presses % 4, presses % 2 == 0)
            presses += 1
        # Paced like a busy table (a few hundred updates a second), so that most states
        # are really sent and some are superseded while frames are being retransmitted.
        time.sleep(0.002)
    assert client.wait_idle(10)
    assert sim.shown() == wire(states[-1])

    # Each commit on the MCU is one of the requested states, in increasing order: nothing
    # invented, reordered or shown twice, and the last one is the newest request.
    shown = [index_of.get(tuple(sorted(table_of(t).items()))) for _, t in sim.stats.commits]
    assert None not in shown
    assert shown == sorted(shown) and shown[-1] == len(states) - 1
    counters = client.counters
    # A state is shown twice only if its commit landed, its ack was lost and the session
    # was then re-established (the host re-sends its newest state after a handshake).
    assert len(shown) - len(set(shown)) <= counters.resyncs
    # Every state the MCU never showed was superseded before it was sent whole, or its
    # frames were abandoned by a resync and replaced by a newer state.
    never_shown = len(states) - len(set(shown))
    if counters.resyncs == 0:
        assert never_shown == counters.superseded
    else:
        assert never_shown <= counters.superseded + counters.dropped

    # Within a session the MCU delivered reliable frames numbered 0, 1, 2, ... (mod 256):
    # each exactly once, none skipped, in order.
    delivered = sim.stats.delivered
    sessions = {}
    for session, seq, _ in delivered:
        sessions.setdefault(session, []).append(seq)
    for seqs in sessions.values():
        assert seqs == [i % 256 for i in range(len(seqs))]
    assert len(sessions) <= 1 + counters.resyncs

    events = []
    assert wait_for(lambda: (events.extend(_drain(client)) or True)
                    and sum(isinstance(e, ButtonEvent) for e in events) == presses, timeout=5)
    buttons = [(e.index, e.pressed) for e in events if isinstance(e, ButtonEvent)]
    assert buttons == [(n % 4, n % 2 == 0) for n in range(presses)]
    assert wait_for(lambda: (events.extend(_drain(client)) or True)
                    and sum(e.delta for e in events if isinstance(e, EncoderDelta)) == sim._encoder, timeout=5)

    print(f"soak: {len(states)} states requested, {len(set(shown))} shown, {len(delivered)} reliable "
          f"frames delivered to the MCU, {sim.stats.corrupted} bytes corrupted; host {counters}")
    # The faults really happened and were survived by retransmission, not luck.
    assert sim.stats.corrupted > 50
    assert counters.corrupted > 0 and sim.device.decoder.corrupted > 0
    assert counters.retried > 0
    assert counters.reconnects == 0


def _drain(client):
    out = []
    while not client.events.empty():
        out.append(client.events.get_nowait())
    return out
