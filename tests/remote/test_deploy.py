"""The club's recipe on a real Mosquitto: certificates from make-certs.sh, a login from add-table.sh."""
from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.remote.broker import DEPLOY, Certificates, LocalBroker
from companion.remote.credentials import load_credentials
from tests.remote.conftest import client, mosquitto_or_skip


def run(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DEPLOY / script), *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed: apt install openssl")
def test_the_clubs_certificates_and_login_let_a_table_in(tmp_path: Path) -> None:
    mosquitto_or_skip()
    made = run("make-certs.sh", "127.0.0.1", "certs", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "make-certs: certs/server.crt for IP:127.0.0.1, signed by certs/ca.crt"
    certs = Certificates(ca=tmp_path / "certs" / "ca.crt", cert=tmp_path / "certs" / "server.crt",
                         key=tmp_path / "certs" / "server.key")
    broker = LocalBroker(tmp_path / "broker", certificates=certs)
    added = run("add-table.sh", "alice", str(broker.password_file), cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    # The printed file is what the table keeps; its `ca` points at the table's copy of ca.crt.
    remote = tmp_path / "remote.toml"
    remote.write_text(added.stdout.replace('"/etc/dogtable/ca.crt"', f'"{certs.ca}"'), encoding="utf-8")
    remote.chmod(0o600)
    creds = load_credentials(remote)
    assert creds.username == "alice" and creds.ca == certs.ca

    async def log_in() -> None:
        async with client(broker, "alice", password=creds.password, ca=creds.ca) as alice:
            await alice.publish("dogtable/v1/tables/alice/presence", b'{"v":1}', qos=1)

    with broker:
        asyncio.run(log_in())


def test_add_table_refuses_a_name_that_would_reach_other_tables_topics(tmp_path: Path) -> None:
    mosquitto_or_skip()
    for name in ("alice/tables/bob", "+", "#", "Alice", ""):
        added = run("add-table.sh", name, str(tmp_path / "passwd"), cwd=tmp_path)
        assert added.returncode == 2, name
        assert "is not a table name" in added.stderr
    assert not (tmp_path / "passwd").exists()
