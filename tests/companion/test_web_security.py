"""The web page as a guest on the club's Wi-Fi would try it: lengths, PINs, other sites,
DNS rebinding, cookies, seats. The server trusts 127.0.0.1 (the Pi's own browser); phones
come from 127.0.0.2 and on, the real non-local path."""
from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from phone import HOST_PIN, Phone, raw, read_qr
from polling import wait_for
from simulated_rig import simulated

from companion.cli import main
from companion.service import Service
from companion.settings import WebSettings
from companion.web.pairing import FREE_TRIES, MAX_DELAY_S, TOKEN_LIFETIME_S, Claim, Outcome, Pairings, address_key
from companion.web.guard import PER_ADDRESS
from companion.web.server import WebServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def table(trusted_web_service: tuple[Service, WebServer, int]) -> tuple[Service, WebServer, int]:
    return trusted_web_service


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.") else 0


# the start confirmed and the simulated table's deal (journaled, so a resumed game keeps its hands);
# a change that is allowed is a mode change: a card must be in the seat's hand and waits for the exchange
AT_START = 2


def events(service: Service) -> int:
    return len(service.journal.events(service.game_id))


def test_lengths_are_refused_before_the_body_is_read(table) -> None:
    service, _, port = table
    head = "POST /api/card HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    for length, status in (("-1", 400), ("abc", 400), ("1e9", 400), ("5, 5", 400), ("300000000", 413),
                           ("65537", 413), ("99999999999999999999999", 400)):
        # only the headers are sent: an answer that comes back proves nothing waited for a body
        answer = raw(port, (head.format(port=port) + f"Content-Length: {length}\r\n\r\n").encode())
        assert status_of(answer) == status, (length, answer[:80])
    answer = raw(port, (head.format(port=port) + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n{}").encode())
    assert status_of(answer) == 400, answer[:80]
    answer = raw(port, (head.format(port=port) + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n").encode())
    assert status_of(answer) == 411, answer[:80]
    # paired, with the token, and the body really sent: the answer comes from the headers alone
    phone = Phone(port)
    phone.pair()
    with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0), timeout=10) as s:
        s.sendall((f"POST /api/card HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {phone.cookie}\r\n"
                   f"X-Dogtable-CSRF: {phone.csrf}\r\nContent-Type: application/json\r\n"
                   f"Content-Length: 70000\r\n\r\n").encode())
        assert status_of(s.recv(4096)) == 413
        try:
            s.sendall(b"{" + b" " * 69998 + b"}")
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed: it was not going to read it
    assert phone.state()["phase"] == "exchange" and events(service) == AT_START


def test_slow_headers_and_slow_bodies_are_cut_off(table) -> None:
    service, _, port = table
    with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.3", 0), timeout=30) as s:
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
        deadline = time.monotonic() + 30
        closed = False
        while time.monotonic() < deadline and not closed:  # a byte now and then does not keep it open
            try:
                s.sendall(b"a")
                closed = s.recv(1, socket.MSG_DONTWAIT) == b""
            except BlockingIOError:
                time.sleep(0.05)
            except (BrokenPipeError, ConnectionResetError):
                closed = True
        assert closed
    phone = Phone(port, "127.0.0.4")
    phone.pair()
    with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.4", 0), timeout=30) as s:
        s.sendall((f"POST /api/undo HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {phone.cookie}\r\n"
                   f"X-Dogtable-CSRF: {phone.csrf}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
                   ).encode())
        answer = s.recv(4096)
        assert status_of(answer) == 408, answer[:80]
    assert events(service) == AT_START


def test_a_wrong_pin_flood_slows_that_device_only(table) -> None:
    _, _, port = table
    guesser = Phone(port, "127.0.0.5")
    answers = [guesser.post("/api/pair", {"pin": f"{n:06d}"})[0] for n in range(20)]
    assert answers[:FREE_TRIES] == [403] * FREE_TRIES and 429 in answers and set(answers) <= {403, 429}
    status, out = guesser.post("/api/pair", {"pin": "424242"})
    assert status in (200, 429)  # 429 while it waits; 200 only if this machine took longer than the wait
    other = Phone(port, "127.0.0.6")
    other.pair()  # the flood from .5 does not lock out .6
    assert other.state()["paired"] is True
    # text that is not ASCII digits is a wrong PIN (or a 400), never a dropped connection
    odd = Phone(port, "127.0.0.7")
    for pin in ("é", "٠١٢٣٤٥", "４２４２４２", "424242\x00", 424242, None, ["424242"], "💥" * 1000):
        status, out = odd.post("/api/pair", {"pin": pin})
        assert status in (400, 403, 429) and out["error"], pin


def test_backoff_doubles_per_address_and_forgets_on_success() -> None:
    now = [1000.0]
    p = Pairings("424242", clock=lambda: now[0])
    for _ in range(FREE_TRIES):  # typing mistakes cost nothing
        assert p.pair("10.0.0.9", pin="111111") == Outcome()
    waits = []
    for _ in range(4):
        assert p.pair("10.0.0.9", pin="111111") == Outcome()
        waits.append(p.pair("10.0.0.9", pin="424242").wait_s)  # then even the right PIN must wait
        now[0] += waits[-1]
    assert waits == [2.0, 4.0, 8.0, 16.0]
    assert p.pair("10.0.0.10", pin="424242").ok  # another device: no wait
    for _ in range(30):
        now[0] += MAX_DELAY_S
        p.pair("10.0.0.9", pin="111111")
    assert 0 < p.pair("10.0.0.9", pin="424242").wait_s <= MAX_DELAY_S
    now[0] += MAX_DELAY_S
    assert p.pair("10.0.0.9", pin="424242").ok  # after its wait the right PIN pairs, and the count resets
    assert p.pair("10.0.0.9", pin="111111") == Outcome() and p.pair("10.0.0.9", pin="111111") == Outcome()
    # an IPv6 phone that changes its address within its /64 is the same device
    assert address_key("2001:db8::1") == address_key("2001:db8::ffff:2") != address_key("2001:db8:0:1::1")
    assert address_key("::ffff:10.0.0.9") == "10.0.0.9"


def test_tokens_expire_on_the_server_too() -> None:
    now = [0.0]
    p = Pairings("424242", wall=lambda: now[0])
    token = p.pair("10.0.0.1", pin="424242").token
    assert p.pairing(token) is not None and p.pairing(token + "x") is None and p.pairing("") is None
    now[0] += TOKEN_LIFETIME_S + 1
    assert p.pairing(token) is None


def test_paired_phones_stay_paired_across_a_restart(tmp_path: Path, caplog) -> None:
    store = tmp_path / "j.pairings.json"
    first = Pairings("", store)
    token = first.pair("10.0.0.1", pin=first.pin).token
    host = first.pair("10.0.0.2", pin=first.host_pin)
    assert token and first.claim(token, 2) is Claim.OK and host.host and host.token
    assert store.stat().st_mode & 0o777 == 0o600 and token not in store.read_text()  # digests only
    again = Pairings("", store)  # a restart: a new random PIN, the same phones
    assert again.pin and again.pairing(token) == first.pairing(token) and again.pairing(token).seat == 2
    assert again.pairing(host.token).host and not again.pairing(token).host
    # a file from before hosts and addresses were kept loads: players, from an unknown address
    rows = json.loads(store.read_text())["tokens"]
    store.write_text(json.dumps({"tokens": [{k: r[k] for k in ("digest", "expires", "seat")} for r in rows]}))
    old = Pairings("", store)
    assert old.pairing(token).seat == 2 and not old.pairing(host.token).host and old.pairing(token).address == ""
    store.write_text('{"tokens": [{"digest": "zz"')  # a damaged file: a warning, and phones pair again
    assert Pairings("", store).pairing(token) is None and "phones pair again" in caplog.text


def test_cookie_is_scoped_and_expires(table) -> None:
    _, _, port = table
    phone = Phone(port)
    status, headers, body = phone.request("POST", "/api/pair", b'{"pin":"424242"}', {
        "Content-Type": "application/json", "X-Dogtable-CSRF": phone.get("/api/csrf")[1]["csrf"]})
    assert status == 200
    attrs = [a.strip() for a in headers["set-cookie"].split(";")]
    assert attrs[0].startswith("dogtable_pair=") and len(attrs[0]) > 30
    assert {"HttpOnly", "SameSite=Strict", "Path=/", f"Max-Age={TOKEN_LIFETIME_S}"} <= set(attrs)
    assert "424242" not in body.decode()


def test_the_pin_goes_only_to_the_pis_own_browser_with_its_own_host(table) -> None:
    service, _, port = table
    local = Phone(port, "127.0.0.1", host=f"localhost:{port}")
    assert local.state()["pin"] == "424242" and local.state()["paired"] is True
    assert local.state()["pair_url"].startswith("http://localhost:")
    phone = Phone(port)
    st = phone.state()
    assert st["pin"] is None and st["pair_url"] is None and st["paired"] is False
    phone.pair()
    assert phone.state()["pin"] is None
    assert phone.request("GET", "/api/pair-qr.svg")[0] == 403
    # DNS rebinding: the Pi's own browser, on a page whose name now points at the Pi
    rebound = Phone(port, "127.0.0.1", host="rebind.evil.example")
    for path in ("/api/state", "/", "/api/csrf", "/api/events", "/api/export", "/api/pair-qr.svg"):
        status, _, body = rebound.request("GET", path)
        assert status == 421 and b"424242" not in body, path
    before = events(service)
    rebound.csrf = local.get("/api/csrf")[1]["csrf"]  # even with a token got some other way
    assert rebound.post("/api/undo", {})[0] == 421
    assert Phone(port, "127.0.0.1", host="rebind.evil.example:8377").request("GET", "/api/state")[0] == 421
    assert events(service) == before


def test_a_foreign_page_in_the_pis_browser_changes_nothing(table) -> None:
    service, _, port = table
    local = Phone(port, "127.0.0.1", host=f"localhost:{port}")
    assert local.post("/api/mode", {"mode": "training"})[0] == 200  # the page itself may
    assert local.post("/api/undo", {})[0] == 200
    before = events(service)
    cross = [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": f"http://localhost:{port}", "Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ]
    for headers in cross:
        status, out = local.post("/api/undo", {}, headers=headers)
        assert status == 403, headers
    # a form post (no preflight) is text/plain or urlencoded and has no token
    assert local.request("POST", "/api/undo", b"{}", {"Content-Type": "text/plain"})[0] == 415
    assert local.post("/api/undo", {}, csrf=False)[0] == 403
    assert local.post("/api/undo", {}, headers={"X-Dogtable-CSRF": "0" * 64})[0] == 403
    # a cross-site read of the state gets no PIN either (the browser says where it comes from)
    status, st = local.get("/api/state", headers={"Sec-Fetch-Site": "cross-site"})
    assert st["pin"] is None and st["pair_url"] is None
    assert events(service) == before


def test_csrf_token_belongs_to_its_pairing(table) -> None:
    service, _, port = table
    phone = Phone(port)
    guest_token = phone.get("/api/csrf")[1]["csrf"]
    phone.pair()
    assert phone.csrf != guest_token
    assert phone.post("/api/undo", {}, headers={"X-Dogtable-CSRF": guest_token})[0] == 403
    other = Phone(port, "127.0.0.3")
    other.pair()
    assert phone.post("/api/seat", {"seat": 1}, headers={"X-Dogtable-CSRF": other.csrf or ""})[0] == 403
    assert phone.post("/api/seat", {"seat": 1})[0] == 200


def test_a_paired_phone_takes_a_seat_and_sees_as_that_seat(table) -> None:
    service, _, port = table
    phone, guest = Phone(port), Phone(port, "127.0.0.3")
    assert guest.post("/api/seat", {"seat": 1})[0] == 403
    phone.pair()
    assert phone.state()["viewer"] is None
    assert phone.post("/api/seat", {"seat": 1})[0] == 200
    assert phone.state()["viewer"] == 1 and guest.state()["viewer"] is None
    status, out = phone.post("/api/seat", {"seat": 7})
    assert status == 400 and "seat must be one of" in out["error"]
    assert phone.post("/api/seat", {"seat": True})[0] == 400
    # the event stream sends the seat's view, and a new one when the seat changes
    with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0), timeout=10) as s:
        s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {phone.cookie}\r\n\r\n".encode())
        stream = s.makefile("rb")
        assert next(viewers(stream)) == 1
        assert phone.post("/api/seat", {"seat": 2})[0] == 200
        assert next(viewers(stream)) == 2
    assert phone.post("/api/seat", {"seat": None})[0] == 200 and phone.state()["viewer"] is None


def viewers(stream) -> Iterator[int | None]:
    """The viewer of each state an event stream sends (chunked: size lines come between)."""
    for line in stream:
        if line.startswith(b"data: "):
            yield json.loads(line[6:])["viewer"]


def test_the_qr_link_pairs_a_phone_and_expires() -> None:
    now = [0.0]
    p = Pairings("424242", clock=lambda: now[0])
    code, valid = p.pairing_code()
    assert len(code) >= 20 and valid == 3600
    assert p.pair("10.0.0.1", code=code).ok and p.pair("10.0.0.2", code=code).ok
    now[0] += 1900  # past half its life: a new code is shown, the old one still works
    new, _ = p.pairing_code()
    assert new != code and p.pair("10.0.0.3", code=code).ok
    now[0] += 1800
    assert not p.pair("10.0.0.4", code=code).ok and p.pair("10.0.0.4", code=new).ok
    assert not p.pair("10.0.0.5", code="").ok and not p.pair("10.0.0.5", code="424242").ok


def test_the_qr_code_on_the_pis_screen_pairs_a_phone(table) -> None:
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    import segno

    _, web, port = table
    local = Phone(port, "127.0.0.1", host=f"localhost:{port}")
    status, headers, svg = local.request("GET", "/api/pair-qr.svg")
    assert status == 200 and headers["content-type"].startswith("image/svg+xml") and b"<svg" in svg
    url = local.state()["pair_url"]
    # the page's QR code holds this link: read it the way a phone's camera would, from pixels
    # (segno draws the same matrix as PNG; OpenCV's QR reader decodes it)
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="png", scale=8, border=4)
    image = cv2.imdecode(np.frombuffer(buf.getvalue(), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert read_qr(image) == url
    code = url.split("#pair=", 1)[1]
    phone = Phone(port)
    status, out = phone.post("/api/pair", {"code": code})
    assert status == 200 and phone.state()["paired"] is True
    status, out = Phone(port, "127.0.0.3").post("/api/pair", {"code": code[:-2] + "xx"})
    assert status == 403 and "scan the code" in out["error"]


def test_connections_are_capped_per_address_and_idle_ones_make_room(table) -> None:
    service, web, _ = table
    # a server whose idle connections outlive a slow machine's accepts (the fixture's: 0.5 s)
    patient = WebServer(service, replace(web.settings, head_timeout_s=60.0), lights=web.app.lights,
                        simulated=web.app.simulated)
    patient.start()
    port = patient.sock.getsockname()[1]
    held = []
    try:
        for _ in range(PER_ADDRESS + 8):
            held.append(socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.8", 0), timeout=10))
        assert wait_for(lambda: patient.gate is not None and patient.gate.evicted >= 8)
        assert patient.gate.per_address["127.0.0.8"] <= PER_ADDRESS
        phone = Phone(port, "127.0.0.8")  # the same address still gets in: an idle one made room
        assert phone.state()["phase"] == "exchange"
        assert Phone(port, "127.0.0.9").state()["phase"] == "exchange"
    finally:
        for s in held:
            s.close()
        patient.stop()


def test_the_table_speaks_five_languages(table) -> None:
    service, _, port = table
    host = Phone(port)  # the table's language is the host's to choose
    host.pair(HOST_PIN)
    for lang in ("en", "de", "fr", "it", "nl"):
        assert host.post("/api/lang", {"lang": lang})[0] == 200 and service.lang == lang
        assert host.state()["lang"] == lang
    assert host.post("/api/lang", {"lang": "xx"})[0] == 400


@pytest.mark.parametrize("pin", ["abc", "1", "12345", "123456789", "٠١٢٣٤٥", "１２３４５６", "12 345"])
def test_a_bad_pin_is_one_line_and_exit_2(pin: str, capsys, tmp_path: Path) -> None:
    assert main(["sim", "--no-browser", "--pin", pin, "--journal", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--pin" in err[0] and "6 to 8 digits 0-9" in err[0]


def test_config_pins_and_hosts_are_checked(tmp_path: Path) -> None:
    from companion.config import ConfigError, load_config

    cfg = tmp_path / "c.toml"
    cfg.write_text('[web]\npin = "٠١٢٣٤٥"\nhosts = ["ok.example", "http://bad/"]\nhead_timeout_s = nan\n')
    with pytest.raises(ConfigError) as err:
        load_config([cfg])
    text = "\n".join(map(str, err.value.problems))
    assert "web.pin: must be 6 to 8 digits 0-9" in text
    assert "web.hosts: 'http://bad/' is not a host name" in text and "ok.example" not in text
    assert "web.head_timeout_s: must be a finite number" in text
    cfg.write_text('[web]\npin = "01234567"\nhosts = ["dogtable.example.org"]\n')
    assert load_config([cfg]).section("web").pin == "01234567"
    cfg.write_text('[web]\npin = "01234567"\nhost_pin = "01234567"\n')  # the PIN everyone sees must not make a host
    with pytest.raises(ConfigError) as err:
        load_config([cfg])
    assert "web.host_pin: must differ from pin" in "\n".join(map(str, err.value.problems))
    cfg.write_text('[web]\nhost_pin = "12a456"\n')
    with pytest.raises(ConfigError) as err:
        load_config([cfg])
    assert "web.host_pin: must be 6 to 8 digits 0-9" in "\n".join(map(str, err.value.problems))
    cfg.write_text('[web]\npin = "01234567"\nhost_pin = "76543210"\n')
    assert load_config([cfg]).section("web").host_pin == "76543210"


def test_the_avahi_file_announces_the_service_port() -> None:
    files = list((ROOT / "systemd").glob("*avahi*")) + list((ROOT / "systemd").glob("avahi/*.service"))
    assert len(files) == 1, files
    tree = ET.parse(files[0])
    services = tree.getroot().findall("service")
    assert tree.getroot().tag == "service-group" and len(services) == 1
    assert services[0].findtext("type") == "_http._tcp"
    from companion.config import load_config

    port = int(services[0].findtext("port") or 0)
    assert port == WebSettings().port == load_config([]).section("web").port  # the packaged default config
    assert tree.getroot().findtext("name")


def test_console_qr_code_reads_back_as_the_pairing_link(tmp_path: Path) -> None:
    """`dogtable sim --host 127.0.0.1` says phones cannot reach it; on a LAN address the
    console shows the QR code, which decodes (OpenCV) to the page's pairing link."""
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    from companion.web.join import qr_text

    url = "http://192.168.1.5:8377/#pair=Zq0-3kLmNoPqRsTuVwXyZ_"
    rows = qr_text(url).splitlines()
    # each character is two pixels high: upper half, lower half (full block, half blocks, space)
    top = {"█": 1, "▀": 1, "▄": 0, " ": 0}
    bottom = {"█": 1, "▀": 0, "▄": 1, " ": 0}
    pixels = []
    for row in rows:
        pixels.append([top[c] for c in row])
        pixels.append([bottom[c] for c in row])
    width = max(map(len, pixels))
    img = np.array([r + [1] * (width - len(r)) for r in pixels], np.uint8) * 255  # light = 1
    img = cv2.resize(img, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    assert read_qr(img) == url
    cmd = [sys.executable, "-m", "companion.cli", "sim", "--port", "0", "--no-browser",
           "--journal", str(tmp_path / "s.sqlite"), "--pin", "123456"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline()]
        while lines[-1] and "phones cannot reach" not in lines[-1] and len(lines) < 20:
            lines.append(proc.stdout.readline())
        assert "start with --host 0.0.0.0" in lines[-1], lines
        host_pin = next(line.split()[2] for line in lines if line.startswith("host PIN: "))  # a second PIN
        assert len(host_pin) == 6 and host_pin.isdigit() and host_pin != "123456"
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_behind_an_https_proxy_the_client_is_the_forwarded_one(tmp_path: Path) -> None:
    from companion.settings import Settings

    settings = Settings(web=WebSettings(host="127.0.0.1", port=0, pin="424242", behind_proxy=True,
                                        hosts=("dogtable.example.org",)))
    rig = simulated(settings, tmp_path / "j.sqlite")
    service = rig.service
    web = WebServer(service, settings.web, lights=rig.lights, simulated=rig.table)
    web.start()
    port = web.sock.getsockname()[1]
    try:
        via = Phone(port, "127.0.0.1", host="dogtable.example.org")
        proxied = {"X-Forwarded-For": "192.168.1.20", "X-Forwarded-Proto": "https"}
        assert via.get("/api/state", headers=proxied)[1]["pin"] is None  # a phone through the proxy
        assert via.get("/api/state")[1]["pin"] is None  # no header: nobody's, not the Pi's
        pis_own = via.get("/api/state", headers={"X-Forwarded-For": "127.0.0.1"})[1]
        assert pis_own["pin"] == "424242"
        assert pis_own["pair_url"].startswith("https://dogtable.example.org/#pair=")
        csrf = via.get("/api/csrf", headers=proxied)[1]["csrf"]
        status, headers, _ = via.request("POST", "/api/pair", b'{"pin":"424242"}', {
            **proxied, "Content-Type": "application/json", "X-Dogtable-CSRF": csrf,
            "Origin": "https://dogtable.example.org"})
        assert status == 200 and "Secure" in headers["set-cookie"]
        assert via.request("GET", "/api/state", headers={"Host": "other.example"})[0] == 421
    finally:
        web.stop()
        rig.stop()


def test_any_bytes_get_an_answer_below_500_and_the_table_keeps_serving(table) -> None:
    """Hypothesis writes the requests (derandomized: the same ones each run)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    service, _, port = table
    phone = Phone(port)
    phone.pair()
    token = (phone.cookie or "", phone.csrf or "")
    header_name = st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters=":"), min_size=1,
                          max_size=20)
    header_value = st.text(st.characters(min_codepoint=1, max_codepoint=0x2FF, exclude_characters="\r\n"), max_size=60)
    body = st.one_of(st.binary(max_size=300), st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12).map(lambda v: json.dumps(v).encode()))

    @settings(max_examples=150, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(method=st.sampled_from(["GET", "POST", "PUT", "HEAD", "OPTIONS", "PATCH"]),
           path=st.sampled_from(["/api/card", "/api/move", "/api/position", "/api/bots", "/api/newgame",
                                 "/api/seat", "/api/pair", "/api/state", "/api/board", "/api/x", "/static/%2e%2e"]),
           headers=st.lists(st.tuples(header_name, header_value), max_size=5), paired=st.booleans(), data=body)
    def one(method: str, path: str, headers: list[tuple[str, str]], paired: bool, data: bytes) -> None:
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close", "Content-Type: application/json",
                 f"Content-Length: {len(data)}"]
        if paired:
            lines += [f"Cookie: {token[0]}", f"X-Dogtable-CSRF: {token[1]}"]
        lines += [f"{k}: {v}" for k, v in headers]
        answer = raw(port, "\r\n".join(lines).encode("utf-8") + b"\r\n\r\n" + data, source="127.0.0.2")
        assert 200 <= status_of(answer) < 500, answer[:200]

    one()
    assert Phone(port, "127.0.0.3").state()["variant"] in ("classic", "compact", "royal-basic", "royal", "black")


def test_a_restarted_server_knows_the_paired_phone_and_its_seat(table) -> None:
    service, web, port = table
    phone, host = Phone(port), Phone(port, "127.0.0.3")
    phone.pair()
    host.pair(HOST_PIN)
    assert phone.post("/api/seat", {"seat": 3})[0] == 200
    web.stop()
    again = WebServer(service, web.settings, lights=web.app.lights, simulated=web.app.simulated)
    again.start()
    try:
        phone.port = host.port = again.sock.getsockname()[1]
        st = phone.state()
        assert st["paired"] is True and st["viewer"] == 3 and st["pin"] is None
        phone.csrf = host.csrf = None  # a new server secret: the page fetches the token again
        assert phone.post("/api/seat", {"seat": 3})[0] == 200  # still its seat
        assert host.post("/api/mode", {"mode": "training"})[0] == 200  # still the host
        assert Phone(phone.port, "127.0.0.4").post("/api/seat", {"seat": 3})[0] == 403  # a guest
    finally:
        again.stop()
