"""RP2040 hardware for the DOG table MCU: WS2812 rings on PIO, the disc's quadrature
encoder on pin interrupts, debounced buttons, an MFRC522 card reader on SPI.

MicroPython only (imports machine and rp2); everything protocol-related lives in
protocol.py and device.py, which the host tests under CPython.
"""
import array
import time

import machine
import micropython
import rp2
from micropython import const


# --- WS2812 -------------------------------------------------------------------------
@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT, autopull=True, pull_thresh=24)
def _ws2812():
    # 800 kHz NZR: 10 PIO cycles per bit at 8 MHz, high 2 (zero) or 7 (one) of them.
    wrap_target()
    label("bitloop")
    out(x, 1).side(0)[2]
    jmp(not_x, "do_zero").side(1)[1]
    jmp("bitloop").side(1)[4]
    label("do_zero")
    nop().side(0)[4]
    wrap()


class WS2812:
    """A chain of WS2812 pixels driven by a PIO state machine, so the CPU is free (and
    interrupts stay on) while a frame goes out: the encoder never misses an edge."""

    def __init__(self, pin, pixels, sm_id=0):
        self.pixels = pixels
        self.words = array.array("I", [0] * pixels)
        self.sm = rp2.StateMachine(sm_id, _ws2812, freq=8_000_000, sideset_base=machine.Pin(pin))
        self.sm.active(1)

    def show(self, grb):
        """grb: 3 bytes per pixel, as Device.render fills it."""
        _pack(grb, self.words, self.pixels)
        self.sm.put(self.words, 8)


@micropython.viper
def _pack(grb, words, n: int):
    src = ptr8(grb)
    dst = ptr32(words)
    for i in range(n):
        j = 3 * i
        dst[i] = (src[j] << 16) | (src[j + 1] << 8) | src[j + 2]


# --- quadrature encoder -------------------------------------------------------------
# Index: previous state (2 bits) << 2 | new state (2 bits) -> step. Invalid jumps (both
# pins changed at once) count 0: at worst one step is lost, never a wrong direction.
_TRANSITIONS = array.array("b", [0, -1, 1, 0, 1, 0, 0, -1, -1, 0, 0, 1, 0, 1, -1, 0])


class Quadrature:
    """Counts every edge of both channels in a hard interrupt: a hand-spun disc gives a
    few thousand edges a second at most, far below what the RP2040 serves."""

    def __init__(self, pin_a, pin_b):
        self.a = machine.Pin(pin_a, machine.Pin.IN, machine.Pin.PULL_UP)
        self.b = machine.Pin(pin_b, machine.Pin.IN, machine.Pin.PULL_UP)
        self.state = (self.a.value() << 1) | self.b.value()
        self.count = 0
        trigger = machine.Pin.IRQ_RISING | machine.Pin.IRQ_FALLING
        self.a.irq(self._edge, trigger, hard=True)
        self.b.irq(self._edge, trigger, hard=True)

    def _edge(self, _pin):
        new = (self.a.value() << 1) | self.b.value()
        self.count += _TRANSITIONS[(self.state << 2) | new]
        self.state = new


# --- buttons ------------------------------------------------------------------------
class Buttons:
    """Polled with a 20 ms debounce; active low with the internal pull-ups."""

    DEBOUNCE_MS = const(20)

    def __init__(self, pins):
        self.pins = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in pins]
        self.stable = [p.value() == 0 for p in self.pins]
        self.since = [0] * len(self.pins)

    def poll(self, now):
        """-> list of (index, pressed) for edges that stayed put for DEBOUNCE_MS."""
        edges = []
        for i, pin in enumerate(self.pins):
            pressed = pin.value() == 0
            if pressed == self.stable[i]:
                self.since[i] = now
            elif now - self.since[i] >= self.DEBOUNCE_MS:
                self.stable[i] = pressed
                self.since[i] = now
                edges.append((i, pressed))
        return edges


# --- MFRC522 ------------------------------------------------------------------------
_CMD_IDLE = const(0x00)
_CMD_TRANSCEIVE = const(0x0C)
_CMD_SOFT_RESET = const(0x0F)
_REG_COMMAND = const(0x01)
_REG_COM_IRQ = const(0x04)
_REG_ERROR = const(0x06)
_REG_FIFO_DATA = const(0x09)
_REG_FIFO_LEVEL = const(0x0A)
_REG_BIT_FRAMING = const(0x0D)
_REG_COLL = const(0x0E)
_REG_MODE = const(0x11)
_REG_TX_CONTROL = const(0x14)
_REG_TX_ASK = const(0x15)
_REG_T_MODE = const(0x2A)
_REG_T_PRESCALER = const(0x2B)
_REG_T_RELOAD_H = const(0x2C)
_REG_T_RELOAD_L = const(0x2D)
_PICC_REQA = const(0x26)
_PICC_CASCADE = (0x93, 0x95, 0x97)


class MFRC522:
    """Just enough of the MFRC522 to read the UID of an ISO 14443-A card or sticker
    (4, 7 or 10 bytes): request, anticollision and select per cascade level."""

    def __init__(self, spi_id, sck, mosi, miso, cs, rst):
        self.spi = machine.SPI(spi_id, baudrate=1_000_000, polarity=0, phase=0,
                               sck=machine.Pin(sck), mosi=machine.Pin(mosi), miso=machine.Pin(miso))
        self.cs = machine.Pin(cs, machine.Pin.OUT, value=1)
        self.rst = machine.Pin(rst, machine.Pin.OUT, value=1)
        self._buf = bytearray(2)
        self.reset()

    def _write(self, reg, value):
        self.cs(0)
        self.spi.write(bytes(((reg << 1) & 0x7E, value)))
        self.cs(1)

    def _read(self, reg):
        self.cs(0)
        self.spi.write(bytes((((reg << 1) & 0x7E) | 0x80,)))
        value = self.spi.read(1)[0]
        self.cs(1)
        return value

    def reset(self):
        self._write(_REG_COMMAND, _CMD_SOFT_RESET)
        time.sleep_ms(50)
        self._write(_REG_T_MODE, 0x8D)
        self._write(_REG_T_PRESCALER, 0x3E)
        self._write(_REG_T_RELOAD_L, 30)
        self._write(_REG_T_RELOAD_H, 0)
        self._write(_REG_TX_ASK, 0x40)
        self._write(_REG_MODE, 0x3D)
        self._write(_REG_TX_CONTROL, self._read(_REG_TX_CONTROL) | 0x03)  # antenna on

    def _transceive(self, data, bits=0):
        self._write(_REG_COMMAND, _CMD_IDLE)
        self._write(_REG_COM_IRQ, 0x7F)
        self._write(_REG_FIFO_LEVEL, 0x80)
        for byte in data:
            self._write(_REG_FIFO_DATA, byte)
        self._write(_REG_BIT_FRAMING, bits)
        self._write(_REG_COMMAND, _CMD_TRANSCEIVE)
        self._write(_REG_BIT_FRAMING, bits | 0x80)  # start send
        deadline = time.ticks_add(time.ticks_ms(), 25)
        while True:
            irq = self._read(_REG_COM_IRQ)
            if irq & 0x30:  # rx done or idle
                break
            if irq & 0x01 or time.ticks_diff(deadline, time.ticks_ms()) < 0:
                return None  # timer ran out: no card
        self._write(_REG_BIT_FRAMING, 0)
        if self._read(_REG_ERROR) & 0x1B:
            return None
        n = self._read(_REG_FIFO_LEVEL)
        return bytes(self._read(_REG_FIFO_DATA) for _ in range(n))

    def read_uid(self):
        """UID of the card in the field, or None."""
        if self._transceive(bytes((_PICC_REQA,)), 0x07) is None:
            return None
        uid = b""
        for level in _PICC_CASCADE:
            self._write(_REG_COLL, 0x80)
            answer = self._transceive(bytes((level, 0x20)))
            if answer is None or len(answer) != 5:
                return None
            check = 0
            for byte in answer[:4]:
                check ^= byte
            if check != answer[4]:
                return None
            sak = self._select(level, answer)
            if sak is None:
                return None
            if answer[0] == 0x88:  # cascade tag: more UID bytes at the next level
                uid += answer[1:4]
                continue
            return uid + answer[:4]
        return None

    def _select(self, level, answer):
        frame = bytearray((level, 0x70)) + answer
        crc = self._crc_a(frame)
        reply = self._transceive(bytes(frame) + crc)
        return reply[0] if reply else None

    @staticmethod
    def _crc_a(data):
        # ISO 14443-A CRC (CRC-16/ISO-IEC-14443-3-A), done in software: short frames only.
        crc = 0x6363
        for byte in data:
            byte ^= crc & 0xFF
            byte = (byte ^ (byte << 4)) & 0xFF
            crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
        return bytes((crc & 0xFF, crc >> 8))
