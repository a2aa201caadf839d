"""The table on the local network by name: `dogtable.local` and its page as an `_http._tcp` service (mDNS).

A phone types http://dogtable.local:8377/ or finds "dogtable" in a browser's list of
local services, without the Pi's IP address. python-zeroconf announces it from the
service itself, so it holds whatever the Pi's hostname and whether or not avahi-daemon
runs. The avahi service file (systemd/dogtable.avahi.service) stays for a Pi that has
avahi: both may announce at once, the records name the same address, so they never
conflict; if another device already uses the instance name, zeroconf picks "dogtable (2)".

zeroconf is optional: without it (or with no network) the table still serves its page at
its IP address, and the log says once why the name is not announced.
"""
from __future__ import annotations

import ipaddress
import logging
import socket
from dataclasses import dataclass
from typing import Any

from companion.web.join import is_loopback, lan_address, phone_host

log = logging.getLogger(__name__)

HOST_NAME = "dogtable.local."
SERVICE_TYPE = "_http._tcp.local."
INSTANCE = "dogtable"


@dataclass(frozen=True)
class Records:
    """What is announced: the service's name, the host name and its addresses, the port, the page's path."""

    name: str
    server: str
    addresses: tuple[str, ...]
    port: int
    properties: tuple[tuple[str, str], ...] = (("path", "/"),)


def records_for(bound: str, port: int, *, instance: str = INSTANCE, server: str = HOST_NAME) -> Records | None:
    """The records for a page served on `bound`:`port`, or None when no phone could reach it.

    Bound to every interface: the LAN's IPv4 address, and its IPv6 one when there is one.
    Bound to one address: that one only (the page answers on no other).
    """
    if is_loopback(bound):
        return None
    if bound in ("0.0.0.0", "::", ""):
        found = [lan_address(socket.AF_INET)]
        if bound == "::" or bound == "":
            found.append(lan_address(socket.AF_INET6))
        addresses = tuple(a for a in found if a)
    else:
        host = phone_host(bound)
        addresses = (host,) if host else ()
    if not addresses:
        return None
    return Records(f"{instance}.{SERVICE_TYPE}", server, addresses, port)


def service_info(records: Records) -> Any:
    """The zeroconf ServiceInfo for `records` (zeroconf must be installed)."""
    from zeroconf import ServiceInfo  # optional: only a service that announces itself needs it

    return ServiceInfo(SERVICE_TYPE, records.name, port=records.port, server=records.server,
                       parsed_addresses=list(records.addresses), properties=dict(records.properties))


class Announcement:
    """A running announcement: `stop()` withdraws it (a goodbye packet, so phones forget it at once)."""

    def __init__(self, zc: Any, info: Any) -> None:
        self.zc = zc
        self.info = info

    @property
    def name(self) -> str:
        return str(self.info.name)

    def stop(self) -> None:
        try:
            self.zc.unregister_service(self.info)
        finally:
            self.zc.close()


def start_announcing(bound: str, port: int, *, instance: str = INSTANCE, server: str = HOST_NAME,
                     interfaces: list[str] | None = None) -> Announcement | None:
    """Announce the page served on `bound`:`port`; None (and one log line saying why) when it cannot.

    `interfaces`: where to send the announcements (default: the interfaces of the announced
    addresses). Never raises for a missing library or network: the page works without its name.
    """
    records = records_for(bound, port, instance=instance, server=server)
    if records is None:
        reason = "it listens on this computer only" if is_loopback(bound) else "this machine has no network address"
        log.info("not announcing %s by mDNS: %s", server.rstrip("."), reason)
        return None
    return announce(records, interfaces)


def announce(records: Records, interfaces: list[str] | None = None) -> Announcement | None:
    """Announce `records` on `interfaces` (default: those of its addresses); None when it cannot."""
    server = records.server
    try:
        from zeroconf import IPVersion, Zeroconf  # optional: see service_info
    except ImportError:
        log.warning("not announcing %s by mDNS: python-zeroconf is not installed (pip install zeroconf); "
                    "phones open the page by its IP address, or install systemd/dogtable.avahi.service",
                    server.rstrip("."))
        return None
    chosen = interfaces or list(records.addresses)
    v6 = any(ipaddress.ip_address(a.split("%")[0]).version == 6 for a in chosen)
    v4 = any(ipaddress.ip_address(a.split("%")[0]).version == 4 for a in chosen)
    version = IPVersion.All if v4 and v6 else (IPVersion.V6Only if v6 else IPVersion.V4Only)
    try:
        zc = Zeroconf(interfaces=chosen, ip_version=version)
    except OSError as exc:
        log.warning("not announcing %s by mDNS: %s", server.rstrip("."), exc)
        return None
    info = service_info(records)
    try:
        zc.register_service(info, allow_name_change=True)
    except Exception as exc:  # zeroconf's own errors (a name taken, a closed socket): the page still works
        zc.close()
        log.warning("not announcing %s by mDNS: %s", server.rstrip("."), exc)
        return None
    log.info("announced http://%s:%d/ by mDNS as %r (%s)", server.rstrip("."), records.port, info.name,
             ", ".join(records.addresses))
    return Announcement(zc, info)
