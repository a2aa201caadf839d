"""The DOG table bridge wire protocol, shared word for word by the host and the MCU.

This one module runs under CPython on the Pi and under MicroPython on the RP2040, so the
code that is fuzzed and soaked in the test suite is the code that runs on the board. It
therefore keeps to what MicroPython offers: no dataclasses, no typing at runtime, no
f-strings, `struct` and plain classes only, COBS written out by hand, CRC-16 by table
where the standard library's `binascii.crc_hqx` is missing (MicroPython). It holds no
I/O, no clock and no threads: callers pass the time in milliseconds.

The wire format is specified in docs/protocol.md; the constants below are its tables.
It is over 600 lines because the MCU loads it as one file: MicroPython on the RP2040
imports each module into scarce RAM, and host and MCU must share it word for word.
"""
import struct

PROTOCOL_VERSION = 2  # 2: length byte, CRC over the encoded bytes (docs/protocol.md 3-4)

# --- frame limits -------------------------------------------------------------------
# Between two delimiters at most 253 bytes: the COBS-encoded body and a 3-byte CRC tail.
# A body of at most 249 bytes encodes to at most 250 COBS bytes (one code byte more than
# the body), so an MCU needs one fixed 253-byte receive buffer and a frame never spans
# two COBS blocks.
HEADER_SIZE = 4  # type, seq, ack, payload length
TAIL_SIZE = 3  # CRC-16 of the encoded bytes, 7 + 7 + 2 bits, each byte with bit 7 set
MAX_ENCODED = 253  # bytes between delimiters
MAX_BODY = MAX_ENCODED - TAIL_SIZE - 1  # 249
MAX_PAYLOAD = MAX_BODY - HEADER_SIZE  # 245
MAX_WIRE_FRAME = MAX_ENCODED + 1  # with the 0x00 delimiter: 254
DELIMITER = b"\x00"

# --- message types ------------------------------------------------------------------
MSG_ACK = 0x00
MSG_IDENTIFY = 0x01
MSG_IDENTIFY_REPLY = 0x02
MSG_BOOT = 0x03
MSG_HEARTBEAT = 0x04
MSG_ERROR = 0x05
MSG_PING = 0x06
MSG_PONG = 0x07
MSG_LED_SET = 0x10
MSG_LED_BRIGHTNESS = 0x11
MSG_ENCODER = 0x20
MSG_BUTTON = 0x21
MSG_CARD = 0x22

# Delivery class of each type: R = reliable (sequenced, acknowledged, retransmitted),
# U = unreliable (ack field valid, seq field ignored), S = session (handshake, seq=ack=0).
RELIABLE = (MSG_PING, MSG_LED_SET, MSG_LED_BRIGHTNESS, MSG_ENCODER, MSG_BUTTON, MSG_CARD)
SESSION = (MSG_IDENTIFY, MSG_IDENTIFY_REPLY)

MESSAGE_NAMES = {
    MSG_ACK: "ACK",
    MSG_IDENTIFY: "IDENTIFY",
    MSG_IDENTIFY_REPLY: "IDENTIFY_REPLY",
    MSG_BOOT: "BOOT",
    MSG_HEARTBEAT: "HEARTBEAT",
    MSG_ERROR: "ERROR",
    MSG_PING: "PING",
    MSG_PONG: "PONG",
    MSG_LED_SET: "LED_SET",
    MSG_LED_BRIGHTNESS: "LED_BRIGHTNESS",
    MSG_ENCODER: "ENCODER",
    MSG_BUTTON: "BUTTON",
    MSG_CARD: "CARD",
}

# --- error codes (payload of MSG_ERROR) ---------------------------------------------
ERR_NO_SESSION = 1
ERR_BAD_PAYLOAD = 2
ERR_UNKNOWN_TYPE = 3
ERR_FIELD_RANGE = 4
ERR_UNSUPPORTED = 5
ERR_PROTOCOL_VERSION = 6
ERR_RETRY_LIMIT = 7
ERR_INTERNAL = 8

ERROR_NAMES = {
    ERR_NO_SESSION: "no session (MCU restarted or gave up): identify again",
    ERR_BAD_PAYLOAD: "payload has the wrong length or a bad value",
    ERR_UNKNOWN_TYPE: "message type unknown to this firmware",
    ERR_FIELD_RANGE: "field index beyond the LED map",
    ERR_UNSUPPORTED: "capability not present on this MCU",
    ERR_PROTOCOL_VERSION: "protocol version not supported",
    ERR_RETRY_LIMIT: "MCU gave up retransmitting and dropped the session",
    ERR_INTERNAL: "MCU firmware failed while handling a frame (a bug: please report it)",
}

# --- capabilities (bitmask in IDENTIFY_REPLY) ---------------------------------------
CAP_LEDS = 0x0001
CAP_ENCODER = 0x0002
CAP_BUTTONS = 0x0004
CAP_RFID = 0x0008

CAPABILITY_NAMES = ((CAP_LEDS, "leds"), (CAP_ENCODER, "encoder"), (CAP_BUTTONS, "buttons"), (CAP_RFID, "rfid"))

# --- LED patterns (animations run on the MCU) ---------------------------------------
PATTERN_OFF = 0
PATTERN_SOLID = 1
PATTERN_BLINK = 2  # 1 Hz, half on
PATTERN_PULSE = 3  # 1.5 s breathing
PATTERN_SPIN = 4  # one lit third running round the ring, 1 turn/s
PATTERN_FLASH = 5  # 4 Hz, for "look here" warnings
PATTERN_COUNT = 6

PATTERN_NAMES = ("off", "solid", "blink", "pulse", "spin", "flash")

ACK_GAP = b"\x01"  # ACK payload: "I received a frame after a gap" (fast retransmit)

LED_FLAG_CLEAR = 0x01  # set every field to off before applying the entries
LED_FLAG_COMMIT = 0x02  # show the staged table once this frame is applied
LED_ENTRY_SIZE = 5  # field, pattern, r, g, b
LED_MAX_ENTRIES = (MAX_PAYLOAD - 1) // LED_ENTRY_SIZE  # 48

# --- link timing defaults (ms) ------------------------------------------------------
WINDOW = 8
RTO_INITIAL_MS = 100
RTO_MIN_MS = 20
RTO_MAX_MS = 500
MAX_TRIES = 10  # 9 resend rounds in a row without progress: about 4 s on the timer
HEARTBEAT_MS = 250


class ProtocolError(ValueError):
    """A frame or payload that does not follow docs/protocol.md."""


# --- CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor -------
# On the host the C implementation in the standard library does it (binascii.crc_hqx is
# this CRC with the initial value passed in); MicroPython has no crc_hqx, so the MCU
# uses the table below. tests/firmware_bridge/test_codec.py checks both against crcmod.
def _crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
        table.append(crc)
    return tuple(table)


_CRC_TABLE = _crc_table()  # a constant, computed once


def crc16_table(data, crc=0xFFFF):
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


try:
    from binascii import crc_hqx as _crc_hqx

    def crc16(data, crc=0xFFFF):
        return _crc_hqx(data, crc)

except ImportError:  # MicroPython
    crc16 = crc16_table


def crc_tail(crc):
    """The 16 CRC bits as three bytes that are never 0x00: bits 15-9, 8-2 and 1-0, each
    byte with bit 7 set. A wire bit maps to one CRC bit in the same order, so a burst on
    the wire stays a burst for the CRC."""
    return bytes((0x80 | (crc >> 9), 0x80 | ((crc >> 2) & 0x7F), 0x80 | (crc & 0x03)))


def _tail_crc(tail):
    """The CRC carried by a tail, or -1 if the tail is malformed."""
    a, b, c = tail[0], tail[1], tail[2]
    if not (a & 0x80 and b & 0x80) or (c & 0xFC) != 0x80:
        return -1
    return ((a & 0x7F) << 9) | ((b & 0x7F) << 2) | (c & 0x03)


# --- COBS (Cheshire & Baker), general form for any length ---------------------------
def cobs_encode(data):
    out = bytearray()
    code_at = 0
    out.append(0)
    code = 1
    after_full_block = False
    for byte in data:
        after_full_block = False
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(byte)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
                after_full_block = True
    if after_full_block:
        # A full block implies no zero after it, so the empty block that would follow
        # is dropped: the shortest encoding, as the reference `cobs` package writes it.
        del out[code_at]
    else:
        out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Decode one COBS block sequence (no delimiters); ProtocolError if malformed."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ProtocolError("COBS code runs past the end of the frame")
        block = data[i + 1:end]
        if 0 in block:
            raise ProtocolError("zero byte inside a COBS frame")
        out.extend(block)
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# --- frames -------------------------------------------------------------------------
def encode_frame(mtype, seq, ack, payload=b""):
    """One frame ready for the wire: COBS(type seq ack length payload), the CRC-16 of
    those encoded bytes as a 3-byte tail, then 0x00."""
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError("payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    body = bytearray(HEADER_SIZE)
    body[0] = mtype & 0xFF
    body[1] = seq & 0xFF
    body[2] = ack & 0xFF
    body[3] = len(payload)
    body.extend(payload)
    encoded = cobs_encode(body)
    return encoded + crc_tail(crc16(encoded)) + DELIMITER


def decode_body(run):
    """Bytes between two delimiters -> (type, seq, ack, payload); ProtocolError if corrupt.

    The CRC is checked on the bytes as they travelled, before COBS decoding: a flipped
    COBS code byte moves zeros all over the body, an error a CRC over the body lets
    through about once in 65,536, while on the wire it is one bit, which CRC-16 always
    catches (as it does every burst up to 16 bits). The length byte then rejects a body
    that grew or shrank."""
    n = len(run)
    if n > MAX_ENCODED:
        raise ProtocolError("frame longer than %d bytes" % MAX_ENCODED)
    if n < HEADER_SIZE + 1 + TAIL_SIZE:
        raise ProtocolError("frame shorter than header and CRC")
    crc = _tail_crc(run[n - TAIL_SIZE:])
    if crc < 0:
        raise ProtocolError("malformed CRC tail")
    if crc16(run[:n - TAIL_SIZE]) != crc:
        raise ProtocolError("CRC mismatch")
    body = cobs_decode(run[:n - TAIL_SIZE])
    if len(body) < HEADER_SIZE or body[3] != len(body) - HEADER_SIZE:
        raise ProtocolError("length byte does not match the frame")
    return (body[0], body[1], body[2], bytes(body[HEADER_SIZE:]))


def decode_v1(run):
    """A frame of protocol version 1 (COBS(type seq ack payload crc16), no length byte,
    CRC over the body) -> (type, seq, ack, payload), else None. Only used to tell a peer
    of the old version that it must be updated, never to act on what it says."""
    try:
        body = cobs_decode(run)
    except ProtocolError:
        return None
    if len(body) < 5 or crc16(body) != 0:
        return None
    return (body[0], body[1], body[2], bytes(body[3:-2]))


def encode_v1(mtype, payload):
    """A session-less version-1 frame (seq = ack = 0), for the answer to an old peer."""
    body = bytearray(3)
    body[0] = mtype
    body.extend(payload)
    crc = crc16(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    return cobs_encode(body) + DELIMITER


class FrameDecoder:
    """Turns a byte stream into frames; counts and skips anything corrupt.

    Resynchronises on the next 0x00 after any error, so one bad byte costs at most the
    frame it sits in. Empty frames (0x00 0x00) are the sync filler a sender may send to
    end a partial frame on the other side; they are skipped silently.
    """

    def __init__(self):
        self.buffer = bytearray()
        self.overflow = False
        self.corrupted = 0
        self.received = 0
        self.legacy = 0  # rejected runs that are valid version-1 frames: an old peer
        self.last_legacy = None  # the newest of them, (type, seq, ack, payload)

    def feed(self, data):
        frames = []
        data = bytes(data)
        start = 0
        n = len(data)
        while start < n:
            zero = data.find(DELIMITER, start)
            if zero < 0:
                if not self.overflow:
                    self.buffer.extend(data[start:])
                    if len(self.buffer) > MAX_ENCODED:
                        self.overflow = True
                        self.buffer = bytearray()
                break
            if self.overflow:
                self.overflow = False
                self.corrupted += 1
            else:
                self.buffer.extend(data[start:zero])
                if len(self.buffer) > MAX_ENCODED:
                    self.corrupted += 1
                elif self.buffer:
                    try:
                        frames.append(decode_body(bytes(self.buffer)))
                        self.received += 1
                    except ProtocolError:
                        self.corrupted += 1
                        old = decode_v1(bytes(self.buffer))
                        if old is not None:
                            self.legacy += 1
                            self.last_legacy = old
            self.buffer = bytearray()
            start = zero + 1
        return frames


# --- payloads -----------------------------------------------------------------------
def _unpack(fmt, payload):
    if len(payload) != struct.calcsize(fmt):
        raise ProtocolError("payload length %d, expected %d" % (len(payload), struct.calcsize(fmt)))
    return struct.unpack(fmt, payload)


def pack_identify(session):
    return struct.pack(">BH", PROTOCOL_VERSION, session)


def unpack_identify(payload):
    if len(payload) < 3:
        raise ProtocolError("IDENTIFY payload too short")
    return struct.unpack(">BH", payload[:3])  # (protocol, session); longer = newer host


_IDENTIFY_REPLY = ">BBBBHHHBBHHH"
IDENTIFY_REPLY_FIXED = struct.calcsize(_IDENTIFY_REPLY)  # 18


def pack_identify_reply(fw_version, capabilities, led_fields, pixels, buttons, session, boot_id, name):
    name = name.encode() if isinstance(name, str) else bytes(name)
    return struct.pack(
        _IDENTIFY_REPLY, PROTOCOL_VERSION, fw_version[0], fw_version[1], fw_version[2],
        capabilities, led_fields, pixels, buttons, WINDOW, MAX_PAYLOAD, session, boot_id,
    ) + name[:32]


def unpack_identify_reply(payload):
    """-> (protocol, (major, minor, patch), caps, led_fields, pixels, buttons, window,
    max_payload, session, boot_id, name bytes)"""
    if not IDENTIFY_REPLY_FIXED <= len(payload) <= IDENTIFY_REPLY_FIXED + 32:
        raise ProtocolError("IDENTIFY_REPLY payload length %d, expected 18..50" % len(payload))
    v = struct.unpack(_IDENTIFY_REPLY, payload[:IDENTIFY_REPLY_FIXED])
    return (v[0], (v[1], v[2], v[3]), v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
            bytes(payload[IDENTIFY_REPLY_FIXED:]))


def pack_boot(boot_id, reason):
    return struct.pack(">HB", boot_id, reason)


def unpack_boot(payload):
    return _unpack(">HB", payload)


def pack_heartbeat(session, boot_id, uptime_ms, rx_corrupted, flags):
    return struct.pack(">HHIHB", session, boot_id, uptime_ms & 0xFFFFFFFF, rx_corrupted & 0xFFFF, flags)


def unpack_heartbeat(payload):
    return _unpack(">HHIHB", payload)  # session, boot_id, uptime_ms, rx_corrupted, flags


def pack_error(code, mtype, seq, session):
    return struct.pack(">BBBH", code, mtype, seq, session)


def unpack_error(payload):
    return _unpack(">BBBH", payload)  # code, offending type, offending seq, session


def pack_ping(nonce):
    return struct.pack(">I", nonce & 0xFFFFFFFF)


def unpack_ping(payload):
    return _unpack(">I", payload)[0]


def pack_pong(nonce, uptime_ms):
    return struct.pack(">II", nonce & 0xFFFFFFFF, uptime_ms & 0xFFFFFFFF)


def unpack_pong(payload):
    return _unpack(">II", payload)


def pack_led_set(flags, entries):
    """entries: sequence of (field, pattern, r, g, b); at most LED_MAX_ENTRIES."""
    if len(entries) > LED_MAX_ENTRIES:
        raise ProtocolError("%d LED entries exceed %d per frame" % (len(entries), LED_MAX_ENTRIES))
    out = bytearray(1)
    out[0] = flags
    for entry in entries:
        out.extend(bytes(entry))
    return bytes(out)


def unpack_led_set(payload):
    """-> (flags, list of (field, pattern, r, g, b))"""
    if len(payload) < 1 or (len(payload) - 1) % LED_ENTRY_SIZE:
        raise ProtocolError("LED_SET payload length %d is not 1 + 5*n" % len(payload))
    entries = []
    for i in range(1, len(payload), LED_ENTRY_SIZE):
        entry = tuple(payload[i:i + LED_ENTRY_SIZE])
        if entry[1] >= PATTERN_COUNT:
            raise ProtocolError("unknown LED pattern %d" % entry[1])
        entries.append(entry)
    return payload[0], entries


def pack_brightness(level):
    return struct.pack(">B", level)


def unpack_brightness(payload):
    return _unpack(">B", payload)[0]


def pack_encoder(count, delta):
    return struct.pack(">ii", count, delta)


def unpack_encoder(payload):
    return _unpack(">ii", payload)  # (count since boot, delta since the last report)


def pack_button(event, index, pressed, ticks_ms):
    return struct.pack(">HBBI", event & 0xFFFF, index, 1 if pressed else 0, ticks_ms & 0xFFFFFFFF)


def unpack_button(payload):
    event = _unpack(">HBBI", payload)  # event, index, pressed, ticks_ms
    if event[2] > 1:
        raise ProtocolError("BUTTON state %d is neither 0 nor 1" % event[2])
    return event


def pack_card(event, uid):
    uid = bytes(uid)
    if not 1 <= len(uid) <= 10:
        raise ProtocolError("card UID must be 1..10 bytes")
    return struct.pack(">HB", event & 0xFFFF, len(uid)) + uid


def unpack_card(payload):
    if len(payload) < 4 or len(payload) != 3 + payload[2] or payload[2] > 10:
        raise ProtocolError("CARD payload length does not match its UID length")
    return struct.unpack(">H", payload[:2])[0], bytes(payload[3:])


def unpack_ack(payload):
    if payload != b"" and payload != ACK_GAP:
        raise ProtocolError("ACK payload must be empty or 0x01")
    return payload == ACK_GAP


_PARSERS = {
    MSG_ACK: unpack_ack,
    MSG_IDENTIFY: unpack_identify,
    MSG_IDENTIFY_REPLY: unpack_identify_reply,
    MSG_BOOT: unpack_boot,
    MSG_HEARTBEAT: unpack_heartbeat,
    MSG_ERROR: unpack_error,
    MSG_PING: unpack_ping,
    MSG_PONG: unpack_pong,
    MSG_LED_SET: unpack_led_set,
    MSG_LED_BRIGHTNESS: unpack_brightness,
    MSG_ENCODER: unpack_encoder,
    MSG_BUTTON: unpack_button,
    MSG_CARD: unpack_card,
}


def parse_payload(mtype, payload):
    """The payload of a known type, unpacked; ProtocolError if it does not parse for
    that type; None for a type this version does not know. Both ends call this before
    a frame touches the link state, so a frame that cannot be used is never acknowledged."""
    parse = _PARSERS.get(mtype)
    if parse is None:
        return None
    return parse(payload)


# --- the reliable link --------------------------------------------------------------
class Link:
    """Sequencing, cumulative acknowledgement and go-back-N retransmission for one side.

    Pure state: `send`/`control` return wire bytes for the caller to write, `on_frame`
    digests a decoded frame, `poll` returns the retransmissions that are due. The same
    class runs on the host and on the MCU, so both ends follow one set of rules.
    """

    def __init__(self, window=WINDOW, rto_initial=RTO_INITIAL_MS, rto_min=RTO_MIN_MS,
                 rto_max=RTO_MAX_MS, max_tries=MAX_TRIES):
        self.window = window
        self.rto_initial = rto_initial
        self.rto_min = rto_min
        self.rto_max = rto_max
        self.max_tries = max_tries
        self.sent = 0
        self.retried = 0
        self.duplicates = 0
        self.reset()

    def reset(self):
        """Start a new session; returns the entries that were never acknowledged."""
        old = getattr(self, "unacked", [])
        self.tx_next = 0
        self.rx_expected = 0
        self.unacked = []  # [seq, type, payload, first_sent_ms, tries]
        self.ack_pending = False
        self.failed = False
        self.srtt = -1
        self.rttvar = 0
        self.rto = self.rto_initial
        self.retransmit_at = -1
        self.timeouts = 0  # retransmission rounds in a row without acknowledgement progress
        self.fast_pending = False
        self.gap_pending = False  # a gap report (ACK with ACK_GAP) is owed
        self.gap_seq = -1  # last frame received after a gap, -1 when there is no gap
        return [(e[1], e[2]) for e in old]

    def can_send(self):
        return (not self.failed) and len(self.unacked) < self.window

    def in_flight(self):
        return len(self.unacked)

    def send(self, mtype, payload, now):
        """A reliable frame: sequenced, kept until acknowledged."""
        seq = self.tx_next
        self.tx_next = (seq + 1) & 0xFF
        self.unacked.append([seq, mtype, payload, now, 1])
        if self.retransmit_at < 0:
            self.retransmit_at = now + self.rto
        self.ack_pending = False
        self.sent += 1
        return encode_frame(mtype, seq, self.rx_expected, payload)

    def ack(self):
        """An ACK frame, marked as a gap report if one is owed."""
        gap = self.gap_pending
        self.gap_pending = False
        return self.control(MSG_ACK, ACK_GAP if gap else b"")

    def owes_ack(self):
        """True when the caller should send `ack()` now (a gap report is never left to
        ride on another frame, since only an ACK can carry it)."""
        return self.ack_pending or self.gap_pending

    def control(self, mtype, payload=b""):
        """An unreliable frame (ACK, heartbeat, error, pong): carries the current ack."""
        self.ack_pending = False
        self.sent += 1
        return encode_frame(mtype, self.tx_next, self.rx_expected, payload)

    def on_frame(self, mtype, seq, ack, now, payload=b""):
        """Digest one frame -> (deliver, acked) where acked lists (type, payload) newly
        acknowledged. Duplicates and out-of-order reliable frames are not delivered but
        re-acknowledged, since the ack that covered them may have been lost."""
        acked = []
        if self.unacked:
            count = (ack - self.unacked[0][0]) & 0xFF
            if 1 <= count <= len(self.unacked):
                done = self.unacked[:count]
                del self.unacked[:count]
                self.timeouts = 0
                self.fast_pending = False
                newest = done[-1]
                if newest[4] == 1:  # Karn: only never-retransmitted frames time the path
                    self._sample(now - newest[3])
                else:
                    self.rto = self._base_rto()
                self.retransmit_at = (now + self.rto) if self.unacked else -1
                for entry in done:
                    acked.append((entry[1], entry[2]))
            elif count == 0 and mtype == MSG_ACK and payload == ACK_GAP:
                # The peer received a frame after a gap: our oldest frame was lost. Resend
                # now instead of waiting for the timer (fast retransmit). The peer sends
                # one gap report per round of resent frames, so this cannot snowball.
                self.fast_pending = True
        deliver = False
        if mtype in RELIABLE:
            if seq == self.rx_expected:
                self.rx_expected = (seq + 1) & 0xFF
                self.gap_seq = -1
                self.ack_pending = True
                deliver = True
            else:
                self.duplicates += 1
                behind = (self.rx_expected - seq) & 0xFF
                if 1 <= behind <= 128:
                    self.ack_pending = True  # delivered before: the ACK for it was lost
                else:
                    # After a gap. The first such frame of each round (the sender resends
                    # oldest first, so a round starts where seq stops increasing) is
                    # reported once; the rest of the round would only repeat the news.
                    if self.gap_seq < 0 or not 1 <= ((seq - self.gap_seq) & 0xFF) < 128:
                        self.gap_pending = True
                    self.gap_seq = seq
        return deliver, acked

    def _base_rto(self):
        if self.srtt < 0:
            return self.rto_initial
        return max(self.rto_min, min(self.rto_max, self.srtt + 4 * self.rttvar))

    def seed_rtt(self, rtt):
        """Start the retransmission timer from a round trip measured elsewhere (the
        handshake), so the first lost frame costs a few ms, not RTO_INITIAL_MS."""
        self._sample(int(rtt))

    def _sample(self, rtt):
        # RFC 6298 smoothing in integer milliseconds.
        if self.srtt < 0:
            self.srtt = rtt
            self.rttvar = rtt // 2
        else:
            self.rttvar = (3 * self.rttvar + abs(self.srtt - rtt)) // 4
            self.srtt = (7 * self.srtt + rtt) // 8
        self.rto = self._base_rto()

    def next_deadline(self):
        if not self.unacked:
            return -1
        return 0 if self.fast_pending else self.retransmit_at

    def poll(self, now):
        """Retransmissions due at `now`, go-back-N: the oldest unacked frame and all after
        it, since the receiver discarded everything after a gap. Sets `failed` instead
        once `max_tries - 1` rounds in a row (timer or fast) brought no acknowledgement at
        all (a frame resent behind a gap does not count against itself)."""
        if not self.unacked or self.failed:
            return []
        fast = self.fast_pending
        if not fast and now < self.retransmit_at:
            return []
        self.fast_pending = False
        if self.timeouts >= self.max_tries - 1:
            self.failed = True
            return []
        self.timeouts += 1
        if not fast:
            self.rto = min(self.rto_max, self.rto * 2)
        out = []
        for entry in self.unacked:
            entry[4] += 1
            self.retried += 1
            self.sent += 1
            out.append(encode_frame(entry[1], entry[0], self.rx_expected, entry[2]))
        self.ack_pending = False
        self.retransmit_at = now + self.rto
        return out
