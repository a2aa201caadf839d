"""After a power cut damaged the journal, the page tells the players what came back (real Chromium)."""
from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from companion import table as T
from companion.cli import build_parser
from companion.commands.service import settings_from_args, start_service
from companion.journal import Journal
from companion.simulated.scripted import scripted_game
from companion.service import Service
from companion.settings import Settings

from tests.companion.test_journal_damage import crash
from tests.companion.test_languages import ARGS, CHROMIUM


def _damaged_journal(path: Path, events: int) -> None:
    svc = Service(Settings(), Journal(path))
    svc.open(T.Setup(crash.VARIANT, crash.PLAYERS, "highlight"))
    for step, _ in list(scripted_game(crash.VARIANT, crash.PLAYERS, seed=5))[:events]:
        svc.submit(step.event)
    svc.journal.close()
    crash.DAMAGES["garbage header"][1](path)


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install -y chromium)")
def test_the_page_says_in_its_language_that_the_journal_was_repaired(tmp_path: Path) -> None:
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    journal = tmp_path / "s.sqlite"
    _damaged_journal(journal, 40)
    config = tmp_path / "empty.toml"
    config.write_text("")
    args = build_parser().parse_args(["sim", "--lang", "de", "--port", "0", "--no-browser", "--pin", "424242",
                                      "--config", str(config), "--journal", str(journal)])
    running = start_service(args, settings_from_args(args, sim=True), sim=True)
    try:
        with urllib.request.urlopen(running.web.url + "api/state", timeout=5) as r:
            repaired = json.loads(r.read())["journal_repaired"]
        assert repaired["games"] == 1 and repaired["events"] == 40 and repaired["lost"] == 0
        assert repaired["kept_as"].startswith("s.sqlite.damaged-")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = browser.new_page(viewport={"width": 390, "height": 844})
                page.goto(running.web.url)
                page.wait_for_selector("html[lang=de]")
                page.wait_for_selector("#journal:not([hidden])")
                text = page.inner_text("#journal")
                assert text.startswith("Das Spielprotokoll war beschädigt (ein Stromausfall?) und wurde repariert: "
                                       "1 Spiel(e) mit 40 Zügen")
                assert "Verloren: 0." in text and repaired["kept_as"] in text
                page.select_option("#lang", "en")
                page.wait_for_selector("html[lang=en]")
                assert page.inner_text("#journal").startswith("The game journal was damaged")
            finally:
                browser.close()
    finally:
        running.stop()


def test_a_healthy_journal_shows_no_repair_notice(tmp_path: Path) -> None:
    svc = Service(Settings(), Journal(tmp_path / "ok.sqlite"))
    svc.open(T.Setup("classic", 4, "highlight"))
    try:
        assert svc.snapshot()["journal_repaired"] is None
    finally:
        svc.stop()
        svc.journal.close()
