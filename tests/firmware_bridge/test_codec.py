"""COBS, CRC-16 and frame layout, checked against the reference packages (crcmod, cobs)."""
import crcmod.predefined
import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as P

reference_crc = crcmod.predefined.mkCrcFun("crc-ccitt-false")


def reference_frame(mtype, seq, ack, payload):
    """docs/protocol.md sections 3-4, built from the reference packages only."""
    encoded = cobs.encode(bytes([mtype, seq, ack, len(payload)]) + payload)
    crc = reference_crc(encoded)
    tail = bytes([0x80 | crc >> 9, 0x80 | (crc >> 2) & 0x7F, 0x80 | crc & 3])
    return encoded + tail + b"\x00"


def test_crc_check_value():
    # The catalogue check value of CRC-16/CCITT-FALSE, from both implementations: the
    # host's (binascii.crc_hqx) and the MCU's table.
    assert P.crc16 is not P.crc16_table  # CPython takes the C implementation
    assert P.crc16(b"123456789") == P.crc16_table(b"123456789") == 0x29B1 == reference_crc(b"123456789")


@settings(max_examples=300, derandomize=True)
@given(st.binary(max_size=600), st.integers(0, 0xFFFF))
def test_host_and_mcu_crc_match_crcmod(data, split):
    assert P.crc16(data) == P.crc16_table(data) == reference_crc(data)
    # continued over two pieces, as a receiver may
    cut = split % (len(data) + 1)
    assert P.crc16(data[cut:], P.crc16(data[:cut])) == P.crc16_table(data[cut:], P.crc16_table(data[:cut]))


@settings(max_examples=300, derandomize=True)
@given(st.binary(max_size=800))
def test_cobs_matches_reference_package(data):
    encoded = P.cobs_encode(data)
    assert encoded == cobs.encode(data)
    assert 0 not in encoded
    assert P.cobs_decode(encoded) == data


@pytest.mark.parametrize("size", [0, 1, 253, 254, 255, 508, 509])
def test_cobs_block_boundaries(size):
    data = bytes(range(1, 256))[: size] if size < 256 else bytes([7]) * size
    assert P.cobs_encode(data) == cobs.encode(data)
    assert P.cobs_decode(cobs.encode(data)) == data


def test_cobs_rejects_malformed():
    for bad in (b"\x05\x01\x02", b"\x02\x00", b"\x00"):
        with pytest.raises(P.ProtocolError):
            P.cobs_decode(bad)


def test_frame_layout_is_as_documented():
    # docs/protocol.md, "Examples": PING seq 5 ack 3 nonce 0x01020304.
    wire = P.encode_frame(P.MSG_PING, 5, 3, P.pack_ping(0x01020304))
    assert wire == reference_frame(P.MSG_PING, 5, 3, b"\x01\x02\x03\x04")
    assert P.decode_body(wire[:-1]) == (P.MSG_PING, 5, 3, b"\x01\x02\x03\x04")


@settings(max_examples=300, derandomize=True)
@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255), st.binary(max_size=P.MAX_PAYLOAD))
def test_every_frame_matches_the_reference_construction(mtype, seq, ack, payload):
    wire = P.encode_frame(mtype, seq, ack, payload)
    assert wire == reference_frame(mtype, seq, ack, payload)
    assert len(wire) <= P.MAX_WIRE_FRAME and 0 not in wire[:-1]


def test_largest_frame_fits_the_limit():
    entries = [(i, P.PATTERN_SOLID, 255, 255, 255) for i in range(P.LED_MAX_ENTRIES)]
    wire = P.encode_frame(P.MSG_LED_SET, 255, 255, P.pack_led_set(P.LED_FLAG_COMMIT, entries))
    assert len(wire) == P.MAX_WIRE_FRAME - 4 and P.MAX_WIRE_FRAME == 254
    assert len(P.encode_frame(P.MSG_LED_SET, 0, 0, bytes([1]) * P.MAX_PAYLOAD)) == P.MAX_WIRE_FRAME
    assert (P.MAX_PAYLOAD, P.LED_MAX_ENTRIES) == (245, 48)
    with pytest.raises(P.ProtocolError):
        P.encode_frame(P.MSG_LED_SET, 0, 0, bytes(P.MAX_PAYLOAD + 1))
    with pytest.raises(P.ProtocolError):
        P.pack_led_set(0, entries + [(0, 1, 0, 0, 0)])


def test_oversized_frame_is_rejected_by_the_decoder():
    wire = reference_frame(P.MSG_LED_SET, 0, 0, bytes([1]) * (P.MAX_PAYLOAD + 1))
    decoder = P.FrameDecoder()
    assert decoder.feed(wire) == []
    assert decoder.corrupted == 1
    # and the stream carries on
    assert decoder.feed(P.encode_frame(P.MSG_ACK, 1, 2)) == [(P.MSG_ACK, 1, 2, b"")]


def test_length_byte_rejects_zeros_and_truncation_under_a_valid_crc():
    """A body that grew or shrank is refused even when its CRC tail is right for it:
    the length byte is what v1 lacked (there trailing zeros passed its CRC)."""
    good = bytes([P.MSG_PING, 1, 2, 4, 9, 9, 9, 9])
    for body in (good + b"\x00", good + b"\x00\x00", good[:-1], bytes([P.MSG_PING, 1, 2, 5, 9, 9, 9, 9])):
        encoded = cobs.encode(body)
        crc = reference_crc(encoded)
        run = encoded + bytes([0x80 | crc >> 9, 0x80 | (crc >> 2) & 0x7F, 0x80 | crc & 3])
        with pytest.raises(P.ProtocolError, match="length byte"):
            P.decode_body(run)


def test_version_1_frames_are_recognised_not_read():
    """An old peer's frames are never taken as frames, but the decoder names them, so the
    host can say "flash the firmware" (docs/protocol.md section 14)."""
    body = bytes([P.MSG_HEARTBEAT, 0, 0]) + P.pack_heartbeat(0, 7, 1000, 0, 0)
    v1 = cobs.encode(body + reference_crc(body).to_bytes(2, "big")) + b"\x00"
    decoder = P.FrameDecoder()
    assert decoder.feed(v1) == []
    assert (decoder.corrupted, decoder.legacy) == (1, 1)
    assert decoder.last_legacy == (P.MSG_HEARTBEAT, 0, 0, P.pack_heartbeat(0, 7, 1000, 0, 0))
    assert P.encode_v1(P.MSG_HEARTBEAT, P.pack_heartbeat(0, 7, 1000, 0, 0)) == v1


def test_payload_round_trips():
    assert P.unpack_identify(P.pack_identify(0xBEEF)) == (P.PROTOCOL_VERSION, 0xBEEF)
    reply = P.pack_identify_reply((1, 2, 3), P.CAP_LEDS | P.CAP_RFID, 96, 1152, 4, 77, 999, "pico")
    assert P.unpack_identify_reply(reply) == (
        P.PROTOCOL_VERSION, (1, 2, 3), P.CAP_LEDS | P.CAP_RFID, 96, 1152, 4, P.WINDOW,
        P.MAX_PAYLOAD, 77, 999, b"pico")
    assert P.unpack_heartbeat(P.pack_heartbeat(5, 6, 2**33 + 7, 70000, 1)) == (5, 6, 7, 70000 & 0xFFFF, 1)
    assert P.unpack_error(P.pack_error(P.ERR_FIELD_RANGE, P.MSG_LED_SET, 9, 12)) == (4, 0x10, 9, 12)
    assert P.unpack_encoder(P.pack_encoder(-5, -2)) == (-5, -2)
    assert P.unpack_button(P.pack_button(3, 1, True, 1234)) == (3, 1, 1, 1234)
    assert P.unpack_card(P.pack_card(4, b"\x04\xa2\x19\x33")) == (4, b"\x04\xa2\x19\x33")
    assert P.unpack_pong(P.pack_pong(1, 2)) == (1, 2)
    flags, entries = P.unpack_led_set(P.pack_led_set(3, [(1, 2, 3, 4, 5)]))
    assert (flags, entries) == (3, [(1, 2, 3, 4, 5)])


@pytest.mark.parametrize("unpack,payload", [
    (P.unpack_led_set, b""),
    (P.unpack_led_set, b"\x02\x01\x01"),
    (P.unpack_led_set, b"\x02\x01\x09\x00\x00\x00"),  # pattern 9 does not exist
    (P.unpack_encoder, b"\x00\x01"),
    (P.unpack_card, b"\x00\x01\x05\x01"),
    (P.unpack_identify_reply, b"\x01\x02"),
    (P.unpack_identify_reply, bytes(51)),
    (P.unpack_button, b"\x00\x01\x00\x02\x00\x00\x00\x00"),  # pressed must be 0 or 1
    (P.unpack_card, b"\x00\x01\x0b" + bytes(11)),  # UIDs are at most 10 bytes
    (P.unpack_ack, b"\x02"),
    (P.unpack_pong, b"\x00\x00\x00\x01"),  # a short PONG must not end the reader
])
def test_bad_payloads_raise_protocol_error(unpack, payload):
    with pytest.raises(P.ProtocolError):
        unpack(payload)


def test_examples_in_the_protocol_document_are_right():
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    examples = re.findall(r"body: ([0-9a-f ]+)\nwire: ([0-9a-f ]+)\n", doc)
    assert len(examples) >= 6
    for body_hex, wire_hex in examples:
        body, wire = bytes.fromhex(body_hex), bytes.fromhex(wire_hex)
        assert body[3] == len(body) - 4
        assert wire == reference_frame(body[0], body[1], body[2], body[4:])
        assert P.FrameDecoder().feed(wire) == [(body[0], body[1], body[2], body[4:])]
