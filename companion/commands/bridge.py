"""`dogtable bridge status|monitor`: the serial link to the table's microcontroller."""
from __future__ import annotations

import argparse
import threading
import time
from typing import TYPE_CHECKING

from companion.errors import UserError

if TYPE_CHECKING:  # names for the annotations; the handlers import pyserial when they run
    from firmware_bridge import BridgeClient, BridgeStatus

DEFAULT_PORT = "/dev/ttyACM0"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bridge", help="the serial link to the table's microcontroller (Pico)",
        description="Check and watch the framed serial link to the table's microcontroller.")
    sub = parser.add_subparsers(dest="bridge_command", metavar="SUBCOMMAND")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--port", default=DEFAULT_PORT, help=f"serial device of the MCU (default {DEFAULT_PORT})")
        p.add_argument("--baud", type=int, default=921600, help="baud rate (default 921600; USB ignores it)")
        p.add_argument("--simulate", action="store_true",
                       help="talk to a simulated MCU on a pseudo-terminal instead of hardware")
        p.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the MCU to answer")

    status = sub.add_parser("status", help="connect, identify the MCU, print version, state and counters")
    common(status)
    status.set_defaults(func=cmd_status)

    monitor = sub.add_parser("monitor", help="stay connected and print the link's state and the MCU's events")
    common(monitor)
    monitor.add_argument("--seconds", type=float, default=None, help="stop after N seconds (default: until Ctrl-C)")
    monitor.add_argument("--interval", type=float, default=1.0, help="seconds between status lines")
    monitor.set_defaults(func=cmd_monitor)

    def no_subcommand(_args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=no_subcommand)


class _Session:
    """A connected client, and the simulated MCU behind it when --simulate was given."""

    def __init__(self, args: argparse.Namespace) -> None:
        # pyserial: only the bridge commands load it
        from firmware_bridge import BridgeClient, BridgeError
        from firmware_bridge.client import check_baud, check_port
        from firmware_bridge.simulator import SimulatedMCU

        if not 0 < args.timeout <= 3600:  # also refuses nan
            raise UserError("--timeout must be a positive number of seconds (at most 3600)")
        for option, check, value in (("--port", check_port, args.port), ("--baud", check_baud, args.baud)):
            try:
                check(value)
            except ValueError as exc:
                raise UserError(f"{option}: {exc}") from None
        self.sim = SimulatedMCU(fields=64).start() if args.simulate else None
        port = self.sim.port if self.sim else args.port
        self.client: BridgeClient = BridgeClient(port, args.baud)
        try:
            self.client.connect(timeout=args.timeout)
        except BridgeError as exc:
            self.close()
            hint = "" if args.simulate else " (name the port with --port, or try --simulate)"
            raise UserError(f"{exc}{hint}") from None

    def close(self) -> None:
        self.client.close()
        if self.sim:
            self.sim.stop()

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _describe(status: BridgeStatus, baud: int) -> list[str]:
    ident = status.identity
    c = status.counters
    lines = [f"link          {status.state} on {status.port} ({baud} baud)"]
    if ident:
        lines += [
            f"firmware      {ident.name} {ident.firmware_version}, protocol {ident.protocol}, boot id {ident.boot_id}",
            f"capabilities  {', '.join(ident.capabilities) or 'none'}",
            f"LED map       {ident.led_fields} fields, {ident.pixels} pixels; {ident.buttons} buttons",
            f"window        {ident.window} frames, payload up to {ident.max_payload} bytes",
        ]
    rtt = f"{status.rtt_ms:.2f} ms" if status.rtt_ms is not None else "not measured"
    lines += [
        f"round trip    {rtt}; retransmit after {status.rto_ms} ms; {status.in_flight} in flight",
        f"frames        sent {c.sent}, retried {c.retried}, dropped {c.dropped}, corrupted {c.corrupted}, "
        f"received {c.received}, rejected {c.rejected}, duplicates {c.duplicates}, superseded {c.superseded}",
        f"recoveries    reconnects {c.reconnects}, resyncs {c.resyncs}, MCU errors {c.mcu_errors}",
    ]
    if status.mcu_uptime_ms is not None:
        lines.append(f"MCU           up {status.mcu_uptime_ms / 1000:.1f} s, "
                     f"{status.mcu_rx_corrupted} corrupted frames received")
    if status.last_error:
        lines.append(f"last problem  {status.last_error}")
    return lines


def cmd_status(args: argparse.Namespace) -> int:
    with _Session(args) as session:
        session.client.ping(timeout=min(1.0, args.timeout))
        print("\n".join(_describe(session.client.status(), args.baud)))
    return 0


def _demo(session: _Session, stop: threading.Event) -> None:
    """Activity for --simulate, so the monitor has something to show."""
    from firmware_bridge import FieldLight  # pyserial: only the bridge commands load it

    step = 0
    while not stop.wait(0.1):
        step += 1
        session.client.set_leds({step % 64: FieldLight((0, 80, 255), "spin")})
        if step % 5 == 0:
            session.sim.spin(1 if step % 20 else -3)
        if step % 15 == 0:
            session.sim.press(step // 15 % 4, True)
            session.sim.press(step // 15 % 4, False)
        if step % 40 == 0:
            session.sim.scan(bytes([0x04, step & 0xFF, 0x19, 0x33]))


def _event_line(event: object) -> str:
    from firmware_bridge import ButtonEvent, CardScan, EncoderDelta, McuError  # pyserial: only the bridge commands load it

    if isinstance(event, EncoderDelta):
        return f"encoder  {event.delta:+d} (count {event.count})"
    if isinstance(event, ButtonEvent):
        return f"button   {event.index} {'pressed' if event.pressed else 'released'}"
    if isinstance(event, CardScan):
        return f"card     {event.uid_hex}"
    if isinstance(event, McuError):
        return f"MCU error {event.code}: {event.message}"
    return repr(event)


def cmd_monitor(args: argparse.Namespace) -> int:
    import queue

    if args.seconds is not None and not args.seconds >= 0:  # also refuses nan
        raise UserError("--seconds must be zero or more")
    if not 0 < args.interval <= 3600:
        raise UserError("--interval must be a positive number of seconds (at most 3600)")
    with _Session(args) as session:
        client = session.client
        print("\n".join(_describe(client.status(), args.baud)), flush=True)
        stop = threading.Event()
        demo = None
        if session.sim:
            demo = threading.Thread(target=_demo, args=(session, stop), daemon=True)
            demo.start()
        end = time.monotonic() + args.seconds if args.seconds is not None else float("inf")
        next_line = time.monotonic() + args.interval
        try:
            while time.monotonic() < end:
                try:
                    event = client.events.get(timeout=max(0.0, min(0.1, end - time.monotonic())))
                    print(_event_line(event), flush=True)
                except queue.Empty:
                    pass
                if time.monotonic() >= next_line:
                    next_line += args.interval
                    s = client.status()
                    c = s.counters
                    rtt = f"{s.rtt_ms:.2f} ms" if s.rtt_ms is not None else "-"
                    print(f"[{s.state}] rtt {rtt}  sent {c.sent} retried {c.retried} dropped {c.dropped} "
                          f"corrupted {c.corrupted} rejected {c.rejected} superseded {c.superseded} "
                          f"reconnects {c.reconnects} resyncs {c.resyncs}", flush=True)
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
            if demo:
                demo.join(timeout=1.0)
    return 0
