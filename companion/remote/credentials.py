"""Where a table's broker is and how it logs in: the `[remote] broker` URL and the credentials file.

The credentials file is TOML kept apart from the config (it holds a password; docs/remote.md):

    username = "alice"            # the table's name, its MQTT username
    password = "..."
    ca = "/etc/dogtable/ca.crt"   # optional: the club's certificate authority for mqtts://
    client_cert = "..."           # optional, with client_key: a client certificate
    client_key = "..."

Relative paths are read from the credentials file's folder. Every mistake is a `UserError`
whose one line names the file (or URL), the key and what to do.
"""
from __future__ import annotations

import logging
import json
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from companion.errors import UserError

log = logging.getLogger(__name__)

# A table's name is its MQTT username and a whole level of the topics the broker's access
# list grants it (deploy/mosquitto/acl): a '/', '+' or '#' in it would reach other tables'
# topics, so only these names are accepted.
TABLE_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
TABLE_NAME_RULE = "1 to 32 of a-z, 0-9 and '-', starting with a letter or digit"

PLAIN_PORT = 1883
TLS_PORT = 8883
URL_FORMS = "mqtt://HOST[:PORT] (plain, port 1883) or mqtts://HOST[:PORT] (TLS, port 8883)"

# A host name's characters (RFC 1123 labels) or an IPv4 address; an IPv6 address comes in brackets.
_HOST_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")


@dataclass(frozen=True)
class BrokerAddress:
    """Where the broker listens, and whether the connection is TLS."""

    host: str
    port: int
    tls: bool

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{host}:{self.port}"


@dataclass(frozen=True)
class Credentials:
    """How a table logs in to the broker; `ca` (and a client certificate) for TLS."""

    username: str
    password: str = field(repr=False)
    ca: Path | None = None
    client_cert: Path | None = None
    client_key: Path | None = None


def parse_broker_url(url: str) -> BrokerAddress:
    """`mqtt://host[:port]` or `mqtts://host[:port]` -> BrokerAddress; anything else is a UserError."""

    if not isinstance(url, str):
        raise UserError(f"broker URL {url!r} is not text; use {URL_FORMS}")
    parts = urlsplit(url.strip())
    # The message names the URL, but never a password someone put in it.
    shown = url if parts.password is None else url.replace(f":{parts.password}@", ":***@")

    def bad(what: str) -> UserError:
        return UserError(f"broker URL {shown!r}: {what}; use {URL_FORMS}")

    if "://" not in url:
        raise bad("no scheme")
    scheme = parts.scheme.lower()
    if scheme not in ("mqtt", "mqtts"):
        raise bad(f"unknown scheme {parts.scheme!r}")
    if parts.username is not None or parts.password is not None:
        raise bad("a user or password in the URL (they belong in the [remote] credentials file)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise bad("a path, query or fragment after the host")
    try:
        port = parts.port
    except ValueError:
        raise bad("the port is not a number from 1 to 65535") from None
    host = parts.hostname or ""
    if not host:
        raise bad("no host")
    if ":" in host:
        if not re.fullmatch(r"[0-9a-fA-F:.]+", host):
            raise bad(f"host {host!r} is not an IPv6 address")
    elif not _HOST_NAME.fullmatch(host) or len(host) > 253:
        raise bad(f"host {host!r} is not a host name or address")
    tls = scheme == "mqtts"
    if port == 0:
        raise bad("the port is not a number from 1 to 65535")
    return BrokerAddress(host=host, port=port if port is not None else (TLS_PORT if tls else PLAIN_PORT), tls=tls)


def load_credentials(path: str | Path) -> Credentials:
    """Read and check a credentials file; warn when others than its owner may read it."""
    path = Path(path).expanduser()
    where = f"credentials file {path}"
    try:
        raw = path.read_bytes()
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise UserError(f"{where}: no such file; create it (docs/remote.md) or fix [remote] credentials") from None
    except IsADirectoryError:
        raise UserError(f"{where}: is a folder; point [remote] credentials at the TOML file") from None
    except PermissionError:
        raise UserError(f"{where}: cannot be read by this user; let the service's user read it (chmod 600, chown)") from None
    except OSError as exc:
        raise UserError(f"{where}: cannot be read ({exc.strerror}); check the disk and the path") from None
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        log.warning("%s: others can read the broker password in it; chmod 600 %s", where, path)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UserError(f"{where}: is not UTF-8 text; write it as TOML (docs/remote.md)") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{where}: is not valid TOML ({exc}); fix that line") from None

    unknown = sorted(set(data) - {"username", "password", "ca", "client_cert", "client_key"})
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r}; the keys are username, password, ca, client_cert, client_key")
    username = _text(data, "username", where)
    if not TABLE_NAME.fullmatch(username):
        raise UserError(f"{where}: username {username!r} is not a table name; use {TABLE_NAME_RULE}")
    password = _text(data, "password", where)
    ca = _file(data, "ca", where, path.parent)
    cert = _file(data, "client_cert", where, path.parent)
    key = _file(data, "client_key", where, path.parent)
    if (cert is None) != (key is None):
        given, missing = ("client_cert", "client_key") if cert is not None else ("client_key", "client_cert")
        raise UserError(f"{where}: {given} is given without {missing}; give both or neither")
    return Credentials(username=username, password=password, ca=ca, client_cert=cert, client_key=key)


def _text(data: dict[str, Any], key: str, where: str) -> str:
    if key not in data:
        raise UserError(f"{where}: missing key {key!r}; add {key} = \"...\" (docs/remote.md)")
    value = data[key]
    if not isinstance(value, str):
        raise UserError(f"{where}: {key} must be a quoted string, not {type(value).__name__}; write {key} = \"...\"")
    if not value:
        raise UserError(f"{where}: {key} is empty; give the {key} the club's broker has for this table")
    return value


def _file(data: dict[str, Any], key: str, where: str, base: Path) -> Path | None:
    if key not in data:
        return None
    value = data[key]
    if not isinstance(value, str) or not value:
        raise UserError(f"{where}: {key} must be a quoted path to a file; write {key} = \"/path/to/file\"")
    file = (base / Path(value).expanduser()).resolve()
    if not file.is_file():
        raise UserError(f"{where}: {key} = {value!r}: no such file ({file}); copy it there or fix the path")
    return file


def write_credentials(creds: Credentials, path: Path) -> Path:
    """A credentials file as `load_credentials` reads it, readable by its owner only."""
    ca = f'ca = "{creds.ca}"\n' if creds.ca else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f"username = {json.dumps(creds.username)}\npassword = {json.dumps(creds.password)}\n{ca}")
    return path
