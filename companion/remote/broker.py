"""A real Mosquitto on this machine, for the tests and for `dogtable sim --remote`.

`LocalBroker` runs the Mosquitto binary in a folder it is given, with the club's shipped
settings (deploy/mosquitto/mosquitto.conf, minus the lines that say where things live on the
club's box) and the club's access list, read from deploy/mosquitto/acl, so that what the tests
prove about who reads what holds for the broker a club installs. It listens on 127.0.0.1 on
a free port, with TLS by default (a certificate authority and a server certificate it makes
with `cryptography`), its password file written by `mosquitto_passwd` and its persistence in
the same folder, so that `restart()` keeps the retained messages and sessions a club's
broker keeps across a restart.
"""
from __future__ import annotations

import datetime
import ipaddress
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from companion.errors import UserError
from companion.remote.credentials import TABLE_NAME, TABLE_NAME_RULE, BrokerAddress, Credentials

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto"
DEPLOY_CONF = DEPLOY / "mosquitto.conf"
DEPLOY_ACL = DEPLOY / "acl"

INSTALL_HINT = "apt install mosquitto"

# The shipped conf's lines that say where things live on the club's box, or how its one
# listener is reached: the local broker writes its own. Every other line (sizes, queues,
# persistence timing, client ids) is taken as shipped.
PLACE_KEYS = frozenset({
    "pid_file", "user", "listener", "port", "bind_address", "cafile", "capath", "certfile", "keyfile",
    "password_file", "acl_file", "allow_anonymous", "persistence_location", "persistence_file",
    "log_dest", "include_dir",
})
# Options that belong to a TLS listener: dropped when the local broker listens in the clear.
TLS_KEYS = frozenset({"tls_version", "ciphers", "ciphers_tls1.3", "require_certificate", "crlfile"})

# Mosquitto says this once its listeners are open (log type notice).
RUNNING = re.compile(r"mosquitto version \S+ running")

# A bound, not a pause: how long Mosquitto may take to open its port or to stop before the
# local broker gives up and says why. It starts in milliseconds on an idle machine; the bound
# is generous for a loaded test machine.
START_BOUND_S = 20.0
STOP_BOUND_S = 10.0
POLL_S = 0.01


class BrokerError(UserError):
    """The local Mosquitto could not be started or used: one line that says why."""


class MosquittoMissing(BrokerError):
    """The mosquitto binary (or mosquitto_passwd) is not on this machine."""


@dataclass(frozen=True)
class Certificates:
    """PEM files: the certificate authority clients trust, and the server's certificate and key."""

    ca: Path
    cert: Path
    key: Path


def find_program(name: str, search_path: str | None = None) -> str:
    """The path of a Mosquitto program; Debian puts the broker in /usr/sbin, often off a user's PATH."""
    path = search_path if search_path is not None else os.pathsep.join(
        [os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
    found = shutil.which(name, path=path)
    if found is None:
        raise MosquittoMissing(f"{name} is not installed (looked in {path}): {INSTALL_HINT}")
    return found


def make_certificates(directory: Path, hosts: tuple[str, ...] = ("127.0.0.1", "localhost"),
                      authority: str = "dogtable local CA") -> Certificates:
    """A fresh certificate authority and a server certificate for `hosts`, signed by it, in `directory`."""
    # Imported here: `cryptography` is a test (dev) dependency, needed only by a local broker
    # with TLS; a table talking to a club's broker, or a plain local broker, runs without it.
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise BrokerError("a local broker with TLS makes its certificates with the python package "
                          "cryptography: pip install cryptography (or start it without TLS)") from None
    directory.mkdir(parents=True, exist_ok=True)
    # An hour back: a client whose clock is a little behind still finds the certificate valid.
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
    end = start + datetime.timedelta(days=30)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, authority)])
    ca_cert = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
        .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(start).not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(start).not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    out = Certificates(ca=directory / "ca.crt", cert=directory / "server.crt", key=directory / "server.key")
    out.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    out.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    out.key.touch(mode=0o600)
    out.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return out


def shipped_settings(conf: Path, *, tls: bool, allow_anonymous: bool) -> list[str]:
    """The shipped conf's lines that hold on any machine (see PLACE_KEYS), comments dropped."""
    try:
        text = conf.read_text(encoding="utf-8")
    except OSError as exc:
        raise BrokerError(f"cannot read the broker settings {conf} ({exc.strerror}); run from a dogtable checkout") from None
    kept = []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#") or words[0] in PLACE_KEYS:
            continue
        if not tls and words[0] in TLS_KEYS:
            continue
        # An anonymous client has no username to take as its client id: Mosquitto would
        # refuse it, and the broker that lets anonymous clients in exists to show that the
        # access list alone keeps them from the tables' topics.
        if allow_anonymous and words[0] == "use_username_as_clientid":
            continue
        kept.append(line.strip())
    return kept


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class LocalBroker:
    """A Mosquitto subprocess in `directory`, with the club's settings and access list.

    Use: `broker = LocalBroker(dir); broker.add_user("alice", "pw"); broker.start()`, then
    `broker.address` (a BrokerAddress), `broker.ca` (the CA file clients trust, with TLS) and
    `broker.credentials("alice")`; `stop()`, `kill()` (SIGKILL: what a crash leaves behind),
    `restart()` (same port, same persistence). Also a context manager (start ... stop).
    """

    def __init__(self, directory: str | Path, *, tls: bool = True, allow_anonymous: bool = False,
                 certificates: Certificates | None = None, acl: Path = DEPLOY_ACL, conf: Path = DEPLOY_CONF,
                 host: str = "127.0.0.1", search_path: str | None = None) -> None:
        self.directory = Path(directory).resolve()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.tls = tls
        self.allow_anonymous = allow_anonymous
        self.host = host
        self._mosquitto = find_program("mosquitto", search_path)
        self._mosquitto_passwd = find_program("mosquitto_passwd", search_path)
        if not acl.is_file():
            raise BrokerError(f"the access list {acl} is missing; run from a dogtable checkout")
        self.acl = acl
        self._settings = shipped_settings(conf, tls=tls, allow_anonymous=allow_anonymous)
        if tls and certificates is None:
            certificates = make_certificates(self.directory / "certs", tuple(dict.fromkeys((host, "127.0.0.1", "localhost"))))
        self.certificates = certificates if tls else None
        self.password_file = self.directory / "passwd"
        if not self.password_file.exists():
            # Mosquitto warns about a password file others can read; mosquitto_passwd needs it to exist.
            self.password_file.touch(mode=0o600)
        self.conf_path = self.directory / "mosquitto.conf"
        self.log_path = self.directory / "mosquitto.log"
        self._passwords: dict[str, str] = {}
        self._port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    # -- who may log in ------------------------------------------------------------------

    def add_user(self, name: str, password: str) -> None:
        """Let `name` (a table's name, or `club`) log in with `password`; a running broker restarts to read it."""
        if not TABLE_NAME.fullmatch(name):
            raise BrokerError(f"user {name!r} is not a table name; use {TABLE_NAME_RULE}")
        result = subprocess.run([self._mosquitto_passwd, "-b", str(self.password_file), name, password],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise BrokerError(f"mosquitto_passwd could not add {name!r}: {(result.stderr or result.stdout).strip()}")
        self._passwords[name] = password
        if self.running:
            # Mosquitto rereads its password file on SIGHUP but says nothing once it has; a
            # restart is the change a caller can wait for (the port answering again).
            self.restart()

    def credentials(self, name: str) -> Credentials:
        """The credentials a client of this broker logs in with as `name` (added by add_user)."""
        if name not in self._passwords:
            raise BrokerError(f"no user {name!r} on the local broker; add_user it first")
        return Credentials(username=name, password=self._passwords[name],
                           ca=self.certificates.ca if self.certificates else None)

    # -- where it is -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._port is None:
            raise BrokerError("the local broker has no port before it first starts")
        return self._port

    @property
    def address(self) -> BrokerAddress:
        return BrokerAddress(host=self.host, port=self.port, tls=self.tls)

    @property
    def url(self) -> str:
        return self.address.url

    @property
    def ca(self) -> Path | None:
        return self.certificates.ca if self.certificates else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self.running and self._process else None

    # -- running it ------------------------------------------------------------------------

    def start(self) -> None:
        """Start Mosquitto and return once it listens; the port is kept from the first start on."""
        if self.running:
            return
        # A Mosquitto that died on its own (not through stop or kill) leaves its log open.
        self._forget()
        if self._port is not None:
            self._start_on(self._port)
            return
        # Another program may take the free port between the look and Mosquitto's bind:
        # then Mosquitto exits saying so, and another port is tried.
        for _ in range(5):
            port = _free_port(self.host)
            try:
                self._start_on(port)
            except BrokerError:
                if "Address already in use" not in self.log_tail(1):
                    raise
                continue
            self._port = port
            return
        raise BrokerError(f"no free port for the local broker on {self.host}: {self.log_tail()}")

    def stop(self) -> None:
        """Stop Mosquitto as a service manager would (SIGTERM): it saves its persistence first."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """Kill Mosquitto at once (SIGKILL), as a crash or power cut would: nothing is saved."""
        self._end(signal.SIGKILL)

    def restart(self) -> None:
        """Stop, then start on the same port with the same persistence."""
        self.stop()
        self.start()

    def __enter__(self) -> LocalBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log_tail(self, lines: int = 3) -> str:
        """The last lines Mosquitto wrote, on one line (for error messages)."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return " | ".join(line.strip() for line in text.splitlines()[-lines:]) or "(empty log)"

    def _write_conf(self, port: int) -> None:
        lines = [
            "# Written by companion.remote.broker.LocalBroker from deploy/mosquitto/mosquitto.conf.",
            # Mosquitto started by root drops to this user: the current one can read this folder.
            f"user {pwd.getpwuid(os.getuid()).pw_name}",
            f"listener {port} {self.host}",
        ]
        if self.certificates:
            lines += [f"cafile {self.certificates.ca}", f"certfile {self.certificates.cert}",
                      f"keyfile {self.certificates.key}"]
        lines += [
            f"allow_anonymous {'true' if self.allow_anonymous else 'false'}",
            f"password_file {self.password_file}",
            f"acl_file {self.acl}",
            # Mosquitto joins location and file name as they are: the folder needs its slash.
            f"persistence_location {self.directory}/",
            "log_dest stderr",
            *self._settings,
        ]
        self.conf_path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def _start_on(self, port: int) -> None:
        self._write_conf(port)
        # The log of every start is kept, one after the other; this start's words begin here.
        self._log = self.log_path.open("ab")
        begin = self._log.tell()
        # A session of its own: Ctrl-C in the terminal (or a signal to the command's process
        # group) reaches the tables, which stop cleanly, not the broker under them; stop() ends it.
        self._process = subprocess.Popen([self._mosquitto, "-c", str(self.conf_path)],
                                         stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                         start_new_session=True)
        deadline = time.monotonic() + START_BOUND_S
        while True:
            if self._process.poll() is not None:
                self._forget()
                raise BrokerError(f"mosquitto exited on start (port {port}): {self.log_tail()}")
            # Its own word that the listener is open, then the port answering: another
            # program answering on the port would not write this broker's log.
            if RUNNING.search(self._log_since(begin)) and self._answers(port):
                return
            if time.monotonic() > deadline:
                self._end(signal.SIGKILL)
                raise BrokerError(f"mosquitto did not open port {port} within {START_BOUND_S:.0f} s: {self.log_tail()}")
            time.sleep(POLL_S)

    def _log_since(self, offset: int) -> str:
        with self.log_path.open("rb") as fh:
            fh.seek(offset)
            return fh.read().decode("utf-8", errors="replace")

    def _answers(self, port: int) -> bool:
        try:
            with socket.create_connection((self.host, port), timeout=1.0):
                return True
        except OSError:
            return False

    def _end(self, sig: signal.Signals) -> None:
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.send_signal(sig)
            try:
                self._process.wait(timeout=STOP_BOUND_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._forget()

    def _forget(self) -> None:
        self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None
