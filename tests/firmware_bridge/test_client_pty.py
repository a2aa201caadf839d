"""BridgeClient against the simulated MCU over a real pseudo-terminal."""
import os
import pty
import queue
import tty

import pytest

from firmware_bridge import (
    BridgeClient,
    ButtonEvent,
    CardScan,
    EncoderDelta,
    FieldLight,
    NoAnswer,
    PortNotFound,
)
from firmware_bridge import protocol as P


def test_identify_reports_version_capabilities_and_map_size(make_sim, make_client):
    sim = make_sim(fields=96, buttons=3)
    client = make_client(sim.port)
    ident = client.connect(timeout=3)
    assert ident.protocol == P.PROTOCOL_VERSION
    assert ident.firmware_version == "2.0.0"
    assert ident.capabilities == ("leds", "encoder", "buttons", "rfid")
    assert (ident.led_fields, ident.pixels, ident.buttons) == (96, 96 * 12, 3)
    assert ident.max_payload == P.MAX_PAYLOAD and ident.window == P.WINDOW
    assert client.status().state == "up"


def test_leds_reach_the_mcu_and_are_replaced_whole(make_sim, make_client):
    sim = make_sim(fields=64)
    client = make_client(sim.port)
    client.connect(timeout=3)
    assert client.wait_idle(3)  # after a handshake the host sends its state: all off
    before = len(sim.stats.commits)
    client.set_leds({3: FieldLight((255, 0, 0)), 40: FieldLight((0, 0, 255), "pulse")})
    assert client.wait_idle(3)
    assert sim.shown() == {3: (1, 255, 0, 0), 40: (3, 0, 0, 255)}
    client.set_leds({40: FieldLight((0, 255, 0), "spin")})
    client.set_brightness(100)
    assert client.wait_idle(3)
    assert sim.shown() == {40: (4, 0, 255, 0)}
    assert sim.device.brightness == 100
    # all 64 fields lit needs two frames; the MCU shows them together
    client.set_leds({i: FieldLight((i, 1, 2)) for i in range(64)})
    assert client.wait_idle(3)
    assert sim.shown() == {i: (1, i, 1, 2) for i in range(64)}
    assert len(sim.stats.commits) - before == 3


def test_latest_wins_under_backpressure(make_sim, make_client):
    sim = make_sim(fields=64)
    client = make_client(sim.port)
    client.connect(timeout=3)
    assert client.wait_idle(3)
    before = len(sim.stats.commits)
    for i in range(500):
        client.set_leds({i % 64: FieldLight((i % 256, 0, 1))})
    assert client.wait_idle(3)
    assert sim.shown() == {499 % 64: (1, 499 % 256, 0, 1)}
    counters = client.counters
    assert counters.superseded > 0
    assert len(sim.stats.commits) - before + counters.superseded == 500


def test_encoder_buttons_and_cards_arrive_as_events(make_sim, make_client):
    sim = make_sim()
    client = make_client(sim.port)
    client.connect(timeout=3)
    sim.spin(7)
    sim.press(2)
    sim.press(2, pressed=False)
    sim.scan(b"\x04\xa2\x19\x33\x5c\x80\x01")
    got = []
    while len(got) < 4:
        got.append(client.events.get(timeout=3))
    encoder = [e for e in got if isinstance(e, EncoderDelta)]
    assert [(e.delta, e.count) for e in encoder] == [(7, 7)]
    assert [(e.index, e.pressed) for e in got if isinstance(e, ButtonEvent)] == [(2, True), (2, False)]
    assert [e.uid_hex for e in got if isinstance(e, CardScan)] == ["04:a2:19:33:5c:80:01"]


def test_callback_instead_of_queue(make_sim, make_client):
    sim = make_sim()
    got = queue.Queue()
    client = make_client(sim.port, on_event=got.put)
    client.connect(timeout=3)
    sim.spin(-3)
    event = got.get(timeout=3)
    assert isinstance(event, EncoderDelta) and event.delta == -3
    assert client.events.empty()


def test_ping_measures_a_round_trip(make_sim, make_client):
    sim = make_sim()
    client = make_client(sim.port)
    client.connect(timeout=3)
    rtt = client.ping(timeout=2)
    assert rtt is not None and 0 < rtt < 500
    assert client.status().rtt_ms == rtt


def test_field_index_is_checked_against_the_map(make_sim, make_client):
    sim = make_sim(fields=10)
    client = make_client(sim.port)
    client.connect(timeout=3)
    with pytest.raises(ValueError, match="outside 0..9"):
        client.set_leds({10: FieldLight((1, 1, 1))})
    with pytest.raises(ValueError, match="pattern"):
        FieldLight((1, 1, 1), "strobe")


def test_missing_port_says_what_to_do(tmp_path):
    client = BridgeClient(str(tmp_path / "ttyACM9"))
    with pytest.raises(PortNotFound, match="not found: plug the MCU in"):
        client.connect(timeout=0.5)
    assert client.state == "closed"


def test_silent_device_is_no_answer():
    master, slave = pty.openpty()
    tty.setraw(slave)
    try:
        client = BridgeClient(os.ttyname(slave))
        with pytest.raises(NoAnswer, match="no answer from an MCU"):
            client.connect(timeout=0.6)
        assert client.counters.sent >= 2  # it did try more than once
    finally:
        os.close(master)
        os.close(slave)
