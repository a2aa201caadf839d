"""Damage valid frames the ways a serial line does, and count what the decoder lets through.

Each trial sends three valid frames of random types (every message type, random fields,
many zero bytes so that COBS has code bytes to lose) as one byte stream, damages the
middle one, and decodes the stream with a fresh `FrameDecoder`. What comes out must be
some of the frames that were sent, in order, each at most once; any other frame is
*accepted corrupt*: a damaged frame taken for a valid one, the same or a different one.

Used by scripts/fuzz_frames.py (millions of trials) and the test suite (a seeded few).
`fmt="v1"` runs the same damage against the version-1 format (no length byte, CRC over
the decoded body), to show what the version-2 format fixed.
"""
from __future__ import annotations

import random
import struct
from collections.abc import Callable, Iterator
from functools import partial

from firmware_bridge import protocol as P

KINDS = ("flip", "burst", "insert", "delete", "truncate", "trailing_zeros", "concatenate")


def random_frame(rng: random.Random) -> tuple[int, int, int, bytes]:
    """(type, seq, ack, payload): a valid frame of a random type, as a sender makes it."""
    mtype = rng.choice(sorted(P.MESSAGE_NAMES))
    seq, ack = _byte(rng), _byte(rng)

    def u16() -> int:
        return _byte(rng) << 8 | _byte(rng)

    def u32() -> int:
        return u16() << 16 | u16()

    if mtype == P.MSG_ACK:
        payload = rng.choice((b"", P.ACK_GAP))
    elif mtype == P.MSG_IDENTIFY:
        payload = P.pack_identify(u16() or 1)
    elif mtype == P.MSG_IDENTIFY_REPLY:
        name = bytes(rng.randrange(32, 127) for _ in range(rng.randrange(33)))
        payload = P.pack_identify_reply((_byte(rng), _byte(rng), _byte(rng)), u16(), u16(), u16(),
                                        _byte(rng), u16(), u16(), name)
    elif mtype == P.MSG_BOOT:
        payload = P.pack_boot(u16(), rng.randrange(3))
    elif mtype == P.MSG_HEARTBEAT:
        payload = P.pack_heartbeat(u16(), u16(), u32(), u16(), rng.randrange(2))
    elif mtype == P.MSG_ERROR:
        payload = P.pack_error(rng.randrange(1, 8), _byte(rng), _byte(rng), u16())
    elif mtype == P.MSG_PING:
        payload = P.pack_ping(u32())
    elif mtype == P.MSG_PONG:
        payload = P.pack_pong(u32(), u32())
    elif mtype == P.MSG_LED_SET:
        count = rng.choice((0, 1, 1, 2, 4, 16, rng.randrange(P.LED_MAX_ENTRIES + 1)))
        entries = [(_byte(rng), rng.randrange(P.PATTERN_COUNT), _byte(rng), _byte(rng), _byte(rng))
                   for _ in range(count)]
        payload = P.pack_led_set(rng.randrange(4), entries)
    elif mtype == P.MSG_LED_BRIGHTNESS:
        payload = P.pack_brightness(_byte(rng))
    elif mtype == P.MSG_ENCODER:
        payload = struct.pack(">II", u32(), u32())  # two i32, any bit pattern
    elif mtype == P.MSG_BUTTON:
        payload = P.pack_button(u16(), _byte(rng), rng.randrange(2), u32())
    else:
        payload = P.pack_card(u16(), bytes(_byte(rng) for _ in range(rng.choice((4, 7, 10)))))
    return mtype, seq, ack, payload


def _byte(rng: random.Random) -> int:
    # A quarter zeros: real payloads are full of them (off LEDs, small counts), and each
    # zero becomes a COBS code byte whose damage reshapes the whole frame.
    return 0 if rng.random() < 0.25 else rng.randrange(1, 256)


# --- damage ---------------------------------------------------------------------------
# Each takes the stream and the [start, end) span of the middle frame's bytes (its
# delimiter at end - 1) and returns the damaged stream.
def flip(rng, stream, start, end):
    out = bytearray(stream)
    bit = rng.randrange(start * 8, end * 8)
    out[bit >> 3] ^= 0x80 >> (bit & 7)
    return bytes(out)


def burst(rng, stream, start, end):
    """2 to 16 bits from the first wrong bit to the last, both flipped, those between random."""
    out = bytearray(stream)
    length = rng.randrange(2, 17)
    first = rng.randrange(start * 8, end * 8)
    last = min(first + length - 1, len(out) * 8 - 1)
    if last == first:
        first -= 1
    for bit in range(first, last + 1):
        if bit in (first, last) or rng.random() < 0.5:
            out[bit >> 3] ^= 0x80 >> (bit & 7)
    return bytes(out)


def insert(rng, stream, start, end):
    at = rng.randrange(start, end)
    extra = bytes(rng.choice((0, rng.randrange(1, 256))) for _ in range(rng.randrange(1, 5)))
    return stream[:at] + extra + stream[at:]


def delete(rng, stream, start, end):
    at = rng.randrange(start, end)
    return stream[:at] + stream[at + rng.randrange(1, 5):]


def truncate(rng, stream, start, end):
    """The frame stops early; the delimiter after it arrives or is lost too."""
    cut = rng.randrange(start + 1, end - 1) if end - start > 2 else start
    tail = stream[end - 1:] if rng.random() < 0.5 else stream[end:]
    return stream[:cut] + tail


def trailing_zeros(rng, stream, start, end, fmt="v2"):
    """Zero bytes added to the end of the body: as the line makes them (a delimiter read
    as 0x01 and the next bytes lost: every 0x01 decodes to a zero), or written into the
    body behind its old CRC."""
    zeros = rng.randrange(1, 5)
    if rng.random() < 0.5:
        return stream[:end - 1] + b"\x01" * zeros + stream[end - 1:]
    run = stream[start:end - 1]
    tail = run[-P.TAIL_SIZE:] if fmt == "v2" else b""  # v1: the CRC is inside the body
    body = P.cobs_decode(run[:len(run) - len(tail)])
    return stream[:start] + P.cobs_encode(body + bytes(zeros)) + tail + stream[end - 1:]


def concatenate(rng, stream, start, end):
    """The delimiter after the frame is lost or damaged: it runs into the next one."""
    if rng.random() < 0.5:
        return stream[:end - 1] + stream[end:]
    return stream[:end - 1] + bytes([rng.randrange(1, 256)]) + stream[end:]


DAMAGE: dict[str, Callable[[random.Random, bytes, int, int], bytes]] = {
    "flip": flip, "burst": burst, "insert": insert, "delete": delete, "truncate": truncate,
    "trailing_zeros": trailing_zeros, "concatenate": concatenate,
}


# --- the two formats -------------------------------------------------------------------
def encode_v1(mtype: int, seq: int, ack: int, payload: bytes) -> bytes:
    body = bytes((mtype, seq, ack)) + payload
    return P.cobs_encode(body + P.crc16(body).to_bytes(2, "big")) + P.DELIMITER


def decode_v1_stream(stream: bytes) -> list[tuple[int, int, int, bytes]]:
    """The version-1 receiver: split at 0x00, COBS, CRC residue zero."""
    frames = []
    for run in stream.split(P.DELIMITER):
        if run and len(run) <= P.MAX_ENCODED:
            frame = P.decode_v1(run)
            if frame is not None:
                frames.append(frame)
    return frames


def decode_v2_stream(stream: bytes) -> list[tuple[int, int, int, bytes]]:
    return P.FrameDecoder().feed(stream)


def is_ordered_subset(got: list, sent: list) -> bool:
    remaining = iter(sent)
    return all(frame in remaining for frame in got)


def trials(seed: int, counts: dict[str, int], fmt: str = "v2") -> Iterator[tuple[str, bool, tuple]]:
    """Yield (kind, accepted_corrupt, details) for every trial, in a seeded order."""
    rng = random.Random(seed)
    encode = P.encode_frame if fmt == "v2" else encode_v1
    decode = decode_v2_stream if fmt == "v2" else decode_v1_stream
    damage = dict(DAMAGE, trailing_zeros=partial(trailing_zeros, fmt=fmt))
    plan = [kind for kind in KINDS for _ in range(counts.get(kind, 0))]
    rng.shuffle(plan)
    for kind in plan:
        sent = [random_frame(rng) for _ in range(3)]
        wires = [encode(*frame) for frame in sent]
        start = len(wires[0])
        end = start + len(wires[1])
        damaged = damage[kind](rng, b"".join(wires), start, end)
        got = decode(damaged)
        bad = not is_ordered_subset(got, sent)
        yield kind, bad, ((sent, damaged, got) if bad else ())
