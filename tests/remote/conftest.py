"""A real Mosquitto for the remote-play tests, with the club's settings and access list, and clients for it.

The brokers are module-scoped (one start per test module and xdist worker) so the suite stays
quick; a test that stops or restarts a broker makes its own. Without the mosquitto binary the
tests that need one skip, saying how to install it.
"""
from __future__ import annotations

import asyncio
import secrets
import ssl
from collections.abc import Callable, Iterator
from pathlib import Path

import aiomqtt
import pytest

from companion.remote.broker import LocalBroker, MosquittoMissing, find_program

TABLES = ("alice", "bob", "carol")
USERS = (*TABLES, "club")
# Root of the protocol's topics (REMOTE.md).
ROOT = "dogtable/v1"

# A bound on waiting for a message that must come, not a pause: the tests wait for a marker
# message, and this only turns a broken broker into a failure instead of a hang.
ARRIVAL_BOUND_S = 20.0


def mosquitto_or_skip() -> None:
    try:
        find_program("mosquitto")
        find_program("mosquitto_passwd")
    except MosquittoMissing as exc:
        pytest.skip(str(exc))


def start_broker(directory: Path, **options: object) -> LocalBroker:
    """A started LocalBroker in `directory` whose users are the three tables and the club."""
    mosquitto_or_skip()
    broker = LocalBroker(directory, **options)  # type: ignore[arg-type]
    for name in USERS:
        broker.add_user(name, secrets.token_urlsafe(12))
    broker.start()
    return broker


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBroker]:
    """The club's broker: TLS, passwords, the shipped access list; users alice, bob, carol, club."""
    b = start_broker(tmp_path_factory.mktemp("broker"))
    yield b
    b.stop()


@pytest.fixture(scope="module")
def open_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBroker]:
    """The same broker letting anonymous clients in: only the access list stands between them and the tables."""
    b = start_broker(tmp_path_factory.mktemp("open-broker"), allow_anonymous=True)
    yield b
    b.stop()


def tls_context(ca: Path) -> ssl.SSLContext:
    """What a table checks: the broker's certificate is signed by the club's CA and names the host."""
    return ssl.create_default_context(cafile=str(ca))


def client(broker: LocalBroker, user: str | None, *, password: str | None = None, ca: Path | None = None,
           **options: object) -> aiomqtt.Client:
    """An MQTT 5 client of `broker` logging in as `user` (its own password unless one is given; None: anonymous)."""
    if user is not None and password is None:
        password = broker.credentials(user).password
    context = tls_context(ca or broker.ca) if broker.tls else None  # type: ignore[arg-type]
    return aiomqtt.Client(broker.host, broker.port, username=user, password=password,
                          protocol=aiomqtt.ProtocolVersion.V5, tls_context=context, **options)  # type: ignore[arg-type]


async def collect_until(mqtt: aiomqtt.Client, is_last: Callable[[aiomqtt.Message], bool]) -> list[aiomqtt.Message]:
    """Every message `mqtt` receives up to and including the first for which `is_last` holds."""
    got: list[aiomqtt.Message] = []
    async with asyncio.timeout(ARRIVAL_BOUND_S):
        async for message in mqtt.messages:
            got.append(message)
            if is_last(message):
                return got
    raise AssertionError(f"the client was disconnected before the last message; it had {len(got)}")
