"""The link recovers on its own: port vanishes and returns, MCU resets, MCU goes silent,
delays on the wire. The same client object keeps working throughout."""
from firmware_bridge import EncoderDelta, FieldLight
from firmware_bridge.simulator import Faults

LEDS = {5: FieldLight((10, 20, 30), "pulse"), 17: FieldLight((255, 0, 0))}
SHOWN = {5: (3, 10, 20, 30), 17: (1, 255, 0, 0)}


def encoder_total(client):
    total = 0
    while not client.events.empty():
        event = client.events.get_nowait()
        if isinstance(event, EncoderDelta):
            total += event.delta
    return total


def test_port_vanishes_and_comes_back(make_sim, make_client, wait_for):
    sim = make_sim(fields=32)
    client = make_client(sim.port)
    client.connect(timeout=3)
    client.set_leds(LEDS)
    assert client.wait_idle(3)
    first_boot = client.identity.boot_id

    sim.vanish()
    assert wait_for(lambda: client.state != "up", timeout=3)
    client.set_leds({**LEDS, 1: FieldLight((0, 0, 9))})  # wanted while the port is gone
    sim.reappear()  # a replugged Pico has rebooted: its LED table is empty
    assert client.wait_up(5)
    assert client.wait_idle(3)
    assert sim.shown() == {**SHOWN, 1: (1, 0, 0, 9)}
    assert client.identity.boot_id != first_boot
    assert client.counters.reconnects >= 1


def test_vanished_twice_in_a_row(make_sim, make_client, wait_for):
    sim = make_sim(fields=32)
    client = make_client(sim.port)
    client.connect(timeout=3)
    for _ in range(2):
        sim.vanish()
        assert wait_for(lambda: client.state != "up", timeout=3)
        sim.reappear(reset=False)
        assert client.wait_up(5)
    client.set_leds(LEDS)
    assert client.wait_idle(3)
    assert sim.shown() == SHOWN
    assert client.counters.reconnects >= 2


def test_mcu_reset_restores_leds_and_keeps_counting(make_sim, make_client, wait_for):
    sim = make_sim(fields=32)
    client = make_client(sim.port)
    client.connect(timeout=3)
    client.set_leds(LEDS)
    assert client.wait_idle(3)
    sim.spin(10)
    assert wait_for(lambda: client.counters.received > 0 and not client.events.empty())
    assert encoder_total(client) == 10

    sim.reset()
    assert wait_for(lambda: client.counters.resyncs >= 1, timeout=3)
    assert client.wait_idle(3)
    assert sim.shown() == SHOWN  # the host re-sent its state to the fresh MCU
    sim.spin(4)  # the new boot counts from zero again
    total = 0

    def got_four():
        nonlocal total
        total += encoder_total(client)
        return total == 4

    assert wait_for(got_four, timeout=3)
    assert client.counters.reconnects == 0  # same port, no reopen needed


def test_silent_mcu_is_detected_and_no_step_is_lost(make_sim, make_client, wait_for):
    sim = make_sim(fields=32)
    client = make_client(sim.port)
    client.connect(timeout=3)
    client.set_leds(LEDS)
    assert client.wait_idle(3)
    sim.mute()
    sim.spin(5)  # counted while the host hears nothing
    assert wait_for(lambda: client.state != "up", timeout=3)
    sim.spin(2)
    sim.mute(False)
    assert client.wait_up(5)
    assert client.wait_idle(3)
    assert sim.shown() == SHOWN
    total = 0

    def got_seven():
        nonlocal total
        total += encoder_total(client)
        return total == 7

    assert wait_for(got_seven, timeout=3)
    assert client.counters.resyncs >= 1


def test_delays_and_drops_cause_retransmission_not_duplicates(make_sim, make_client, wait_for):
    sim = make_sim(fields=32, faults=Faults(drop=0.003, delay=0.003, delay_s=0.03, seed=7))
    client = make_client(sim.port)
    client.connect(timeout=5)
    for i in range(200):
        client.set_leds({i % 32: FieldLight((i, 0, 0))})
        if i % 20 == 0:
            sim.press(0, True)
    assert client.wait_idle(5)
    assert sim.shown() == {199 % 32: (1, 199, 0, 0)}
    assert sim.stats.delayed > 0 and sim.stats.dropped > 0
    delivered = sim.stats.delivered
    assert [seq for _, seq, _ in delivered] == [i % 256 for i in range(len(delivered))]
    presses = []

    def all_presses():
        while not client.events.empty():
            presses.append(client.events.get_nowait())
        return sum(type(e).__name__ == "ButtonEvent" for e in presses) == 10

    assert wait_for(all_presses, timeout=5)


def test_service_started_before_the_mcu_is_plugged_in(make_client):
    from firmware_bridge.simulator import SimulatedMCU

    sim = SimulatedMCU(fields=8)  # its port path does not exist yet
    client = make_client(sim.port)
    assert client.connect(wait=False) is None
    client.set_leds({2: FieldLight((1, 2, 3))})
    try:
        sim.start()
        assert client.wait_up(5)
        assert client.wait_idle(3)
        assert sim.shown() == {2: (1, 1, 2, 3)}
    finally:
        sim.stop()
