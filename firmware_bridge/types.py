"""Host-side values of the bridge: what the client hands to its callers."""
from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge import protocol as P

PATTERNS = {name: number for number, name in enumerate(P.PATTERN_NAMES)}


@dataclass(frozen=True)
class FieldLight:
    """How one field's LED ring should look; the MCU runs the animation."""

    colour: tuple[int, int, int]
    pattern: str = "solid"

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"unknown LED pattern {self.pattern!r}; one of {', '.join(P.PATTERN_NAMES)}")
        if len(self.colour) != 3 or not all(isinstance(c, int) and 0 <= c <= 255 for c in self.colour):
            raise ValueError(f"LED colour must be three integers 0..255, got {self.colour!r}")

    def wire(self) -> tuple[int, int, int, int]:
        """(pattern, r, g, b) as LED_SET carries it."""
        return (PATTERNS[self.pattern], *self.colour)


OFF_WIRE = (P.PATTERN_OFF, 0, 0, 0)


@dataclass(frozen=True)
class Identity:
    """What the MCU said about itself in the handshake."""

    protocol: int
    firmware: tuple[int, int, int]
    capabilities: tuple[str, ...]
    led_fields: int
    pixels: int
    buttons: int
    window: int
    max_payload: int
    boot_id: int
    name: str

    @property
    def firmware_version(self) -> str:
        return ".".join(str(part) for part in self.firmware)


@dataclass(frozen=True)
class EncoderDelta:
    delta: int  # steps since the previous report, exact across retransmissions
    count: int  # MCU's count since it booted
    at: float  # host monotonic seconds


@dataclass(frozen=True)
class ButtonEvent:
    index: int
    pressed: bool
    mcu_ms: int  # MCU uptime when the edge was seen
    at: float


@dataclass(frozen=True)
class CardScan:
    uid: bytes
    at: float

    @property
    def uid_hex(self) -> str:
        return self.uid.hex(":")


@dataclass(frozen=True)
class McuError:
    code: int
    message: str
    message_type: int
    seq: int
    at: float


@dataclass(frozen=True)
class Counters:
    sent: int = 0  # frames written, retransmissions and acks included
    retried: int = 0  # retransmissions
    dropped: int = 0  # reliable frames abandoned unacknowledged (link reset or given up)
    corrupted: int = 0  # received byte runs rejected by COBS, length or CRC
    received: int = 0  # valid frames received
    rejected: int = 0  # CRC-valid frames whose payload did not parse for their type; not acknowledged
    duplicates: int = 0  # valid reliable frames discarded as repeats or out of order
    superseded: int = 0  # LED states replaced by a newer one before they were all sent
    reconnects: int = 0  # serial port reopened
    resyncs: int = 0  # handshakes after the first (MCU reset, session lost, silence)
    mcu_errors: int = 0  # ERROR frames from the MCU
    events_lost: int = 0  # events discarded because nobody emptied the queue


@dataclass(frozen=True)
class LinkTimings:
    """Host-side timing; tests shorten these, the defaults suit a Pico on USB."""

    window: int = P.WINDOW
    rto_initial_ms: int = P.RTO_INITIAL_MS
    rto_min_ms: int = P.RTO_MIN_MS
    rto_max_ms: int = P.RTO_MAX_MS
    max_tries: int = P.MAX_TRIES
    handshake_timeout_s: float = 0.25
    handshake_tries: int = 4  # then the port is closed and reopened
    silence_timeout_s: float = 1.5  # heartbeats come every 0.25 s
    reconnect_interval_s: float = 0.2
    ping_interval_s: float = 1.0


@dataclass(frozen=True)
class BridgeStatus:
    state: str  # "closed", "opening", "handshake", "up"
    port: str
    identity: Identity | None
    counters: Counters
    rtt_ms: float | None  # last PING round trip
    srtt_ms: int | None  # smoothed ack round trip used for retransmission
    rto_ms: int
    in_flight: int
    mcu_uptime_ms: int | None
    mcu_rx_corrupted: int | None
    last_error: str | None
