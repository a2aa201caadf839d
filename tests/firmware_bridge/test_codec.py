"""COBS, CRC-16 and frame layout, checked against the reference packages."""
import crcmod.predefined
import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as P

reference_crc = crcmod.predefined.mkCrcFun("crc-ccitt-false")


def test_crc_check_value():
    # The catalogue check value of CRC-16/CCITT-FALSE.
    assert P.crc16(b"123456789") == 0x29B1 == reference_crc(b"123456789")


@settings(max_examples=300, derandomize=True)
@given(st.binary(max_size=600))
def test_crc_matches_crcmod(data):
    assert P.crc16(data) == reference_crc(data)


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
    # docs/protocol.md, "Example": PING seq 5 ack 3 nonce 0x01020304.
    body = bytes([P.MSG_PING, 5, 3, 1, 2, 3, 4])
    crc = reference_crc(body)
    wire = P.encode_frame(P.MSG_PING, 5, 3, P.pack_ping(0x01020304))
    assert wire == cobs.encode(body + crc.to_bytes(2, "big")) + b"\x00"
    assert P.decode_body(wire[:-1]) == (P.MSG_PING, 5, 3, b"\x01\x02\x03\x04")


def test_largest_frame_fits_the_limit():
    entries = [(i, P.PATTERN_SOLID, 255, 255, 255) for i in range(P.LED_MAX_ENTRIES)]
    wire = P.encode_frame(P.MSG_LED_SET, 255, 255, P.pack_led_set(P.LED_FLAG_COMMIT, entries))
    assert len(wire) <= P.MAX_WIRE_FRAME == 254
    assert P.LED_MAX_ENTRIES == 49
    with pytest.raises(P.ProtocolError):
        P.encode_frame(P.MSG_LED_SET, 0, 0, bytes(P.MAX_PAYLOAD + 1))
    with pytest.raises(P.ProtocolError):
        P.pack_led_set(0, entries + [(0, 1, 0, 0, 0)])


def test_oversized_frame_is_rejected_by_the_decoder():
    body = bytes([P.MSG_LED_SET, 0, 0]) + bytes([1]) * (P.MAX_PAYLOAD + 1)
    body += reference_crc(body).to_bytes(2, "big")
    decoder = P.FrameDecoder()
    assert decoder.feed(cobs.encode(body) + b"\x00") == []
    assert decoder.corrupted == 1
    # and the stream carries on
    assert decoder.feed(P.encode_frame(P.MSG_ACK, 1, 2)) == [(P.MSG_ACK, 1, 2, b"")]


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
])
def test_bad_payloads_raise_protocol_error(unpack, payload):
    with pytest.raises(P.ProtocolError):
        unpack(payload)


def test_examples_in_the_protocol_document_are_right():
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    pairs = re.findall(r"body: ([0-9a-f ]+)\nwire: ([0-9a-f ]+)\n", doc)
    assert len(pairs) >= 6
    for body_hex, wire_hex in pairs:
        body, wire = bytes.fromhex(body_hex), bytes.fromhex(wire_hex)
        assert wire == P.cobs_encode(body) + b"\x00" == cobs.encode(body) + b"\x00"
        assert reference_crc(body[:-2]) == int.from_bytes(body[-2:], "big")
        assert P.FrameDecoder().feed(wire) == [(body[0], body[1], body[2], body[3:-2])]
