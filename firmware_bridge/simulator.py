"""A simulated MCU on a real pseudo-terminal, with fault injection.

It runs the firmware's own `Device` class, so the host talks to the same protocol code as
on the Pico. The host opens `sim.port`, a symlink that `vanish()` removes and `reappear()`
re-points at a fresh pty, so reconnecting is exercised through the real kernel paths.
Fault decisions come from one seeded generator: a run's faults are the same every time.
"""
from __future__ import annotations

import errno
import logging
import os
import random
import select
import tempfile
import threading
import time
import tty
from dataclasses import dataclass, field

from firmware_bridge import protocol as P
from firmware_bridge.firmware.device import BOOT_POWER_ON, BOOT_SOFT, Device

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Faults:
    """Per-byte fault probabilities, applied in both directions."""

    drop: float = 0.0
    corrupt: float = 0.0  # replace the byte with a different random byte
    burst: float = 0.0  # flip a burst of 2..16 bits starting in this byte (noise on the line)
    delay: float = 0.0  # stall the byte stream from here on for `delay_s`
    delay_s: float = 0.05
    seed: int = 0

    @property
    def any(self) -> bool:
        return bool(self.drop or self.corrupt or self.delay or self.burst)


@dataclass
class SimStats:
    dropped: int = 0
    corrupted: int = 0
    bursts: int = 0
    injected: int = 0  # frames and byte runs put on the line by inject_* calls
    delayed: int = 0
    resets: int = 0
    vanished: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    commits: list[tuple[float, bytes]] = field(default_factory=list)
    delivered: list[tuple[int, int, int]] = field(default_factory=list)  # (session, seq, type)


def default_ledmap(fields: int, per_field: int = 12) -> list[tuple[int, int]]:
    return [(i * per_field, per_field) for i in range(fields)]


class _Stream:
    """One direction of bytes through the fault injector."""

    def __init__(self, faults: Faults, rng: random.Random, stats: SimStats) -> None:
        self.faults = faults
        self.rng = rng
        self.stats = stats
        self.pending = bytearray()
        self.stall_until = 0.0

    def push(self, data: bytes, now: float) -> None:
        f = self.faults
        if not f.any:
            self.pending += data
            return
        rng = self.rng
        if f.burst:
            data = self._bursts(data)
        for byte in data:
            roll = rng.random()
            if roll < f.drop:
                self.stats.dropped += 1
                continue
            roll -= f.drop
            if roll < f.corrupt:
                self.stats.corrupted += 1
                byte = (byte + rng.randrange(1, 256)) & 0xFF
            elif roll - f.corrupt < f.delay:
                self.stats.delayed += 1
                self.stall_until = max(self.stall_until, now + f.delay_s)
            self.pending.append(byte)

    def _bursts(self, data: bytes) -> bytes:
        out = bytearray(data)
        for at in range(len(out)):
            if self.rng.random() < self.faults.burst:
                self.stats.bursts += 1
                first = at * 8 + self.rng.randrange(8)
                last = min(first + self.rng.randrange(1, 16), len(out) * 8 - 1)
                for bit in range(first, last + 1):
                    if bit in (first, last) or self.rng.random() < 0.5:
                        out[bit >> 3] ^= 0x80 >> (bit & 7)
        return bytes(out)

    def take(self, now: float) -> bytes:
        if now < self.stall_until or not self.pending:
            return b""
        data, self.pending = bytes(self.pending), bytearray()
        return data


class SimulatedMCU:
    """An MCU speaking the bridge protocol over a pty, driven by one thread."""

    def __init__(
        self,
        fields: int = 64,
        *,
        buttons: int = 4,
        rfid: bool = True,
        faults: Faults = Faults(),
        port: str | None = None,
        name: str = "dogtable-sim",
        tick_s: float = 0.002,
    ) -> None:
        self.fields = fields
        self.buttons = buttons
        self.rfid = rfid
        self.faults = faults
        self.name = name
        self.tick_s = tick_s
        self._rng = random.Random(faults.seed)
        self._boot_rng = random.Random(faults.seed ^ 0x5EED)
        self.stats = SimStats()
        self._tmpdir: str | None = None
        if port is None:
            self._tmpdir = tempfile.mkdtemp(prefix="dogtable-sim-")
            port = os.path.join(self._tmpdir, "ttyDOG0")
        self.port = port
        self._lock = threading.RLock()
        self._master: int | None = None
        self._slave: int | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._encoder = 0
        self._muted = False
        self._started = time.monotonic()
        self._to_host = _Stream(faults, self._rng, self.stats)
        self._from_host = _Stream(faults, self._rng, self.stats)
        self.device = self._new_device(BOOT_POWER_ON)

    # --- lifecycle ------------------------------------------------------------------
    def start(self) -> SimulatedMCU:
        self._open_pty()
        self._thread = threading.Thread(target=self._run, name="sim-mcu", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        with self._lock:
            self._close_pty()
        if self._tmpdir:
            try:
                os.rmdir(self._tmpdir)
            except OSError:
                pass

    def __enter__(self) -> SimulatedMCU:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- faults and inputs ----------------------------------------------------------
    def reset(self) -> None:
        """Reboot the MCU: LED table, session and pending events are gone."""
        with self._lock:
            self.stats.resets += 1
            self._to_host.pending.clear()
            self.device = self._new_device(BOOT_SOFT)

    def vanish(self) -> None:
        """The USB device goes away: the pty closes and the path the host uses is gone."""
        with self._lock:
            self.stats.vanished += 1
            self._close_pty()

    def reappear(self, reset: bool = True) -> None:
        """The device comes back on a fresh pty behind the same path; by default it
        rebooted on the way, as a Pico does when its USB cable is replugged."""
        with self._lock:
            if reset:
                self.reset()
            self._open_pty()

    def mute(self, muted: bool = True) -> None:
        """The MCU hangs as far as the host can tell: its output is thrown away while
        it keeps counting and queueing events, like firmware stuck in a long loop."""
        with self._lock:
            self._muted = muted

    def spin(self, steps: int) -> None:
        with self._lock:
            self._encoder += steps

    def press(self, index: int, pressed: bool = True) -> None:
        with self._lock:
            self.device.button(index, pressed, self._ms())

    def scan(self, uid: bytes) -> None:
        with self._lock:
            self.device.card(uid)

    def inject_to_host(self, data: bytes) -> None:
        """Put bytes on the line to the host as they are (garbage, an old-format frame)."""
        with self._lock:
            self.stats.injected += 1
            self._to_host.pending += data

    def send_malformed(self, mtype: int, payload: bytes) -> None:
        """A frame with a valid CRC but a payload wrong for its type, numbered as the
        MCU's next reliable frame and carrying its current ack, as buggy firmware would
        send it. The MCU's own next frame gets the same number: if the host took the bad
        one, it would discard the good one as a duplicate."""
        with self._lock:
            link = self.device.link
            self.inject_to_host(P.encode_frame(mtype, link.tx_next, link.rx_expected, payload))

    def inject_from_host(self, data: bytes) -> None:
        """Bytes arriving at the MCU as if the host had written them: they are written
        to the pty's host end, so they come through the kernel like the host's own."""
        with self._lock:
            if self._slave is None:
                raise RuntimeError("the simulated port is not open")
            self.stats.injected += 1
            os.write(self._slave, data)

    def shown(self) -> dict[int, tuple[int, int, int, int]]:
        """The LED table on display: field -> (pattern, r, g, b), lit fields only."""
        with self._lock:
            return table_of(bytes(self.device.shown))

    # --- internals ------------------------------------------------------------------
    def _ms(self) -> int:
        return int((time.monotonic() - self._started) * 1000)

    def _new_device(self, reason: int) -> Device:
        caps = P.CAP_LEDS | P.CAP_ENCODER | (P.CAP_BUTTONS if self.buttons else 0) | (
            P.CAP_RFID if self.rfid else 0)
        device = Device(default_ledmap(self.fields), buttons=self.buttons, capabilities=caps,
                        boot_id=self._boot_rng.randrange(1, 0x10000), name=self.name,
                        now=self._ms(), reason=reason)
        device.set_encoder_count(0)
        self._encoder = 0
        device.on_commit = lambda shown: self.stats.commits.append((time.monotonic(), shown))
        device.on_deliver = lambda mtype, seq, _p: self.stats.delivered.append((device.session, seq, mtype))
        return device

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline: bytes pass untouched
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.port + ".new"
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)

    def _close_pty(self) -> None:
        try:
            os.unlink(self.port)
        except FileNotFoundError:
            pass
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        self._from_host.pending.clear()
        self._to_host.pending.clear()

    def _run(self) -> None:
        while not self._stop.is_set():
            master = self._master
            if master is None:
                time.sleep(self.tick_s)
                self._tick_device()
                continue
            try:
                ready, _, _ = select.select([master], [], [], self.tick_s)
            except (OSError, ValueError):
                continue  # closed under us by vanish()
            with self._lock:
                if master != self._master:
                    continue
                now = time.monotonic()
                if ready:
                    try:
                        data = os.read(master, 4096)
                    except OSError as exc:
                        if exc.errno not in (errno.EAGAIN, errno.EIO):
                            raise
                        data = b""
                    self.stats.bytes_in += len(data)
                    self._from_host.push(data, now)
                incoming = self._from_host.take(now)
                if incoming:
                    self.device.receive(incoming, self._ms())
                self._tick_device()
                self._flush(master, now)

    def _tick_device(self) -> None:
        with self._lock:
            self.device.set_encoder_count(self._encoder)
            self.device.tick(self._ms())
            out = self.device.take_output()
            if out and self._master is not None and not self._muted:
                self._to_host.push(out, time.monotonic())

    def _flush(self, master: int, now: float) -> None:
        data = self._to_host.take(now)
        while data:
            try:
                written = os.write(master, data)
            except BlockingIOError:
                written = len(data)  # host not reading: a UART would overrun the same way
            except OSError:
                return
            self.stats.bytes_out += written
            data = data[written:]


def table_of(shown: bytes) -> dict[int, tuple[int, int, int, int]]:
    """Decode a Device LED table into field -> (pattern, r, g, b), lit fields only."""
    return {
        i // 4: (shown[i], shown[i + 1], shown[i + 2], shown[i + 3])
        for i in range(0, len(shown), 4)
        if shown[i]
    }
