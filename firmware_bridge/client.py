"""Host side of the bridge: a pyserial link to the MCU that survives unplugging and resets.

Two threads per client: the link thread owns the connection's life (open, handshake,
retransmit, send LED changes, reopen) and a reader thread per open port turns bytes into
frames. Both touch the shared state only under one lock; callbacks run outside it.

Over 600 lines because the link's state (sequence numbers, unacknowledged frames, the LED
state to resend after a reset) is one lock's worth of state and stays in one class.
"""
from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping

import serial

from firmware_bridge import protocol as P
from firmware_bridge.types import (
    OFF_WIRE,
    BridgeStatus,
    ButtonEvent,
    CardScan,
    Counters,
    EncoderDelta,
    FieldLight,
    Identity,
    LinkTimings,
    McuError,
)

log = logging.getLogger(__name__)

Event = EncoderDelta | ButtonEvent | CardScan | McuError


class BridgeError(Exception):
    """The link could not be brought up; the message says what to do."""


class PortNotFound(BridgeError):
    pass


class NoAnswer(BridgeError):
    pass


# Baud rates worth asking a UART for, checked before any thread starts: a bad rate raised
# inside the link thread would end it with a traceback instead of one line for the user. 4,000,000 is pyserial's highest standard
# rate and above what a Pi's UART reaches. USB CDC ignores the rate.
MIN_BAUD = 50
MAX_BAUD = 4_000_000


def check_port(port: str) -> None:
    """ValueError with a sentence for the user if the port name cannot be a device."""
    if not isinstance(port, str) or not port.strip():
        raise ValueError("the serial port name is empty: give the device path, e.g. /dev/ttyACM0")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in port):
        raise ValueError(f"the serial port name {port!r} contains a control character (NUL or similar): "
                         "give the device path, e.g. /dev/ttyACM0")


def check_baud(baudrate: int) -> None:
    """ValueError with a sentence for the user if the baud rate cannot work."""
    if isinstance(baudrate, bool) or not isinstance(baudrate, int) or not MIN_BAUD <= baudrate <= MAX_BAUD:
        raise ValueError(f"baud rate {baudrate!r} is not a whole number from {MIN_BAUD} to {MAX_BAUD} "
                         "(the MCU's UART uses 921600; USB ignores it)")


# LED entries per frame. The protocol allows 48 (a 250-byte frame), but a frame lost to
# one bad byte must be resent whole and go-back-N resends all behind it, so the host
# starts at 16 (90 bytes, 90 % payload) and halves down to 4 (30 bytes) while frames are
# being resent, doubling back after 64 acknowledgements without a retransmission.
START_CHUNK = 16
MIN_CHUNK = 4


class BridgeClient:
    """One MCU on one serial port.

    `set_leds` is latest-wins: the link sends only the difference between the newest
    wanted state and what the MCU will hold once the frames in flight land, so a burst of
    updates under backpressure collapses into one. Inputs arrive on `events` (a queue) or,
    if `on_event` is given, through that callback on the reader thread.
    """

    def __init__(
        self,
        port: str,
        baudrate: int = 921600,
        *,
        timings: LinkTimings = LinkTimings(),
        on_event: Callable[[Event], None] | None = None,
        event_queue_size: int = 1024,
    ) -> None:
        check_port(port)
        check_baud(baudrate)
        self.port = port
        self.baudrate = baudrate
        self.timings = timings
        self.on_event = on_event
        self.events: queue.Queue[Event] = queue.Queue(maxsize=event_queue_size)
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._link = P.Link(timings.window, timings.rto_initial_ms, timings.rto_min_ms,
                            timings.rto_max_ms, timings.max_tries)
        self._decoder = P.FrameDecoder()
        self._serial: serial.Serial | None = None
        self._reader: threading.Thread | None = None
        self._thread: threading.Thread | None = None
        self._closing = False
        self._state = "closed"
        self._identity: Identity | None = None
        self._session = 0
        self._handshake_deadline = 0.0
        self._handshake_tries = 0
        self._identify_sent = 0.0
        self._last_rx = 0.0
        self._last_error: str | None = None
        self._open_error: str | None = None
        # LED state: wanted, and what the MCU's staging table holds once in-flight frames land.
        self._desired: dict[int, tuple[int, int, int, int]] = {}
        self._projected: dict[int, tuple[int, int, int, int]] | None = None
        self._uncommitted = False
        self._led_dirty = False  # the MCU's table may differ from the wanted one
        self._request_unsent = False  # a set_leds state not yet fully on the wire
        self._chunk = START_CHUNK
        self._clean_acks = 0
        self._brightness: int | None = None
        self._brightness_sent: int | None = None
        # Encoder and events: exactness across retransmission and session changes.
        self._last_count: tuple[int, int] | None = None  # (boot_id, count)
        self._last_event: tuple[int, int] | None = None  # (boot_id, event number)
        # Round trips.
        self._ping_nonce = 0
        self._pings: dict[int, float] = {}
        self._pongs: dict[int, float] = {}  # answers to ping() calls still waiting
        self._awaited: set[int] = set()
        self._rtt_ms: float | None = None
        self._next_ping = 0.0
        self._mcu_uptime: int | None = None
        self._mcu_corrupted: int | None = None
        self._c = {name: 0 for name in ("raw_sent", "dropped", "superseded", "resyncs",
                                         "mcu_errors", "events_lost", "opens", "rejected",
                                         "old_protocol")}
        self._old_protocol_at_open = 0

    # --- public API -----------------------------------------------------------------
    def connect(self, timeout: float = 3.0, wait: bool = True) -> Identity | None:
        """Start the link. With `wait`, block until the MCU has identified itself, or
        raise PortNotFound / NoAnswer (and stop) after `timeout` seconds. A port that does
        not exist at all fails at once; `wait=False` keeps trying in the background
        instead, for a service that starts before the MCU is plugged in."""
        if wait and not os.path.exists(self.port):
            raise PortNotFound(f"serial port {self.port} not found: plug the MCU in "
                               "or check the port's name")
        with self._lock:
            if self._thread is None:
                self._closing = False
                self._state = "opening"
                self._thread = threading.Thread(target=self._run, name="bridge-link", daemon=True)
                self._thread.start()
        if not wait:
            return None
        if self.wait_up(timeout):
            return self._identity
        with self._lock:
            open_error = self._open_error
            last_error = self._last_error
        self.close()
        if open_error:
            raise (BridgeError if os.path.exists(self.port) else PortNotFound)(open_error)
        raise NoAnswer(
            f"no answer from an MCU on {self.port} within {timeout:g} s"
            + (f" ({last_error})" if last_error else "")
            + ": check that the dogtable firmware is flashed and the port is right"
        )

    def wait_up(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._wake:
            while self._state != "up":
                left = deadline - time.monotonic()
                if left <= 0 or self._closing:
                    return False
                self._wake.wait(left)
            return True

    @property
    def identity(self) -> Identity | None:
        return self._identity

    @property
    def state(self) -> str:
        return self._state

    def set_leds(self, fields: Mapping[int, FieldLight]) -> None:
        """Make exactly these fields lit (all others off). Returns at once; latest wins."""
        wanted: dict[int, tuple[int, int, int, int]] = {}
        limit = self._identity.led_fields if self._identity else 256
        for index, light in fields.items():
            if not 0 <= index < min(limit, 256):
                raise ValueError(f"LED field index {index} outside 0..{min(limit, 256) - 1}")
            wire = light.wire()
            if wire[0] != P.PATTERN_OFF:
                wanted[index] = wire
        with self._wake:
            if self._request_unsent:
                self._c["superseded"] += 1
            self._desired = wanted
            self._request_unsent = True
            self._led_dirty = True
            self._wake.notify_all()

    def set_brightness(self, level: int) -> None:
        if not 0 <= level <= 255:
            raise ValueError("brightness must be 0..255")
        with self._wake:
            self._brightness = level
            self._wake.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """True once the newest LED state is on the MCU and acknowledged."""
        deadline = time.monotonic() + timeout
        with self._wake:
            while not (self._state == "up" and not self._led_dirty and self._link.in_flight() == 0
                       and self._brightness_sent == self._brightness):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._wake.wait(min(left, 0.05))
            return True

    def ping(self, timeout: float = 1.0) -> float | None:
        """Round trip of one PING to its PONG in milliseconds, or None on timeout."""
        with self._wake:
            nonce = self._queue_ping()
            self._awaited.add(nonce)
            deadline = time.monotonic() + timeout
            while nonce not in self._pongs:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._pings.pop(nonce, None)
                    self._awaited.discard(nonce)
                    return None
                self._wake.wait(left)
            self._awaited.discard(nonce)
            return self._pongs.pop(nonce)

    @property
    def counters(self) -> Counters:
        with self._lock:
            return Counters(
                sent=self._link.sent + self._c["raw_sent"],
                retried=self._link.retried,
                dropped=self._c["dropped"],
                corrupted=self._decoder.corrupted,
                received=self._decoder.received,
                rejected=self._c["rejected"],
                duplicates=self._link.duplicates,
                superseded=self._c["superseded"],
                reconnects=max(0, self._c["opens"] - 1),
                resyncs=self._c["resyncs"],
                mcu_errors=self._c["mcu_errors"],
                events_lost=self._c["events_lost"],
            )

    def status(self) -> BridgeStatus:
        with self._lock:
            return BridgeStatus(
                state=self._state,
                port=self.port,
                identity=self._identity,
                counters=self.counters,
                rtt_ms=self._rtt_ms,
                srtt_ms=self._link.srtt if self._link.srtt >= 0 else None,
                rto_ms=self._link.rto,
                in_flight=self._link.in_flight(),
                mcu_uptime_ms=self._mcu_uptime,
                mcu_rx_corrupted=self._mcu_corrupted,
                last_error=self._last_error,
            )

    def close(self) -> None:
        with self._wake:
            self._closing = True
            self._wake.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)
        with self._lock:
            self._close_port()
            self._thread = None
            self._state = "closed"

    def __enter__(self) -> BridgeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- link thread ----------------------------------------------------------------
    def _run(self) -> None:
        t = self.timings
        next_open = 0.0
        with self._wake:
            while not self._closing:
                now = time.monotonic()
                if self._serial is None:
                    if now >= next_open:
                        self._open()
                        next_open = now + t.reconnect_interval_s
                    if self._serial is None:
                        self._wake.wait(max(0.0, next_open - time.monotonic()))
                        continue
                wait = 0.05
                if self._state == "handshake":
                    if now >= self._handshake_deadline:
                        if self._handshake_tries >= t.handshake_tries:
                            if self._c["old_protocol"] == self._old_protocol_at_open:
                                # an MCU heard speaking protocol v1 on this port keeps that diagnosis
                                self._last_error = "MCU did not answer the handshake"
                            log.warning("no handshake answer on %s; reopening the port", self.port)
                            self._close_port()
                            continue
                        self._send_identify(now)
                    wait = max(0.0, self._handshake_deadline - now)
                elif self._state == "up":
                    wait = self._service(now)
                self._wake.wait(min(wait, 0.05))
            self._close_port()

    def _open(self) -> None:
        self._state = "opening"
        try:
            port = serial.Serial(self.port, self.baudrate, timeout=0.05, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as exc:
            # ValueError: settings the driver refuses; reported like any failed open, the
            # link thread carries on trying.
            if not os.path.exists(self.port):
                self._open_error = (f"serial port {self.port} not found: plug the MCU in "
                                    "or check the port's name")
            elif "Permission denied" in str(exc):
                self._open_error = (f"no permission to open {self.port}: add the user to the "
                                    "'dialout' group (sudo usermod -aG dialout $USER) and log in again")
            else:
                self._open_error = f"cannot open {self.port}: {exc}"
            self._last_error = self._open_error
            return
        self._open_error = None
        self._c["opens"] += 1
        self._old_protocol_at_open = self._c["old_protocol"]
        port.reset_input_buffer()
        self._serial = port
        self._decoder = _carry_counts(self._decoder)
        self._reader = threading.Thread(target=self._read_loop, args=(port,), name="bridge-reader",
                                        daemon=True)
        self._reader.start()
        self._start_handshake()

    def _close_port(self) -> None:
        port, self._serial = self._serial, None
        if port is not None:
            try:
                port.cancel_read()
            except Exception:  # a vanished device may refuse even this; it is closing anyway
                pass
            try:
                port.close()
            except Exception:
                pass
        reader = self._reader
        self._reader = None
        if reader is not None and reader is not threading.current_thread():
            self._lock.release()
            try:
                reader.join(timeout=1.0)
            finally:
                self._lock.acquire()
        if self._state == "up":
            self._abandon_in_flight()
        if not self._closing:
            self._state = "opening"
        self._wake.notify_all()

    def _write(self, data: bytes) -> None:
        if self._serial is None or not data:
            return
        try:
            self._serial.write(data)
        except (serial.SerialException, OSError) as exc:
            self._last_error = f"write failed: {exc}"
            log.warning("write to %s failed (%s); reconnecting", self.port, exc)
            self._close_port()

    def _start_handshake(self) -> None:
        if self._state == "up":
            self._abandon_in_flight()
        self._state = "handshake"
        self._handshake_tries = 0
        self._handshake_deadline = 0.0
        self._session = int.from_bytes(os.urandom(2), "big") or 1
        self._wake.notify_all()

    def _send_identify(self, now: float) -> None:
        self._handshake_tries += 1
        self._handshake_deadline = now + self.timings.handshake_timeout_s
        self._identify_sent = now
        # The leading 0x00 ends whatever partial frame the MCU may be holding.
        self._c["raw_sent"] += 1
        self._write(P.DELIMITER + P.encode_frame(P.MSG_IDENTIFY, 0, 0, P.pack_identify(self._session)))

    def _abandon_in_flight(self) -> None:
        self._c["dropped"] += len(self._link.reset())
        self._chunk = MIN_CHUNK  # whatever killed the session may still be there
        self._projected = None  # unknown: the next LED frame starts with CLEAR
        self._uncommitted = False
        self._led_dirty = True
        self._brightness_sent = None
        self._pings.clear()

    def _resync(self, why: str) -> None:
        log.info("resynchronising with the MCU: %s", why)
        self._last_error = why
        self._c["resyncs"] += 1
        self._start_handshake()

    def _service(self, now: float) -> float:
        """Retransmit, notice a dead link, fill the window; returns seconds to sleep."""
        t = self.timings
        link = self._link
        now_ms = int(now * 1000)
        resent = link.poll(now_ms)
        if resent:
            self._chunk = max(MIN_CHUNK, self._chunk // 2)
            self._clean_acks = 0
        for frame in resent:
            self._write(frame)
        if self._state != "up":
            return 0.0
        if link.failed:
            self._resync(f"no acknowledgement after {t.max_tries} tries")
            return 0.0
        if now - self._last_rx > t.silence_timeout_s:
            self._resync(f"MCU silent for {t.silence_timeout_s:g} s")
            return 0.0
        if self._brightness is not None and self._brightness != self._brightness_sent and link.can_send():
            self._write(link.send(P.MSG_LED_BRIGHTNESS, P.pack_brightness(self._brightness), now_ms))
            self._brightness_sent = self._brightness
        if self._led_dirty:
            self._send_led_diff(now_ms)
        if now >= self._next_ping and link.can_send():
            self._queue_ping()
        if self._pings:
            for nonce, sent in list(self._pings.items()):
                if sent and now - sent > 10.0:  # its PONG was lost; PONG is not retransmitted
                    del self._pings[nonce]
                if sent == 0.0 and link.can_send():
                    self._pings[nonce] = time.monotonic()
                    self._write(link.send(P.MSG_PING, P.pack_ping(nonce), now_ms))
        if link.owes_ack():
            self._write(link.ack())
        self._wake.notify_all()
        deadline = link.next_deadline()
        waits = [self._last_rx + t.silence_timeout_s - now, self._next_ping - now]
        if deadline >= 0:
            waits.append((deadline - now_ms) / 1000)
        return max(0.001, min(waits))

    def _queue_ping(self) -> int:
        self._ping_nonce = (self._ping_nonce + 1) & 0xFFFFFFFF
        self._pings[self._ping_nonce] = 0.0  # 0.0: not yet sent
        self._next_ping = time.monotonic() + self.timings.ping_interval_s
        self._wake.notify_all()
        return self._ping_nonce

    def _send_led_diff(self, now_ms: int) -> None:
        link = self._link
        clear = self._projected is None
        projected = {} if clear else self._projected
        changes = [
            (index, *wire)
            for index in sorted(set(self._desired) | set(projected))
            if (wire := self._desired.get(index, OFF_WIRE)) != projected.get(index, OFF_WIRE)
        ]
        if clear:  # CLEAR already turns everything off: send only what is lit
            changes = [c for c in changes if c[1] != P.PATTERN_OFF]
        if not changes and not clear and not self._uncommitted:
            self._led_dirty = self._request_unsent = False
            return
        while link.can_send():
            chunk = changes[: self._chunk]
            changes = changes[self._chunk:]
            flags = (P.LED_FLAG_CLEAR if clear else 0) | (0 if changes else P.LED_FLAG_COMMIT)
            self._write(link.send(P.MSG_LED_SET, P.pack_led_set(flags, chunk), now_ms))
            if self._state != "up":
                return
            if clear:
                projected = {}
                clear = False
            for index, *wire in chunk:
                if wire[0] == P.PATTERN_OFF:
                    projected.pop(index, None)
                else:
                    projected[index] = tuple(wire)
            self._projected = projected
            if not changes:
                self._uncommitted = False
                self._led_dirty = self._request_unsent = False
                return
            self._uncommitted = True

    # --- reader thread --------------------------------------------------------------
    def _read_loop(self, port: serial.Serial) -> None:
        while True:
            try:
                data = port.read(max(1, port.in_waiting))
            except Exception as exc:
                # SerialException/OSError: the device went away; TypeError/AttributeError:
                # pyserial's state after a close from another thread; anything else is
                # handled the same way (reopen) rather than ending the reader unseen.
                with self._wake:
                    if self._serial is port:
                        self._last_error = f"port lost: {exc}"
                        log.warning("lost %s (%s); will reconnect", self.port, exc)
                        self._close_port()
                return
            if not port.is_open:
                return
            if not data:
                continue
            events: list[Event] = []
            with self._wake:
                if self._serial is not port:
                    return
                for frame in self._decoder.feed(data):
                    try:
                        self._handle(frame, events)
                    except Exception:  # a bug in one handler must not end the reader
                        self._c["rejected"] += 1
                        self._last_error = f"internal error on a {P.MESSAGE_NAMES.get(frame[0], frame[0])} frame"
                        log.exception("bridge: handling a frame from %s failed", self.port)
                if self._decoder.last_legacy is not None:
                    self._decoder.last_legacy = None
                    self._on_old_protocol()
                self._wake.notify_all()
            for event in events:
                self._emit(event)

    def _emit(self, event: Event) -> None:
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # a caller's bug must not kill the link
                log.exception("bridge event callback failed")
            return
        try:
            self.events.put_nowait(event)
        except queue.Full:
            with self._lock:
                self._c["events_lost"] += 1

    def _handle(self, frame: tuple[int, int, int, bytes], events: list[Event]) -> None:
        mtype, seq, ack, payload = frame
        now = time.monotonic()
        try:
            value = P.parse_payload(mtype, payload)
        except P.ProtocolError as exc:
            # Checked before the link sees the frame: a reliable one is not acknowledged,
            # so the MCU resends it; nothing it carried is taken, not even its ack field.
            self._reject(f"bad {P.MESSAGE_NAMES.get(mtype, mtype)} payload: {exc}")
            return
        self._last_rx = now
        if mtype == P.MSG_IDENTIFY_REPLY:
            self._on_identify_reply(value)
            return
        if mtype == P.MSG_BOOT:
            boot_id, _reason = value
            if self._state == "up" and self._identity and boot_id != self._identity.boot_id:
                self._resync("MCU restarted")
            return
        if mtype == P.MSG_HEARTBEAT:
            session, boot_id, uptime, corrupted, _flags = value
            self._mcu_uptime, self._mcu_corrupted = uptime, corrupted
            if self._state == "up" and session != self._session:
                self._resync("MCU lost the session")
                return
        if mtype == P.MSG_ERROR:
            code, etype, eseq, session = value
            self._c["mcu_errors"] += 1
            message = P.ERROR_NAMES.get(code, f"error {code}")
            events.append(McuError(code, message, etype, eseq, now))
            if code in (P.ERR_BAD_PAYLOAD, P.ERR_INTERNAL, P.ERR_PROTOCOL_VERSION):  # a bug or a mismatch
                log.warning("MCU reports: %s (%s seq %d)", message, P.MESSAGE_NAMES.get(etype, etype), eseq)
            if code == P.ERR_PROTOCOL_VERSION:
                self._last_error = "MCU firmware speaks another protocol version: flash matching firmware"
            elif code == P.ERR_BAD_PAYLOAD:
                self._last_error = (f"MCU refused a {P.MESSAGE_NAMES.get(etype, etype)} frame as malformed; "
                                    "it is being resent")
            if self._state == "up" and session != self._session:
                self._resync(f"MCU: {message}")
                return
        if self._state != "up" or mtype in P.SESSION or mtype == P.MSG_BOOT:
            return
        deliver, acked = self._link.on_frame(mtype, seq, ack, int(now * 1000), payload)
        if acked and self._chunk < START_CHUNK:
            self._clean_acks += len(acked)
            if self._clean_acks >= 64:
                self._chunk = min(START_CHUNK, self._chunk * 2)
                self._clean_acks = 0
        if mtype == P.MSG_PONG:
            nonce, _uptime = value
            sent = self._pings.pop(nonce, None)
            if sent:
                self._rtt_ms = (now - sent) * 1000
                if nonce in self._awaited:
                    self._pongs[nonce] = self._rtt_ms
            return
        if not deliver:
            return
        boot_id = self._identity.boot_id if self._identity else -1
        if mtype == P.MSG_ENCODER:
            count, delta = value
            if self._last_count and self._last_count[0] == boot_id:
                delta = count - self._last_count[1]  # exact even if a report was resent
            self._last_count = (boot_id, count)
            if delta:
                events.append(EncoderDelta(delta, count, now))
        elif mtype in (P.MSG_BUTTON, P.MSG_CARD):
            number = value[0]
            last = self._last_event
            if last and last[0] == boot_id:
                ahead = (number - last[1]) & 0xFFFF
                if ahead == 0 or ahead >= 0x8000:
                    return  # re-sent after a session change: already delivered
            self._last_event = (boot_id, number)
            if mtype == P.MSG_BUTTON:
                _n, index, pressed, mcu_ms = value
                events.append(ButtonEvent(index, bool(pressed), mcu_ms, now))
            else:
                events.append(CardScan(value[1], now))

    def _reject(self, why: str) -> None:
        """A frame that passed the CRC but cannot be used: logged and counted, no more."""
        self._c["rejected"] += 1
        self._last_error = why
        log.warning("frame from %s rejected: %s", self.port, why)

    def _on_old_protocol(self) -> None:
        """The MCU sent a frame of protocol version 1 (docs/protocol.md, section 14)."""
        if self._state == "up":
            return  # a stray match in line noise; the session works, so the MCU is current
        self._last_error = (f"the MCU speaks protocol v1 (older firmware), this host v{P.PROTOCOL_VERSION}: "
                            "flash the firmware from this dogtable version")
        if self._c["old_protocol"] == 0:
            log.warning("%s: %s", self.port, self._last_error)
        self._c["old_protocol"] += 1

    def _on_identify_reply(self, reply: tuple) -> None:
        if self._state != "handshake":
            return
        (protocol, firmware, caps, fields, pixels, buttons, window, max_payload, session,
         boot_id, name) = reply
        if session != self._session:
            return  # an answer to an older IDENTIFY
        if protocol != P.PROTOCOL_VERSION:
            self._last_error = (f"MCU firmware speaks protocol v{protocol}, this host v{P.PROTOCOL_VERSION}: "
                                "flash the firmware from this dogtable version")
            return
        self._identity = Identity(
            protocol=protocol,
            firmware=tuple(firmware),
            capabilities=tuple(n for bit, n in P.CAPABILITY_NAMES if caps & bit),
            led_fields=fields,
            pixels=pixels,
            buttons=buttons,
            window=window,
            max_payload=max_payload,
            boot_id=boot_id,
            name=name.decode("utf-8", "replace"),
        )
        self._link.reset()
        self._link.seed_rtt((time.monotonic() - self._identify_sent) * 1000)
        self._link.window = min(self.timings.window, window)
        self._projected = None
        self._led_dirty = True
        self._uncommitted = False
        self._brightness_sent = None
        self._state = "up"
        self._last_error = None
        self._next_ping = time.monotonic() + self.timings.ping_interval_s
        self._wake.notify_all()


def _carry_counts(old: P.FrameDecoder) -> P.FrameDecoder:
    """A fresh decoder for a new port (no half frame from the old one), same counters."""
    new = P.FrameDecoder()
    new.corrupted, new.received = old.corrupted, old.received
    return new
