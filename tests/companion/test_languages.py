"""Five languages from the command line, the config, the service and the page (real Chromium)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from companion import table as T
from companion.cli import main
from companion.config import ConfigError, load_config
from companion.journal import Journal
from companion.service import Service
from companion.settings import ServiceSettings, Settings, WebSettings
from companion.texts import both, player_name
from companion.web.server import WebServer
from engine.messages import LANGUAGES

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def test_check_gives_the_reason_in_the_language_asked(tmp_path: Path, capsys) -> None:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    kennel = ["K", "K", "K", "K"]
    before.write_text(json.dumps({"variant": "classic", "board": 4, "pieces": [kennel] * 4}))
    after.write_text(json.dumps({"variant": "classic", "board": 4, "pieces": [["T0", "K", "K", "K"]] + [kennel] * 3}))
    reasons = {}
    for lang in LANGUAGES:
        assert main(["check", str(before), str(after), "--card", "5", "--seat", "0", "--lang", lang]) == 0
        verdict = json.loads(capsys.readouterr().out)
        assert verdict["legal"] is False
        reasons[lang] = verdict["reason"]
    assert reasons["fr"].startswith("Rouge ne peut pas jouer la carte 5 : seule une carte « départ »")
    assert "zone de départ" in reasons["fr"] and "Startbereich" in reasons["de"] and "startzone" in reasons["nl"]
    assert len(set(reasons.values())) == len(LANGUAGES)
    with pytest.raises(SystemExit) as exc:  # argparse: "invalid choice: 'es' (choose from en, de, fr, it, nl)"
        main(["check", str(before), str(after), "--card", "5", "--seat", "0", "--lang", "es"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_sim_lang_de_sets_the_language_the_page_starts_in(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "companion.cli", "sim", "--port", "0", "--no-browser", "--lang", "de",
           "--journal", str(tmp_path / "s.sqlite"), "--pin", "1234"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not lines or "pairing PIN" not in lines[-1]:
            lines.append(proc.stdout.readline())
            assert lines[-1], "dogtable sim ended early"
        url = next(line.split()[1] for line in lines if line.startswith("open "))
        with urllib.request.urlopen(url + "api/state", timeout=5) as r:
            st = json.loads(r.read())
        assert st["lang"] == "de"
        assert all(set(entry["text"]) == set(LANGUAGES) for entry in st["log"]), st["log"]
        with urllib.request.urlopen(url + "static/texts/de.json", timeout=5) as r:
            assert r.headers["Content-Type"].startswith("application/json")
            assert json.loads(r.read())["undo"] == "Rückgängig"
        for bad in ("static/texts/../app.js", "static/texts/.hidden.json", "static/other/de.json"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(url + bad, timeout=5)
            assert err.value.code == 404
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_config_chooses_the_language_and_names_the_choices(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[service]\nlang = "nl"\n')
    assert load_config([good]).section("service").lang == "nl"
    bad = tmp_path / "bad.toml"
    bad.write_text('[service]\nlang = "es"\n')
    with pytest.raises(ConfigError) as err:
        load_config([bad])
    assert [str(p) for p in err.value.problems] == [
        f"{bad}: service.lang: 'es' is not a language (choose en, de, fr, it, nl)"]


def test_service_messages_come_in_every_language() -> None:
    text = both("card_seen", player=player_name("red"), card="swap")
    assert text == {"en": "Red plays the swap", "de": "Rot spielt die Karte Tauscher",
                    "fr": "Rouge joue la carte échange", "it": "Rosso gioca la carta scambio",
                    "nl": "Rood speelt de ruilkaart"}
    turned = both("disc_turned", direction=lambda lang: both("anticlockwise")[lang])
    assert turned["it"] == "ruota girata in senso antiorario"


# --- the page in real Chromium --------------------------------------------------------------
@pytest.fixture
def german_table(tmp_path: Path) -> Iterator[tuple[Service, WebServer]]:
    """A simulated table whose service speaks German (as `dogtable sim --lang de`)."""
    settings = Settings(replace(ServiceSettings(), lang="de", bot_delay_s=0.0, accept_flash_s=0.05),
                        WebSettings(host="127.0.0.1", port=0, pin="424242", trust_localhost=False))
    service = Service(settings, Journal(tmp_path / "j.sqlite"), sim=True, seed=3)
    service.open(T.Setup("classic", 4, "highlight"))
    web = WebServer(service, settings.web)
    web.start()
    yield service, web
    service.stop()
    web.stop()
    service.journal.close()


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install -y chromium)")
def test_the_page_starts_in_the_service_language_and_switches_to_italian(german_table, tmp_path: Path) -> None:
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    service, web = german_table
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(web.url)
            page.wait_for_selector("[data-field=T0]")
            # no wait_for_function below: the page's CSP forbids eval
            page.wait_for_selector("html[lang=de]")
            assert page.inner_text("#undo") == "Rückgängig"
            assert page.eval_on_selector_all("#lang option", "os => os.map(o => o.textContent)") == [
                "English", "Deutsch", "Français", "Italiano", "Nederlands"]
            assert page.input_value("#lang") == "de"
            page.screenshot(path=str(tmp_path / "phone-de.png"), full_page=True)
            page.select_option("#lang", "it")
            page.wait_for_selector("html[lang=it]")
            assert page.inner_text("#undo") == "Annulla"
            assert page.text_content("[data-i18n=log]") == "Cronologia della partita"  # shown in capitals by CSS
            assert page.inner_text("#mode option[value=referee]") == "Arbitro"
            page.screenshot(path=str(tmp_path / "phone-it.png"), full_page=True)
            # the choice belongs to this phone: it survives a reload, and the table still speaks German
            page.reload()
            page.wait_for_selector("[data-field=T0]")
            page.wait_for_selector("html[lang=it]")
            assert page.inner_text("#undo") == "Annulla"
            assert service.lang == "de"
        finally:
            browser.close()
    assert not [e for e in errors if "favicon" not in e], errors
