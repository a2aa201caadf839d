"""Validation of the firmware's two JSON files, pins.json and ledmap.json.

Pure and MicroPython-compatible, so the same checks run in the host's tests. Every
error names the file, the key and the problem, since on the board the message is all a
user sees (in `mpremote` or on the UART console).
"""
import json

GPIO_MAX = 29  # RP2040: GP0..GP29


class ConfigError(ValueError):
    pass


def _fail(name, key, problem):
    raise ConfigError("%s: %s: %s" % (name, key, problem))


def _gpio(name, key, value):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= GPIO_MAX:
        _fail(name, key, "must be a GPIO number 0..%d, got %r" % (GPIO_MAX, value))
    return value


def parse_pins(text, name="pins.json"):
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError("%s: not valid JSON (%s)" % (name, exc))
    if not isinstance(data, dict):
        _fail(name, "(top level)", "must be an object")
    out = {"name": data.get("name", "dogtable-pico"), "link": data.get("link", "usb")}
    if out["link"] not in ("usb", "uart"):
        _fail(name, "link", "must be \"usb\" or \"uart\", got %r" % (out["link"],))
    if not isinstance(out["name"], str) or not 0 < len(out["name"]) <= 32:
        _fail(name, "name", "must be a text of 1..32 characters")
    if out["link"] == "uart":
        uart = data.get("uart")
        if not isinstance(uart, dict):
            _fail(name, "uart", "must be an object with id, tx, rx and baud when link is \"uart\"")
        if uart.get("id") not in (0, 1):
            _fail(name, "uart.id", "must be 0 or 1")
        baud = uart.get("baud", 921600)
        if not isinstance(baud, int) or not 9600 <= baud <= 3000000:
            _fail(name, "uart.baud", "must be 9600..3000000")
        out["uart"] = {"id": uart["id"], "tx": _gpio(name, "uart.tx", uart.get("tx")),
                       "rx": _gpio(name, "uart.rx", uart.get("rx")), "baud": baud}
    out["leds"] = _gpio(name, "leds", data.get("leds"))
    encoder = data.get("encoder")
    if encoder is not None:
        if not isinstance(encoder, dict):
            _fail(name, "encoder", "must be an object with a and b")
        out["encoder"] = {"a": _gpio(name, "encoder.a", encoder.get("a")),
                          "b": _gpio(name, "encoder.b", encoder.get("b"))}
    buttons = data.get("buttons", [])
    if not isinstance(buttons, list) or len(buttons) > 16:
        _fail(name, "buttons", "must be a list of at most 16 GPIO numbers")
    out["buttons"] = [_gpio(name, "buttons[%d]" % i, b) for i, b in enumerate(buttons)]
    rfid = data.get("rfid")
    if rfid is not None:
        if not isinstance(rfid, dict):
            _fail(name, "rfid", "must be an object with spi, sck, mosi, miso, cs and rst")
        if rfid.get("spi") not in (0, 1):
            _fail(name, "rfid.spi", "must be 0 or 1")
        out["rfid"] = {"spi": rfid["spi"]}
        for key in ("sck", "mosi", "miso", "cs", "rst"):
            out["rfid"][key] = _gpio(name, "rfid." + key, rfid.get(key))
    used = {}
    for key, pin in _pins_in(out):
        if pin in used:
            _fail(name, key, "GPIO %d is already used by %s" % (pin, used[pin]))
        used[pin] = key
    return out


def _pins_in(cfg):
    yield "leds", cfg["leds"]
    if "uart" in cfg:
        yield "uart.tx", cfg["uart"]["tx"]
        yield "uart.rx", cfg["uart"]["rx"]
    if "encoder" in cfg:
        yield "encoder.a", cfg["encoder"]["a"]
        yield "encoder.b", cfg["encoder"]["b"]
    for i, pin in enumerate(cfg["buttons"]):
        yield "buttons[%d]" % i, pin
    if "rfid" in cfg:
        for key in ("sck", "mosi", "miso", "cs", "rst"):
            yield "rfid." + key, cfg["rfid"][key]


def parse_ledmap(text, name="ledmap.json"):
    """-> list of (first_pixel, count) per field index.

    The file holds {"fields": [[first, count], ...]} or, for identical rings laid out in
    order, {"rings": N, "per_ring": M}. Field ids (T12, H0, ...) live on the host."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError("%s: not valid JSON (%s)" % (name, exc))
    if not isinstance(data, dict):
        _fail(name, "(top level)", "must be an object")
    if "fields" in data:
        fields = data["fields"]
        if not isinstance(fields, list):
            _fail(name, "fields", "must be a list of [first_pixel, count]")
        out = []
        for i, entry in enumerate(fields):
            if (not isinstance(entry, list) or len(entry) != 2
                    or not all(isinstance(v, int) and v >= 0 for v in entry) or entry[1] == 0):
                _fail(name, "fields[%d]" % i, "must be [first_pixel, count] with count > 0, got %r" % (entry,))
            out.append((entry[0], entry[1]))
    else:
        rings, per_ring = data.get("rings"), data.get("per_ring")
        if not isinstance(rings, int) or rings <= 0:
            _fail(name, "rings", "must be a positive number (or give \"fields\")")
        if not isinstance(per_ring, int) or per_ring <= 0:
            _fail(name, "per_ring", "must be a positive number")
        out = [(i * per_ring, per_ring) for i in range(rings)]
    if not 0 < len(out) <= 256:
        _fail(name, "fields", "must list 1..256 fields (field indices are one byte on the wire)")
    pixels = 0
    for first, count in out:
        pixels = max(pixels, first + count)
    if pixels > 4096:
        _fail(name, "fields", "%d pixels is more than one RP2040 can refresh in time (4096)" % pixels)
    return out
