"""A client of the table's web page from a chosen loopback address, for the web tests.

The server listens on 127.0.0.1 and trusts only 127.0.0.1 and ::1, so a client bound to
127.0.0.2 takes the real path of a phone on the Wi-Fi (pairing, cookie, CSRF token)."""
from __future__ import annotations

import http.client
import json
import socket

PIN = "424242"  # the fixtures' PIN: pairs a player
HOST_PIN = "135790"  # the fixtures' host PIN: pairs a host


class Phone:
    def __init__(self, port: int, source: str = "127.0.0.2", host: str | None = None) -> None:
        self.port = port
        self.source = source
        self.host = host or f"127.0.0.1:{port}"  # the Host header a browser would send
        self.cookie: str | None = None
        self.csrf: str | None = None

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10, source_address=(self.source, 0))
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            sent = {"Host": self.host, **({"Cookie": self.cookie} if self.cookie else {}), **(headers or {})}
            if body is not None:
                sent.setdefault("Content-Length", str(len(body)))
            for k, v in sent.items():
                conn.putheader(k, v)
            conn.endheaders(body)
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict]:
        status, _, body = self.request("GET", path, headers=headers)
        return status, json.loads(body)

    def state(self) -> dict:
        status, out = self.get("/api/state")
        assert status == 200, out
        return out

    def post(self, path: str, body: object, headers: dict[str, str] | None = None,
             csrf: bool = True) -> tuple[int, dict]:
        sent = {"Content-Type": "application/json"}
        if csrf:
            if self.csrf is None:
                self.csrf = self.get("/api/csrf")[1]["csrf"]
            sent["X-Dogtable-CSRF"] = self.csrf
        sent.update(headers or {})
        status, hdrs, raw = self.request("POST", path, json.dumps(body).encode(), sent)
        out = json.loads(raw) if raw else {}
        if "set-cookie" in hdrs:
            self.cookie = hdrs["set-cookie"].split(";")[0]
            self.csrf = out.get("csrf")
        return status, out

    def pair(self, pin: str = PIN) -> None:
        status, out = self.post("/api/pair", {"pin": pin})
        assert status == 200 and self.cookie, out

    def sit(self, seat: int | None) -> None:
        status, out = self.post("/api/seat", {"seat": seat})
        assert status == 200, out


def raw(port: int, data: bytes, source: str = "127.0.0.2", timeout: float = 10.0) -> bytes:
    """Send bytes as they are and read the answer until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0)) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def read_qr(image) -> str:
    """What a phone's camera reads from a QR code image (grey, numpy): OpenCV's two QR
    readers at three sizes. One reader at one size misses about 4 % of clean codes."""
    import cv2

    for detector in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
        for scale in (1.0, 0.6, 1.4):
            sized = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale,
                                                          interpolation=cv2.INTER_NEAREST)
            text, _, _ = detector.detectAndDecode(sized)
            if text:
                return text
    return ""
