"""The broker URL and the credentials file: what a table accepts, and the one line it says otherwise."""
from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from companion.errors import UserError
from companion.remote.credentials import BrokerAddress, Credentials, load_credentials, parse_broker_url


@pytest.mark.parametrize("url, address", [
    ("mqtt://club.local", BrokerAddress("club.local", 1883, False)),
    ("mqtts://club.local", BrokerAddress("club.local", 8883, True)),
    ("mqtts://club.local:9883", BrokerAddress("club.local", 9883, True)),
    ("MQTTS://Club.Local:8883/", BrokerAddress("club.local", 8883, True)),
    ("mqtt://192.168.1.20:1884", BrokerAddress("192.168.1.20", 1884, False)),
    ("mqtts://[fd00::1]", BrokerAddress("fd00::1", 8883, True)),
])
def test_a_broker_url_gives_host_port_and_tls(url: str, address: BrokerAddress) -> None:
    assert parse_broker_url(url) == address


def test_an_address_prints_back_as_its_url() -> None:
    assert BrokerAddress("fd00::1", 8883, True).url == "mqtts://[fd00::1]:8883"
    assert parse_broker_url(parse_broker_url("mqtt://club.local").url) == BrokerAddress("club.local", 1883, False)


@pytest.mark.parametrize("url, why", [
    ("http://club.local", "unknown scheme 'http'"),
    ("club.local:8883", "no scheme"),
    ("mqtts://", "no host"),
    ("mqtts://:8883", "no host"),
    ("mqtts://club.local:0", "port"),
    ("mqtts://club.local:65536", "port"),
    ("mqtts://club.local:x", "port"),
    ("mqtts://club_local", "not a host name"),
    ("mqtts://club.local/games", "path"),
    ("mqtts://alice:hunter2@club.local", "credentials file"),
])
def test_a_bad_broker_url_is_one_line_naming_it_and_the_accepted_forms(url: str, why: str) -> None:
    with pytest.raises(UserError) as bad:
        parse_broker_url(url)
    said = str(bad.value)
    assert "\n" not in said
    assert why in said
    assert "mqtt://HOST[:PORT]" in said and "mqtts://HOST[:PORT]" in said
    assert "hunter2" not in said
    assert said.startswith(f"broker URL {url.replace(':hunter2@', ':***@')!r}")


def write(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def test_a_credentials_file_gives_the_login_and_paths_from_its_folder(tmp_path: Path) -> None:
    (tmp_path / "ca.crt").write_text("pem")
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "alice.crt").write_text("pem")
    (tmp_path / "keys" / "alice.key").write_text("pem")
    file = write(tmp_path / "remote.toml", 'username = "alice"\npassword = "s3cret"\nca = "ca.crt"\n'
                 'client_cert = "keys/alice.crt"\nclient_key = "keys/alice.key"\n')
    assert load_credentials(file) == Credentials(
        username="alice", password="s3cret", ca=tmp_path / "ca.crt",
        client_cert=tmp_path / "keys" / "alice.crt", client_key=tmp_path / "keys" / "alice.key")


def test_the_certificate_keys_are_optional_and_the_password_never_printed(tmp_path: Path) -> None:
    creds = load_credentials(write(tmp_path / "remote.toml", 'username = "bob"\npassword = "s3cret"\n'))
    assert (creds.username, creds.ca, creds.client_cert, creds.client_key) == ("bob", None, None, None)
    assert "s3cret" not in repr(creds)


@pytest.mark.parametrize("text, why", [
    ('password = "x"\n', "missing key 'username'"),
    ('username = "alice"\n', "missing key 'password'"),
    ('username = "alice"\npassword = 1234\n', "password must be a quoted string, not int"),
    ('username = "alice"\npassword = ""\n', "password is empty"),
    ('username = "Alice Table"\npassword = "x"\n', "is not a table name"),
    ('username = "a/b"\npassword = "x"\n', "is not a table name"),
    ('username = "alice"\npassword = "x"\nca = "missing.crt"\n', "ca = 'missing.crt': no such file"),
    ('username = "alice"\npassword = "x"\nca = 3\n', "ca must be a quoted path"),
    ('username = "alice"\npassword = "x"\nclient_cert = "remote.toml"\n', "client_cert is given without client_key"),
    ('username = "alice"\npassword = "x"\nbroker = "mqtts://h"\n', "unknown key 'broker'"),
    ('username = "alice"\npassword = "x\n', "is not valid TOML"),
])
def test_a_bad_credentials_file_is_one_line_naming_the_file_and_key(tmp_path: Path, text: str, why: str) -> None:
    file = write(tmp_path / "remote.toml", text)
    with pytest.raises(UserError) as bad:
        load_credentials(file)
    said = str(bad.value)
    assert "\n" not in said
    assert said.startswith(f"credentials file {file}: ")
    assert why in said


def test_a_missing_or_unreadable_credentials_file_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"remote\.toml: no such file; create it"):
        load_credentials(tmp_path / "remote.toml")
    with pytest.raises(UserError, match="is a folder"):
        load_credentials(tmp_path)
    with pytest.raises(UserError, match="is not UTF-8"):
        (tmp_path / "latin.toml").write_bytes(b'username = "\xe9"\n')
        load_credentials(tmp_path / "latin.toml")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file: an unreadable file needs another user")
def test_a_credentials_file_this_user_cannot_read_says_so(tmp_path: Path) -> None:
    file = write(tmp_path / "remote.toml", 'username = "alice"\npassword = "x"\n', mode=0o000)
    with pytest.raises(UserError, match="cannot be read by this user"):
        load_credentials(file)


def test_a_credentials_file_others_can_read_is_warned_about(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    file = write(tmp_path / "remote.toml", 'username = "alice"\npassword = "x"\n', mode=0o644)
    with caplog.at_level(logging.WARNING, logger="companion.remote.credentials"):
        load_credentials(file)
    assert [r.getMessage() for r in caplog.records] == [
        f"credentials file {file}: others can read the broker password in it; chmod 600 {file}"]
    caplog.clear()
    file.chmod(0o600)
    with caplog.at_level(logging.WARNING, logger="companion.remote.credentials"):
        load_credentials(file)
    assert caplog.records == []
