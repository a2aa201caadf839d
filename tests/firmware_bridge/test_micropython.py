"""The modules that run on the MCU stay within what MicroPython offers.

Always: a syntax-level check of protocol.py, device.py and config.py. With a MicroPython
at hand (set DOGTABLE_MICROPYTHON_MJS to the `micropython.mjs` of the npm package
@micropython/micropython-webassembly-pyscript, and have node): the same script runs under
MicroPython and CPython and must print the same lines.
"""
import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "firmware_bridge"
SHARED = {
    "protocol.py": ROOT / "protocol.py",
    "device.py": ROOT / "firmware" / "device.py",
    "config.py": ROOT / "firmware" / "config.py",
}
ALLOWED_IMPORTS = {"struct", "json", "binascii", "protocol", "firmware_bridge"}


@pytest.mark.parametrize("name", sorted(SHARED))
def test_shared_module_uses_only_what_micropython_has(name):
    tree = ast.parse(SHARED[name].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert {a.name.split(".")[0] for a in node.names} <= ALLOWED_IMPORTS, ast.dump(node)
        if isinstance(node, ast.ImportFrom):
            assert node.module.split(".")[0] in ALLOWED_IMPORTS, node.module
        assert not isinstance(node, ast.JoinedStr), f"{name}:{node.lineno}: f-string"
        assert not isinstance(node, (ast.AnnAssign, ast.NamedExpr, ast.Match)), f"{name}:{node.lineno}"
        if isinstance(node, ast.arg):
            assert node.annotation is None, f"{name}:{node.lineno}: annotation"
        if isinstance(node, ast.FunctionDef):
            assert node.returns is None, f"{name}:{node.lineno}: annotation"
            assert not node.decorator_list or all(
                isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        if isinstance(node, ast.Attribute):
            assert node.attr not in {"hex", "to_bytes", "__slots__"}, f"{name}:{node.lineno}: .{node.attr}"


SCRIPT = textwrap.dedent(r'''
    import protocol as P
    import config
    from device import Device

    out = []
    out.append(P.crc16(b"123456789"))  # MicroPython: the table; CPython: binascii.crc_hqx
    out.append(P.crc16_table(b"123456789"))
    out.append([P.crc16(bytes(range(n, 256))) for n in (0, 100, 255)])
    data = bytes(range(256)) * 2
    out.append(P.cobs_encode(data))
    out.append(P.cobs_decode(P.cobs_encode(data)) == data)
    frames = [
        P.encode_frame(P.MSG_LED_SET, 5, 7, P.pack_led_set(3, [(1, 2, 3, 4, 5)])),
        P.encode_frame(P.MSG_ACK, 255, 0),
        P.encode_frame(P.MSG_CARD, 1, 2, P.pack_card(9, b"\x00\x01\x00\x02")),
    ]
    decoder = P.FrameDecoder()
    out.append(decoder.feed(b"".join(frames) + b"\x01\x02\x00\xff" * 70 + b"\x00"))
    out.append((decoder.received, decoder.corrupted))
    # damaged frames: a flipped bit, trailing zeros, a truncation; and an old-format frame
    good = P.encode_frame(P.MSG_PING, 1, 2, P.pack_ping(7))
    flipped = bytearray(good)
    flipped[0] ^= 4
    old = P.encode_v1(P.MSG_IDENTIFY, P.pack_identify(0x1234))
    decoder = P.FrameDecoder()
    out.append(decoder.feed(bytes(flipped) + good[:-1] + b"\x01\x01\x00" + good[:5] + b"\x00" + old + good))
    out.append((decoder.received, decoder.corrupted, decoder.legacy, decoder.last_legacy))
    for mtype, payload in ((P.MSG_PONG, b"\x00\x01"), (P.MSG_LED_SET, b"\x01\x02\x06\x00\x00\x00")):
        try:
            P.parse_payload(mtype, payload)
        except P.ProtocolError as exc:
            out.append(str(exc))
    device = Device([(0, 3), (3, 3)], buttons=1, boot_id=77, now=0)
    host = P.Link()
    device.receive(P.encode_frame(P.MSG_IDENTIFY, 0, 0, P.pack_identify(9)), 1)
    device.tick(1)
    out.append(P.FrameDecoder().feed(device.take_output()))
    device.receive(host.send(P.MSG_LED_SET, P.pack_led_set(3, [(1, 4, 10, 20, 30)]), 2), 2)
    device.set_encoder_count(-5)
    device.button(0, True, 3)
    device.card(b"\x01\x02\x03\x04")
    device.tick(3)
    out.append(P.FrameDecoder().feed(device.take_output()))
    # a CRC-valid LED_SET whose payload does not parse: ERROR BAD_PAYLOAD, no ack
    device.receive(P.encode_frame(P.MSG_LED_SET, 1, 0, b"\x03\x01"), 4)
    device.tick(4)
    out.append(P.FrameDecoder().feed(device.take_output()))
    out.append(device.link.rx_expected)
    # an IDENTIFY from a version-1 host is answered in its format
    device.receive(old, 5)
    out.append(P.decode_v1(device.take_output()[:-1]))
    pixels = bytearray(3 * device.pixels)
    device.render(250, pixels)
    out.append(bytes(pixels))
    out.append(config.parse_ledmap('{"rings": 3, "per_ring": 4}'))
    for bad in ('{"leds": 40}', '{"leds": 2, "buttons": [2]}', '{"leds": 2, "link": "wifi"}'):
        try:
            config.parse_pins(bad)
        except config.ConfigError as exc:
            out.append(str(exc))
    link = P.Link(rto_initial=10, max_tries=3)
    link.send(P.MSG_PING, b"", 0)
    out.append([len(link.poll(t)) for t in range(0, 100, 5)])
    out.append(link.failed)
    for item in out:
        print(repr(item))
''')


COMPILE_BOARD_ONLY = textwrap.dedent('''
    for name in ("board_main.py", "board_drivers.py"):
        with open(name) as f:
            compile(f.read(), name, "exec")
        print(name, "compiles")
''')


def test_same_results_under_micropython_and_cpython(tmp_path):
    mjs = os.environ.get("DOGTABLE_MICROPYTHON_MJS")
    if not mjs or not Path(mjs).is_file() or not shutil.which("node"):
        pytest.skip("set DOGTABLE_MICROPYTHON_MJS to micropython.mjs (npm: "
                    "@micropython/micropython-webassembly-pyscript) and install node")
    files = {name: path.read_text() for name, path in SHARED.items()}
    files["vectors.py"] = SCRIPT + COMPILE_BOARD_ONLY
    # Board-only modules cannot run here, but must compile. The WebAssembly port has no
    # native code emitter, so the viper decorator is taken off for this check.
    for name in ("main.py", "drivers.py"):
        text = (ROOT / "firmware" / name).read_text().replace("@micropython.viper", "")
        files["board_" + name] = text
    runner = tmp_path / "run.mjs"
    runner.write_text(textwrap.dedent(f"""
        const {{ loadMicroPython }} = await import({json.dumps(Path(mjs).resolve().as_uri())});
        const lines = [];
        const mp = await loadMicroPython({{stdout: (l) => lines.push(l), stderr: (l) => lines.push("ERR " + l)}});
        const files = {json.dumps(files)};
        for (const [name, text] of Object.entries(files)) mp.FS.writeFile("/" + name, text);
        try {{ mp.runPython("import vectors"); }} catch (e) {{ lines.push("ERR " + e); }}
        console.log(lines.join("\\n"));
    """))
    micro = subprocess.run(["node", str(runner)], capture_output=True, text=True, timeout=60)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cpython = subprocess.run([sys.executable, "-c", "import vectors"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=60)
    assert cpython.returncode == 0, cpython.stderr
    assert "ERR" not in micro.stdout, micro.stdout
    assert micro.stdout.strip().splitlines() == cpython.stdout.strip().splitlines()
