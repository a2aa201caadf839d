"""How a phone finds the table: the address a QR code may carry (companion.web.join) and the
mDNS announcement of dogtable.local and its page (companion.web.announce).

The announcement is tested for real: python-zeroconf's own browser, on the loopback
interface (multicast there reaches only this machine), finds the service, resolves its
host name to the announced address, and sees it go when it is withdrawn.
"""
from __future__ import annotations

import logging
import secrets
import socket
import sys
import threading

import pytest

from companion.web import announce
from companion.web.join import LOOPBACK, NO_NETWORK, is_loopback, join_problem, lan_address, phone_host


def test_a_table_bound_to_this_computer_only_has_no_address_for_phones() -> None:
    for bound in ("127.0.0.1", "127.0.1.1", "::1", "localhost"):
        assert is_loopback(bound) and phone_host(bound) is None and join_problem(bound) == LOOPBACK
    assert phone_host("192.168.1.20") == "192.168.1.20" and join_problem("192.168.1.20") is None


def test_a_table_bound_everywhere_is_opened_at_its_lan_address(monkeypatch) -> None:
    lan = lan_address()
    if lan is not None:
        assert not is_loopback(lan)
        assert phone_host("0.0.0.0") == lan and join_problem("0.0.0.0") is None
    # a machine with no network: no address a QR code could carry, and the reason why
    monkeypatch.setattr("companion.web.join.lan_address", lambda family=socket.AF_INET: None)
    assert phone_host("0.0.0.0") is None and join_problem("::") == NO_NETWORK


def test_the_records_name_the_lan_address_and_never_localhost(monkeypatch) -> None:
    assert announce.records_for("127.0.0.1", 8377) is None  # a phone could open nothing
    monkeypatch.setattr(announce, "lan_address",
                        lambda family=socket.AF_INET: "192.168.1.20" if family == socket.AF_INET else "fd00::20")
    four = announce.records_for("0.0.0.0", 8377)
    assert four == announce.Records("dogtable._http._tcp.local.", "dogtable.local.", ("192.168.1.20",), 8377)
    assert announce.records_for("::", 8377).addresses == ("192.168.1.20", "fd00::20")
    assert announce.records_for("192.168.1.30", 9000).addresses == ("192.168.1.30",)
    info = announce.service_info(four)  # what zeroconf sends: A record of dogtable.local, SRV, TXT path=/
    assert info.server == "dogtable.local." and info.port == 8377 and info.parsed_addresses() == ["192.168.1.20"]
    assert info.properties == {b"path": b"/"}


def test_without_zeroconf_the_log_says_why_and_the_page_still_works(monkeypatch, caplog) -> None:
    monkeypatch.setitem(sys.modules, "zeroconf", None)  # as if it were not installed
    monkeypatch.setattr(announce, "lan_address", lambda family=socket.AF_INET: "192.168.1.20")
    with caplog.at_level(logging.INFO, logger="companion.web.announce"):
        assert announce.start_announcing("0.0.0.0", 8377) is None
        assert announce.start_announcing("127.0.0.1", 8377) is None
    said = [r.getMessage() for r in caplog.records]
    assert any("python-zeroconf is not installed (pip install zeroconf)" in m for m in said), said
    assert any("it listens on this computer only" in m for m in said), said


def test_zeroconfs_own_browser_finds_the_page_and_resolves_the_name() -> None:
    zeroconf = pytest.importorskip("zeroconf")
    # a name of its own: never mistaken for a real table on this network
    tag = secrets.token_hex(4)
    records = announce.Records(f"dogtable-test-{tag}.{announce.SERVICE_TYPE}", f"dogtable-test-{tag}.local.",
                               ("127.0.0.1",), 8377)
    try:
        browser_zc = zeroconf.Zeroconf(interfaces=["127.0.0.1"], ip_version=zeroconf.IPVersion.V4Only)
    except OSError as exc:
        pytest.skip(f"no multicast on the loopback interface here: {exc}")
    running = announce.announce(records, ["127.0.0.1"])
    try:
        assert running is not None and running.name == records.name
        seen, gone = threading.Event(), threading.Event()

        class Listener:
            def add_service(self, zc, kind, name):
                if name == records.name:
                    seen.set()

            def remove_service(self, zc, kind, name):
                if name == records.name:
                    gone.set()

            def update_service(self, zc, kind, name):
                pass

        browsing = zeroconf.ServiceBrowser(browser_zc, announce.SERVICE_TYPE, Listener())
        assert seen.wait(10), "the browser did not see the page's service"
        info = browser_zc.get_service_info(announce.SERVICE_TYPE, records.name, timeout=5000)
        assert info is not None and info.server == records.server and info.port == 8377
        assert info.parsed_addresses() == ["127.0.0.1"] and info.properties == {b"path": b"/"}
        host = zeroconf.AddressResolverIPv4(records.server)  # what a phone asks for "dogtable.local"
        assert host.request(browser_zc, 5000) and host.parsed_addresses() == ["127.0.0.1"]
        running.stop()
        running = None
        assert gone.wait(10), "the goodbye did not reach the browser"
        browsing.cancel()
    finally:
        if running is not None:
            running.stop()
        browser_zc.close()
