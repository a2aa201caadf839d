"""Fixtures for the bridge tests: a simulated MCU on a real pty and a client on it, both
torn down even when a test fails, with timings short enough for quick recovery."""
import time

import pytest

from firmware_bridge import BridgeClient, LinkTimings
from firmware_bridge.simulator import SimulatedMCU

FAST = LinkTimings(
    handshake_timeout_s=0.1,
    handshake_tries=3,
    silence_timeout_s=0.6,
    reconnect_interval_s=0.05,
    ping_interval_s=0.2,
)


@pytest.fixture
def make_sim():
    sims = []

    def make(**kwargs):
        sim = SimulatedMCU(**kwargs).start()
        sims.append(sim)
        return sim

    yield make
    for sim in sims:
        sim.stop()


@pytest.fixture
def make_client():
    clients = []

    def make(port, **kwargs):
        kwargs.setdefault("timings", FAST)
        client = BridgeClient(port, **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def _wait_for(predicate, timeout=5.0, step=0.01):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


@pytest.fixture
def wait_for():
    """Poll a condition with a deadline, so a broken link fails a test instead of hanging it."""
    return _wait_for
