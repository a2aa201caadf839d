"""`dogtable sim --remote` as a person runs it: a local Mosquitto, two linked tables, both pages
opened; Ctrl-C ends it cleanly; without Mosquitto, one line naming the package."""
from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from tests.remote.conftest import mosquitto_or_skip

ROOT = Path(__file__).resolve().parents[2]
START_BOUND_S = 60.0  # a bound on the start (a broker, two services), not a pause


def dogtable(*args: str, env: dict[str, str] | None = None, code: str | None = None) -> subprocess.Popen[str]:
    run = code or "import sys; from companion.cli import main; sys.exit(main(sys.argv[1:]))"
    # a session of its own, as a terminal gives a command: Ctrl-C is a signal to its whole process group
    return subprocess.Popen([sys.executable, "-c", run, *args], cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
                            start_new_session=True)


def reader(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)
    threading.Thread(target=read, daemon=True).start()
    return lines


def test_sim_remote_starts_a_broker_and_two_tables_and_opens_both_pages(tmp_path: Path) -> None:
    mosquitto_or_skip()
    proc = dogtable("sim", "--remote", "--port", "0", "--journal", str(tmp_path / "j.sqlite"),
                    env={"BROWSER": "echo opened %s"})  # the browser webbrowser.open starts: here, a line
    out = reader(proc)
    lines: list[str] = []
    try:
        deadline = time.monotonic() + START_BOUND_S
        while sum(line.startswith("opened ") for line in lines) < 2:
            try:
                lines.append(out.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError("both pages were not opened:\n" + "".join(lines[-20:])) from None
        text = "".join(lines)
        pages = re.findall(r"(?:alice hosts seats 0,2|bob joined with seats 1,3): open (http://\S+)", text)
        assert len(pages) == 2 and pages[0] != pages[1], text
        assert re.search(r"broker mqtts://127\.0\.0\.1:\d+ \(a local Mosquitto\)", text)
        assert sorted(re.findall(r"^opened (\S+)$", text, re.M)) == sorted(pages)
        for page in pages:
            with urllib.request.urlopen(page, timeout=10) as answer:
                assert answer.status == 200
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the command's whole process group
        proc.wait(timeout=30)
        time.sleep(0.2)
        rest = "".join(iter_queue(out))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, rest
    assert not re.search(r"^(WARNING|ERROR)", rest, re.M), rest  # the tables stop before their broker


def iter_queue(q: queue.Queue[str]):
    while True:
        try:
            yield q.get_nowait()
        except queue.Empty:
            return


def test_sim_remote_without_mosquitto_says_apt_install_mosquitto(tmp_path: Path) -> None:
    hide = ("import sys; import companion.remote.broker as b; found = b.find_program; "
            "b.find_program = lambda name, search_path=None: found(name, sys.argv[-1]); "
            "from companion.cli import main; sys.exit(main(sys.argv[1:-1]))")
    proc = dogtable("sim", "--remote", "--no-browser", "--journal", str(tmp_path / "j.sqlite"), str(tmp_path),
                    code=hide)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert out.count("\n") == 1 and out.startswith("dogtable: error: mosquitto is not installed"), out
    assert out.rstrip().endswith(": apt install mosquitto")


def test_a_host_that_cannot_reach_its_broker_says_one_line_and_leaves_its_journal_as_it_was(tmp_path: Path) -> None:
    from companion.journal import Journal

    creds = tmp_path / "alice.toml"
    creds.write_text('username = "alice"\npassword = "not-used"\n')
    creds.chmod(0o600)
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    journal = tmp_path / "j.sqlite"
    proc = dogtable("sim", "--broker", f"mqtt://127.0.0.1:{port}", "--credentials", str(creds), "--host-game",
                    "--seats", "0,2", "--new", "--no-browser", "--port", "0", "--journal", str(journal))
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert out == f"dogtable: error: cannot reach the broker at 127.0.0.1:{port}: connection refused " \
                  "(is mosquitto running there?)\n"
    if journal.exists():
        j = Journal(journal, readonly=True)
        try:
            assert j.games() == []
        finally:
            j.close()
