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

import asyncio
import concurrent.futures
import ipaddress
import logging
import socket
import threading
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
            asyncio.run_coroutine_threadsafe(_goodbye(self.zc, self.info), self.zc.loop).result(GOODBYE_S)
        except Exception as exc:  # never registered, or not said in time: phones forget it when its TTL ends
            log.info("mDNS goodbye not sent: %s %s", type(exc).__name__, exc)
        finally:
            self.zc.close()


GOODBYE_S = 5.0  # the goodbye is three packets 250 ms apart; a busy Pi gets some slack, a stop no more


async def _goodbye(zc: Any, info: Any) -> None:
    await (await zc.async_unregister_service(info))


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
    made: list[Any] = []

    def make() -> None:
        try:
            made.append(Zeroconf(interfaces=chosen, ip_version=version))
        except OSError as exc:
            made.append(exc)

    # made in a thread of its own: Zeroconf adopts the asyncio loop running in the thread that
    # makes it (a caller's, which then may not run when zeroconf needs it); here there is none,
    # so zeroconf starts its own loop thread and answers queries whatever the caller does
    maker = threading.Thread(target=make, name="mdns-start")
    maker.start()
    maker.join()
    if isinstance(made[0], OSError):
        log.warning("not announcing %s by mDNS: %s", server.rstrip("."), made[0])
        return None
    zc = made[0]
    info = service_info(records)
    # Probing the name and the three announcements take about a second; the sync
    # register_service waits for them under a short fixed timeout that a busy Pi (a bot
    # thinking, the camera) can miss. So the registration runs on zeroconf's own loop and
    # is only checked: the web server never waits for it.
    future = asyncio.run_coroutine_threadsafe(_register(zc, info, records), zc.loop)
    future.add_done_callback(_report)
    return Announcement(zc, info)


async def _register(zc: Any, info: Any, records: Records) -> str:
    done = await zc.async_register_service(info, allow_name_change=True)
    await done  # the name is ours once probed; the announcements follow
    log.info("announced http://%s:%d/ by mDNS as %r (%s)", records.server.rstrip("."), records.port, info.name,
             ", ".join(records.addresses))
    return str(info.name)


def _report(future: concurrent.futures.Future) -> None:
    if future.cancelled():
        return
    exc = future.exception()
    if exc is not None:  # zeroconf's own errors (a name taken, a closed socket): the page still works
        log.warning("not announcing by mDNS: %s %s", type(exc).__name__, exc)
