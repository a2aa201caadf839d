"""Fixtures for the service tests: a running service with its web server on a free port.

Also makes the helper module beside this file (polling) importable.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from companion.service import Service
from companion.settings import ServiceSettings, Settings, WebSettings
from companion.web.server import WebServer

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from phone import HOST_PIN  # noqa: E402
from simulated_rig import served  # noqa: E402  (beside this file: importable once HERE is on the path)


@pytest.fixture
def web_service(tmp_path: Path) -> Iterator[tuple[Service, WebServer]]:
    """A simulated table with its web page; localhost is NOT trusted, so pairing is tested
    (PIN 424242 pairs a player, HOST_PIN a host)."""
    settings = Settings(replace(ServiceSettings(), bot_delay_s=0.0, accept_flash_s=0.05),
                        WebSettings(host="127.0.0.1", port=0, pin="424242", host_pin=HOST_PIN,
                                    trust_localhost=False))
    with served(settings, tmp_path / "j.sqlite") as serving:
        yield serving


@pytest.fixture
def trusted_web_service(tmp_path: Path) -> Iterator[tuple[Service, WebServer, int]]:
    """As a table runs: 127.0.0.1 (the Pi's own browser) is trusted; phones come from
    127.0.0.2 and on. Short head and body timeouts, so that cut-offs are quick to see."""
    settings = Settings(replace(ServiceSettings(), bot_delay_s=0.0, accept_flash_s=0.05),
                        WebSettings(host="127.0.0.1", port=0, pin="424242", host_pin=HOST_PIN,
                                    trust_localhost=True, head_timeout_s=0.5, body_timeout_s=0.5))
    with served(settings, tmp_path / "j.sqlite") as (service, web):
        yield service, web, web.sock.getsockname()[1]
