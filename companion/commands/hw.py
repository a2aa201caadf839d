"""`dogtable hw test`: open every configured device, exercise it and report what works."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.commands.options import seconds
from companion.config import load_config
from companion.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("hw", help="hardware: self-test of LEDs, disc encoder, buttons and camera")
    sub = p.add_subparsers(dest="hw_command", metavar="ACTION", required=True)
    t = sub.add_parser("test", help="walk every LED ring, read encoder and buttons, grab a frame; report")
    t.add_argument("--simulate", action="store_true", help="run every device on the simulated table (no hardware)")
    t.add_argument("--config", action="append", type=Path, metavar="PATH",
                   help="configuration file(s) instead of /etc and ~/.config")
    t.add_argument("--wait", type=seconds, default=0.0, metavar="S",
                   help="wait up to S seconds for a disc turn and button presses (real hardware)")
    t.add_argument("--ring-delay", type=seconds, default=None, metavar="S",
                   help="seconds each ring stays lit (default 0.15 on hardware, 0 simulated)")
    t.add_argument("--save-frame", type=Path, metavar="PNG", help="write the grabbed camera frame here")
    t.set_defaults(func=_test)
    c = sub.add_parser("calibrate-encoder", help="count encoder steps while you turn the disc; suggest steps_per_quarter")
    c.add_argument("--quarters", type=int, default=4, help="quarter turns you will make (default 4: one full turn)")
    c.add_argument("--seconds", type=seconds, default=20.0, help="how long to count (default 20)")
    c.add_argument("--config", action="append", type=Path, metavar="PATH")
    c.add_argument("--simulate", action="store_true", help="on the simulated table (the program turns the disc)")
    c.set_defaults(func=_calibrate)


def _test(args: argparse.Namespace) -> int:
    # numpy and the device drivers: only the hw commands load them
    from hardware.factory import open_devices
    from hardware.selftest import run_self_test

    if args.save_frame is not None:
        _check_frame_path(args.save_frame)  # before the test: a typo must not cost a whole run
    settings = load_config(args.config).hardware
    delay = args.ring_delay if args.ring_delay is not None else (0.0 if args.simulate else 0.15)
    with open_devices(settings, simulate=args.simulate) as devices:
        checks = run_self_test(devices, ring_delay_s=delay, wait_s=args.wait,
                               progress=lambda m: print(m, file=sys.stderr))
        if args.save_frame and devices.camera is not None:
            import cv2

            try:
                written = cv2.imwrite(str(args.save_frame), devices.camera.read())
            except cv2.error:
                written = False
            if not written:
                raise UserError(f"cannot write the frame to {args.save_frame}: check the folder's permissions")
    mode = "simulated table" if args.simulate else "hardware"
    print(f"dogtable hw test ({mode}):")
    for c in checks:
        mark = {True: "ok  ", False: "FAIL", None: "n/a "}[c.ok]
        print(f"  {mark} {c.device:<8} {c.detail}")
    failed = [c.device for c in checks if c.ok is False]
    working = [c.device for c in checks if c.ok]
    print(f"working: {', '.join(working) or 'none'}" + (f"; failing: {', '.join(failed)}" if failed else ""))
    return 1 if failed or not working else 0


FRAME_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


def _check_frame_path(path: Path) -> None:
    if path.is_dir():
        raise UserError(f"--save-frame {path} is a folder: give a file name, e.g. {path / 'frame.png'}")
    if path.suffix.lower() not in FRAME_SUFFIXES:
        raise UserError(f"--save-frame {path}: the name must end in {', '.join(FRAME_SUFFIXES)} (e.g. frame.png)")
    if not path.parent.is_dir():
        raise UserError(f"--save-frame {path}: the folder {path.parent} does not exist (create it first)")


def _calibrate(args: argparse.Namespace) -> int:
    import time

    # numpy and the device drivers: only the hw commands load them
    from hardware.encoder import steps_per_quarter_from
    from hardware.factory import open_devices

    if not 1 <= args.quarters <= 40:
        raise UserError(f"--quarters {args.quarters}: give the number of clockwise quarter turns you will make, 1 to 40")
    if args.seconds <= 0:
        raise UserError("--seconds must be more than 0")
    settings = load_config(args.config).hardware
    with open_devices(settings, simulate=args.simulate) as devices:
        enc = devices.encoder
        if enc is None:
            raise UserError(devices.problems.get("encoder", "no encoder configured (encoder.backend = \"none\")"))
        start = enc.steps
        if args.simulate and devices.table is not None:
            devices.table.encoder_driver.turn(settings.encoder.steps_per_quarter * args.quarters)
        else:
            print(f"turn the disc {args.quarters} quarter turn(s) clockwise within {args.seconds:g} s ...",
                  file=sys.stderr)
            end = time.monotonic() + args.seconds
            while time.monotonic() < end:
                time.sleep(0.05)
        steps = enc.steps - start
    if steps == 0:
        raise UserError("no steps counted: check the encoder wiring (A, B and GND) and the pins in the config")
    spq = steps_per_quarter_from(steps, args.quarters)
    print(f"{steps} steps in {args.quarters} quarter turn(s): set encoder.steps_per_quarter = {spq}"
          + ("; and encoder.reverse = " + ("false" if settings.encoder.reverse else "true") if steps < 0 else ""))
    return 0
