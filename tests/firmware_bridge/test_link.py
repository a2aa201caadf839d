"""The shared Link and the firmware's Device in virtual time: no threads, no clock, so
every lossy run here is exactly reproducible."""
import random

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.firmware.device import Device
from firmware_bridge.simulator import default_ledmap, table_of


class Channel:
    """A one-way byte pipe that loses and corrupts bytes from a seeded generator."""

    def __init__(self, rng, drop=0.0, corrupt=0.0):
        self.rng, self.drop, self.corrupt = rng, drop, corrupt

    def carry(self, data):
        out = bytearray()
        for byte in data:
            roll = self.rng.random()
            if roll < self.drop:
                continue
            if roll < self.drop + self.corrupt:
                byte = (byte + self.rng.randrange(1, 256)) & 0xFF
            out.append(byte)
        return bytes(out)


class Host:
    """A minimal host on the shared Link, enough to drive a Device."""

    def __init__(self):
        self.link = P.Link()
        self.decoder = P.FrameDecoder()
        self.out = bytearray()
        self.delivered = []
        self.identified = None

    def identify(self, session):
        self.out += P.encode_frame(P.MSG_IDENTIFY, 0, 0, P.pack_identify(session))

    def receive(self, data, now):
        for mtype, seq, ack, payload in self.decoder.feed(data):
            if mtype == P.MSG_IDENTIFY_REPLY:
                self.identified = P.unpack_identify_reply(payload)
                self.link.reset()
                continue
            if mtype == P.MSG_BOOT or self.identified is None:
                continue
            deliver, _ = self.link.on_frame(mtype, seq, ack, now, payload)
            if deliver:
                self.delivered.append((mtype, payload))

    def tick(self, now):
        for frame in self.link.poll(now):
            self.out += frame
        if self.link.owes_ack():
            self.out += self.link.ack()


def connect(host, device, now=0):
    host.identify(0x1234)
    device.receive(bytes(host.out), now)
    host.out.clear()
    device.tick(now)
    host.receive(device.take_output(), now)
    assert host.identified is not None
    assert device.session == 0x1234


def led_frame(i, fields):
    return [(i % fields, P.PATTERN_SOLID, i & 0xFF, (i >> 8) & 0xFF, 1)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lossy_link_delivers_everything_in_order_once(seed):
    rng = random.Random(seed)
    up, down = Channel(rng, 0.005, 0.01), Channel(rng, 0.005, 0.01)
    host = Host()
    device = Device(default_ledmap(32), buttons=2, now=0)
    delivered = []
    device.on_deliver = lambda mtype, seq, payload: delivered.append(payload)
    connect(host, device)
    to_send = [P.pack_led_set(P.LED_FLAG_COMMIT, led_frame(i, 32)) for i in range(600)]
    queue = list(to_send)
    presses = 0
    for now in range(1, 60_000):
        while queue and host.link.can_send():
            host.out += host.link.send(P.MSG_LED_SET, queue.pop(0), now)
        if now % 37 == 0 and presses < 150:
            device.button(presses % 2, True, now)
            presses += 1
        device.set_encoder_count(now // 10)
        host.tick(now)
        device.receive(up.carry(bytes(host.out)), now)
        host.out.clear()
        device.tick(now)
        host.receive(down.carry(device.take_output()), now)
        if not queue and host.link.in_flight() == 0 and presses == 150 and now > 6000:
            break
    assert not host.link.failed and device.session
    assert delivered == to_send  # every frame, in order, none twice
    assert host.link.retried > 0 and device.decoder.corrupted > 0  # faults did happen
    buttons = [P.unpack_button(p) for t, p in host.delivered if t == P.MSG_BUTTON]
    assert [b[0] for b in buttons] == list(range(1, 151))
    counts = [P.unpack_encoder(p) for t, p in host.delivered if t == P.MSG_ENCODER]
    assert sum(delta for _, delta in counts) == counts[-1][0]  # no step lost or doubled


def test_retry_limit_marks_the_link_failed_with_doubling_timeouts():
    link = P.Link(rto_initial=100, rto_max=500, max_tries=4)
    link.send(P.MSG_PING, P.pack_ping(1), 0)
    times = []
    now = 0
    while not link.failed and now < 10_000:
        if link.poll(now):
            times.append(now)
        now += 1
    assert times == [100, 300, 700]  # 100, then 200, 400 between tries
    assert link.failed and not link.can_send()
    assert link.reset() == [(P.MSG_PING, P.pack_ping(1))]


def test_go_back_n_resends_everything_after_the_gap_with_a_fresh_ack():
    link = P.Link(rto_initial=50)
    frames = [link.send(P.MSG_PING, P.pack_ping(i), 0) for i in range(3)]
    link.on_frame(P.MSG_ACK, 0, 1, 10)  # first acknowledged
    link.on_frame(P.MSG_ENCODER, 0, 1, 10)  # a reliable frame from the peer arrives
    again = link.poll(10 + link.rto)
    decoded = [P.decode_body(f[:-1]) for f in again]
    assert [d[1] for d in decoded] == [1, 2]
    assert all(d[2] == 1 for d in decoded)  # now acknowledging the peer's frame 0
    assert len(frames) == 3


def test_stale_or_wild_acks_are_ignored():
    link = P.Link()
    for i in range(4):
        link.send(P.MSG_PING, b"", 0)
    link.on_frame(P.MSG_ACK, 0, 200, 1)  # far outside the window
    assert link.in_flight() == 4
    link.on_frame(P.MSG_ACK, 0, 0, 1)  # acknowledges nothing new
    assert link.in_flight() == 4
    link.on_frame(P.MSG_ACK, 0, 4, 1)
    assert link.in_flight() == 0


def test_sequence_numbers_wrap():
    a, b = P.Link(), P.Link()
    got = []
    for i in range(700):
        frame = P.FrameDecoder().feed(a.send(P.MSG_PING, P.pack_ping(i), i))[0]
        deliver, _ = b.on_frame(*frame[:3], i)
        assert deliver
        got.append(frame[3])
        a.on_frame(P.MSG_ACK, 0, b.rx_expected, i)
    assert [P.unpack_ping(p) for p in got] == list(range(700))


def test_duplicate_is_not_delivered_but_acknowledged_again():
    link = P.Link()
    assert link.on_frame(P.MSG_LED_SET, 0, 0, 0) == (True, [])
    link.control(P.MSG_ACK)
    assert link.on_frame(P.MSG_LED_SET, 0, 0, 1) == (False, [])
    assert link.ack_pending and link.duplicates == 1


def test_karn_rtt_sampling_sets_the_timeout():
    link = P.Link(rto_min=20)
    link.send(P.MSG_PING, b"", 0)
    link.on_frame(P.MSG_ACK, 0, 1, 8)
    assert link.srtt == 8 and link.rto == 24  # 8 + 4 * 4
    link.send(P.MSG_PING, b"", 100)
    link.poll(100 + link.rto)  # retransmitted: its ack must not be timed
    link.on_frame(P.MSG_ACK, 0, 2, 400)
    assert link.srtt == 8


# --- the Device (MCU side) ----------------------------------------------------------
def run(device, frames, now=1):
    device.receive(b"".join(frames), now)
    device.tick(now)
    return P.FrameDecoder().feed(device.take_output())


def identified_device(fields=8):
    device = Device(default_ledmap(fields, 3), buttons=2, now=0)
    device.take_output()
    run(device, [P.encode_frame(P.MSG_IDENTIFY, 0, 0, P.pack_identify(7))])
    return device


def test_device_announces_boot_and_answers_identify():
    device = Device(default_ledmap(10, 12), buttons=3, boot_id=4242, now=0)
    boot = P.FrameDecoder().feed(device.take_output())
    assert boot == [(P.MSG_BOOT, 0, 0, P.pack_boot(4242, 0))]
    out = run(device, [P.encode_frame(P.MSG_IDENTIFY, 0, 0, P.pack_identify(99))])
    reply = [f for f in out if f[0] == P.MSG_IDENTIFY_REPLY][0]
    ident = P.unpack_identify_reply(reply[3])
    assert ident[3:6] == (10, 120, 3) and ident[8] == 99 and ident[9] == 4242


def test_device_without_session_answers_no_session():
    device = Device(default_ledmap(4), now=0)
    out = run(device, [P.encode_frame(P.MSG_LED_SET, 0, 0, P.pack_led_set(2, []))])
    errors = [P.unpack_error(f[3]) for f in out if f[0] == P.MSG_ERROR]
    assert errors == [(P.ERR_NO_SESSION, P.MSG_LED_SET, 0, 0)]


def test_led_set_stages_until_commit_and_clear_wipes():
    device = identified_device()
    run(device, [P.encode_frame(P.MSG_LED_SET, 0, 0, P.pack_led_set(0, [(1, 1, 9, 9, 9)]))])
    assert table_of(bytes(device.shown)) == {}
    run(device, [P.encode_frame(P.MSG_LED_SET, 1, 0, P.pack_led_set(2, [(2, 2, 1, 2, 3)]))])
    assert table_of(bytes(device.shown)) == {1: (1, 9, 9, 9), 2: (2, 1, 2, 3)}
    run(device, [P.encode_frame(P.MSG_LED_SET, 2, 0, P.pack_led_set(3, [(5, 3, 0, 0, 7)]))])
    assert table_of(bytes(device.shown)) == {5: (3, 0, 0, 7)}


def test_field_out_of_range_refuses_the_whole_frame():
    device = identified_device(fields=8)
    out = run(device, [P.encode_frame(P.MSG_LED_SET, 0, 0, P.pack_led_set(2, [(1, 1, 1, 1, 1), (8, 1, 1, 1, 1)]))])
    assert (P.ERR_FIELD_RANGE, P.MSG_LED_SET, 0, 7) in [P.unpack_error(f[3]) for f in out if f[0] == P.MSG_ERROR]
    assert table_of(bytes(device.shown)) == {}


def test_encoder_steps_survive_a_session_reset():
    device = identified_device()
    device.set_encoder_count(10)
    out = run(device, [])
    assert [P.unpack_encoder(f[3]) for f in out if f[0] == P.MSG_ENCODER] == [(10, 10)]
    # the report is never acknowledged; the host identifies again
    device.set_encoder_count(13)
    out = run(device, [P.encode_frame(P.MSG_IDENTIFY, 0, 0, P.pack_identify(8))])
    assert [P.unpack_encoder(f[3]) for f in out if f[0] == P.MSG_ENCODER] == [(13, 13)]


def test_render_shows_colours_and_animations():
    device = identified_device(fields=3)
    entries = [(0, P.PATTERN_SOLID, 255, 10, 0), (1, P.PATTERN_BLINK, 0, 0, 200), (2, P.PATTERN_SPIN, 9, 9, 9)]
    run(device, [P.encode_frame(P.MSG_LED_SET, 0, 0, P.pack_led_set(3, entries))])
    buf = bytearray(3 * device.pixels)
    device.render(100, buf)
    assert buf[0:3] == bytes([10, 255, 0])  # GRB
    assert buf[9:12] == bytes([0, 0, 200])  # field 1 starts at pixel 3
    device.render(700, buf)
    assert buf[9:12] == bytes([0, 0, 0])  # blink is off in the second half-second
    assert device.animated()
    run(device, [P.encode_frame(P.MSG_LED_BRIGHTNESS, 1, 0, P.pack_brightness(128))])
    device.render(100, buf)
    assert buf[0:3] == bytes([5, 128, 0])


def test_gap_report_triggers_fast_retransmit():
    link = P.Link(rto_initial=1000)
    for i in range(3):
        link.send(P.MSG_PING, P.pack_ping(i), 0)
    link.on_frame(P.MSG_ACK, 0, 0, 1)  # a plain ACK that moves nothing: wait
    assert link.poll(1) == []
    link.on_frame(P.MSG_ACK, 0, 0, 1, P.ACK_GAP)  # the peer saw a gap: resend now
    assert link.next_deadline() == 0
    assert len(link.poll(1)) == 3
    assert link.rto == 1000  # no backoff for a fast retransmit


def test_endless_gap_reports_still_hit_the_retry_limit():
    link = P.Link(max_tries=4)
    link.send(P.MSG_PING, b"", 0)
    rounds = 0
    for now in range(1, 10):
        link.on_frame(P.MSG_ACK, 0, 0, now, P.ACK_GAP)
        rounds += bool(link.poll(now))
    assert rounds == 3 and link.failed


def test_receiver_reports_a_gap_once_per_round():
    link = P.Link()
    link.on_frame(P.MSG_LED_SET, 0, 0, 0)
    assert link.owes_ack() and P.decode_body(link.ack()[:-1])[3] == b""
    for seq in (2, 3, 4):  # frame 1 lost: one report for the round
        link.on_frame(P.MSG_LED_SET, seq, 0, 0)
    assert link.gap_pending
    assert P.decode_body(link.ack()[:-1])[3] == P.ACK_GAP
    link.on_frame(P.MSG_LED_SET, 2, 0, 0)  # the resent round, frame 1 lost again
    assert link.gap_pending
    link.ack()
    link.on_frame(P.MSG_LED_SET, 3, 0, 0)  # same round: nothing new to report
    assert not link.owes_ack()
    link.on_frame(P.MSG_LED_SET, 1, 0, 0)  # the gap is filled
    assert link.owes_ack() and not link.gap_pending


@pytest.mark.parametrize("mtype,payload", [
    (P.MSG_LED_SET, b"\x03\x01\x01"),  # an entry cut short
    (P.MSG_LED_SET, b"\x03\x01\x07\x01\x01\x01"),  # pattern 7 does not exist
    (P.MSG_LED_BRIGHTNESS, b""),
    (P.MSG_PING, b"\x01\x02"),
])
def test_malformed_payload_is_refused_before_the_ack(mtype, payload):
    """v1 acknowledged a frame before parsing it, so a malformed LED_SET was
    lost without a word. Now: ERROR BAD_PAYLOAD, not delivered, not acknowledged; the same
    sequence number is free for the host's next (good) frame."""
    device = identified_device(fields=8)
    out = run(device, [P.encode_frame(mtype, 0, 0, payload)])
    assert [P.unpack_error(f[3]) for f in out if f[0] == P.MSG_ERROR] == [(P.ERR_BAD_PAYLOAD, mtype, 0, 7)]
    assert device.link.rx_expected == 0 and all(f[2] == 0 for f in out)  # nothing acknowledged
    run(device, [P.encode_frame(P.MSG_LED_SET, 0, 0, P.pack_led_set(2, [(3, 1, 4, 5, 6)]))])
    assert device.link.rx_expected == 1 and table_of(bytes(device.shown)) == {3: (1, 4, 5, 6)}


def test_a_failing_handler_costs_one_frame_not_the_firmware():
    device = identified_device(fields=8)

    def broken_renderer(_shown):
        raise RuntimeError("renderer bug")

    device.on_commit = broken_renderer
    out = run(device, [P.encode_frame(P.MSG_LED_SET, 0, 0, P.pack_led_set(2, [(1, 1, 1, 1, 1)])),
                       P.encode_frame(P.MSG_PING, 1, 0, P.pack_ping(5))])
    assert device.handler_errors == 1
    assert (P.ERR_INTERNAL, P.MSG_LED_SET, 0, 7) in [P.unpack_error(f[3]) for f in out if f[0] == P.MSG_ERROR]
    assert [P.unpack_pong(f[3])[0] for f in out if f[0] == P.MSG_PONG] == [5]  # still answering
