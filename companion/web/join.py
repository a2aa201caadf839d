"""How a phone joins the table: the address it can open, and the QR code that carries it.

A phone on the family's Wi-Fi can open the table only at the Pi's address on that network.
A server bound to 127.0.0.1 (what `dogtable sim` does unless told otherwise) is reachable
from the computer it runs on alone: a QR code with that address would open nothing on a
phone, so the table's own screen says why and what to change instead (`join_problem`).
"""
from __future__ import annotations

import io
import ipaddress
import socket

import segno

WILDCARDS = ("0.0.0.0", "::", "")  # every interface: the phone comes in on the LAN's
# The sentence the table's screen shows for each problem is the page's (page.po join_<key>);
# these keys are what the state carries.
LOOPBACK = "loopback"  # listening on this computer only
NO_NETWORK = "no_network"  # listening everywhere, but this machine has no network address


def qr_svg(text: str) -> bytes:
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False, svgns=True)
    return out.getvalue()


def qr_text(text: str) -> str:
    """The QR code for a terminal: half-block characters, no colour codes (journald keeps it)."""
    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def lan_address(family: int = socket.AF_INET) -> str | None:
    """This machine's address on its network (the interface its default route leaves by), or None."""
    probe = "192.0.2.1" if family == socket.AF_INET else "2001:db8::1"  # documentation ranges: never answered
    try:
        s = socket.socket(family, socket.SOCK_DGRAM)
    except OSError:
        return None
    try:
        s.connect((probe, 9))  # no packet is sent: this only picks the outgoing interface
        ip = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if is_loopback(ip) else ip


def lan_ip() -> str:
    """As `lan_address`, with "localhost" when there is none (what the server shows then)."""
    return lan_address() or "localhost"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def phone_host(bound: str) -> str | None:
    """The address a phone on the same network opens for a server bound to `bound`; None if none can."""
    if is_loopback(bound):
        return None
    if bound in WILDCARDS:
        return lan_address()
    return bound


def join_problem(bound: str) -> str | None:
    """Why no phone can join a server bound to `bound` (LOOPBACK, NO_NETWORK), or None when one can."""
    if is_loopback(bound):
        return LOOPBACK
    if phone_host(bound) is None:
        return NO_NETWORK
    return None
