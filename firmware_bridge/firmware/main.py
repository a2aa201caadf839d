"""DOG table MCU firmware for the RP2040 (Raspberry Pi Pico), MicroPython >= 1.21.

Copy protocol.py (from firmware_bridge/), device.py, config.py, drivers.py, main.py,
pins.json and ledmap.json to the board's root folder; see README.md beside this file.
One loop, no threads: read the link, feed the Device, poll inputs, write, render.
"""
import os
import sys
import time

import machine
import micropython

import config
import protocol as P
from device import BOOT_POWER_ON, BOOT_WATCHDOG, Device
from drivers import MFRC522, WS2812, Buttons, Quadrature

FRAME_MS = 20  # 50 animation frames a second
CARD_POLL_MS = 100
CARD_FORGET_MS = 1000  # the same card is reported again after it was away this long


class Clock:
    """Milliseconds since boot as a Python int that never wraps (ticks_ms does)."""

    def __init__(self):
        self.last = time.ticks_ms()
        self.now = 0

    def ms(self):
        t = time.ticks_ms()
        self.now += time.ticks_diff(t, self.last)
        self.last = t
        return self.now


class UsbLink:
    """The USB CDC port the REPL normally uses. Ctrl-C is switched off, since 0x03 is an
    ordinary byte in our frames; reconnecting with mpremote still works after a reset."""

    def __init__(self):
        import select

        micropython.kbd_intr(-1)
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)
        self.rx = sys.stdin.buffer
        self.tx = sys.stdout.buffer

    def read(self):
        data = bytearray()
        while len(data) < 512 and self.poll.poll(0):
            data += self.rx.read(1)
        return data

    def write(self, data):
        self.tx.write(data)


class UartLink:
    """A hardware UART, e.g. to the Pi's GPIO 14/15 at 921600 baud."""

    def __init__(self, cfg):
        self.uart = machine.UART(cfg["id"], baudrate=cfg["baud"], tx=machine.Pin(cfg["tx"]),
                                 rx=machine.Pin(cfg["rx"]), rxbuf=2048, txbuf=2048)

    def read(self):
        n = self.uart.any()
        return self.uart.read(n) if n else b""

    def write(self, data):
        self.uart.write(data)


def _read(name):
    with open(name) as f:
        return f.read()


def main():
    pins = config.parse_pins(_read("pins.json"))
    ledmap = config.parse_ledmap(_read("ledmap.json"))
    clock = Clock()
    caps = P.CAP_LEDS
    encoder = None
    if "encoder" in pins:
        encoder = Quadrature(pins["encoder"]["a"], pins["encoder"]["b"])
        caps |= P.CAP_ENCODER
    buttons = Buttons(pins["buttons"]) if pins["buttons"] else None
    if buttons:
        caps |= P.CAP_BUTTONS
    reader = None
    if "rfid" in pins:
        r = pins["rfid"]
        reader = MFRC522(r["spi"], r["sck"], r["mosi"], r["miso"], r["cs"], r["rst"])
        caps |= P.CAP_RFID
    reason = BOOT_WATCHDOG if machine.reset_cause() == machine.WDT_RESET else BOOT_POWER_ON
    boot_id = int.from_bytes(os.urandom(2), "big") or 1
    device = Device(ledmap, buttons=len(pins["buttons"]), capabilities=caps, boot_id=boot_id,
                    name=pins["name"], now=clock.ms(), reason=reason)
    strip = WS2812(pins["leds"], device.pixels)
    pixels = bytearray(3 * device.pixels)
    link = UartLink(pins["uart"]) if pins["link"] == "uart" else UsbLink()
    # A hung loop would leave the LEDs frozen and the host without heartbeats: reboot.
    watchdog = machine.WDT(timeout=2000)
    next_frame = 0
    next_card = 0
    last_uid = None
    last_uid_seen = 0
    while True:
        now = clock.ms()
        data = link.read()
        if data:
            device.receive(data, now)
        if encoder is not None:
            device.set_encoder_count(encoder.count)
        if buttons is not None:
            for index, pressed in buttons.poll(now):
                device.button(index, pressed, now)
        if reader is not None and now >= next_card:
            next_card = now + CARD_POLL_MS
            uid = reader.read_uid()
            if uid is not None:
                if uid != last_uid or now - last_uid_seen > CARD_FORGET_MS:
                    device.card(uid)
                last_uid, last_uid_seen = uid, now
        device.tick(now)
        out = device.take_output()
        if out:
            link.write(out)
        if device.dirty or (now >= next_frame and device.animated()):
            next_frame = now + FRAME_MS
            device.render(now, pixels)
            strip.show(pixels)
        watchdog.feed()
        time.sleep_ms(1)


main()
