"""Five languages from the command line, the config, the service and the page (real Chromium)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.cli import build_parser, main
from companion.commands.service import Running, settings_from_args, start_service
from companion.config import ConfigError, load_config
from companion.texts import both, player_name
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


@pytest.fixture
def sim_de(tmp_path: Path) -> Iterator[Running]:
    """What `dogtable sim --lang de` starts (the real parser, settings and service), in process."""
    config = tmp_path / "empty.toml"
    config.write_text("")
    args = build_parser().parse_args(["sim", "--lang", "de", "--port", "0", "--no-browser", "--pin", "424242",
                                      "--config", str(config), "--journal", str(tmp_path / "s.sqlite")])
    running = start_service(args, settings_from_args(args, sim=True), sim=True)
    yield running
    running.stop()


def test_sim_lang_de_sets_the_language_the_page_starts_in(sim_de: Running) -> None:
    url = sim_de.web.url
    with urllib.request.urlopen(url + "api/state", timeout=5) as r:
        st = json.loads(r.read())
    assert st["lang"] == "de"
    assert st["log"] and all(set(entry["text"]) == set(LANGUAGES) for entry in st["log"]), st["log"]
    with urllib.request.urlopen(url + "static/texts/de.json", timeout=5) as r:
        assert r.headers["Content-Type"].startswith("application/json")
        assert json.loads(r.read())["undo"] == "Rückgängig"
    for bad in ("static/texts/../app.js", "static/texts/.hidden.json", "static/other/de.json", "static/texts/x/de.json"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(url + bad, timeout=5)
        assert err.value.code == 404, bad


def test_the_table_speaks_with_the_voice_of_its_language(sim_de: Running, monkeypatch) -> None:
    import companion.speech

    spoken: list[list[str]] = []
    monkeypatch.setattr(companion.speech.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(companion.speech.subprocess, "Popen", lambda argv, **kw: spoken.append(argv))
    for lang in LANGUAGES:
        companion.speech.speak(lang, "…")
    assert [argv[1:3] for argv in spoken] == [["-v", lang] for lang in LANGUAGES]


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="espeak-ng is not installed (apt-get install -y espeak-ng)")
def test_espeak_ng_has_a_voice_for_every_language(tmp_path: Path) -> None:
    for lang in LANGUAGES:
        wav = tmp_path / f"{lang}.wav"
        done = subprocess.run(["espeak-ng", "-v", lang, "-w", str(wav), both("setup_ok")[lang]],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and not done.stderr, (lang, done.stderr)
        assert wav.stat().st_size > 1000


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
    assert text == {"en": "Red plays the swap card", "de": "Rot spielt die Karte Tauscher",
                    "fr": "Rouge joue la carte échange", "it": "Rosso gioca la carta scambio",
                    "nl": "Rood speelt de ruilkaart"}
    turned = both("disc_turned", direction=lambda lang: both("anticlockwise")[lang])
    assert turned["it"] == "ruota girata in senso antiorario"


# --- the page in real Chromium --------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install -y chromium)")
@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_the_page_starts_in_the_service_language_and_switches_to_italian(sim_de: Running, width: int, height: int) -> None:
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    service, web = sim_de.service, sim_de.web
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            shots = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser" / f"{width}x{height}"  # kept as test artefacts
            shots.mkdir(parents=True, exist_ok=True)
            page.goto(web.url)
            page.wait_for_selector("[data-field=T0]")
            # no wait_for_function below: the page's CSP forbids eval
            page.wait_for_selector("html[lang=de]")
            assert page.inner_text("#undo") == "Rückgängig"
            assert page.eval_on_selector_all("#lang option", "os => os.map(o => o.textContent)") == [
                "English", "Deutsch", "Français", "Italiano", "Nederlands"]
            assert page.input_value("#lang") == "de"
            page.screenshot(path=str(shots / "lang-de.png"), full_page=True)
            page.select_option("#lang", "it")
            page.wait_for_selector("html[lang=it]")
            assert page.inner_text("#undo") == "Annulla"
            assert page.text_content("[data-i18n=log]") == "Cronologia della partita"  # shown in capitals by CSS
            assert page.inner_text("#mode option[value=referee]") == "Arbitro"
            page.screenshot(path=str(shots / "lang-it.png"), full_page=True)
            # the choice belongs to this phone: it survives a reload, and the table still speaks German
            page.reload()
            page.wait_for_selector("[data-field=T0]")
            page.wait_for_selector("html[lang=it]")
            assert page.inner_text("#undo") == "Annulla"
            assert service.lang == "de"
        finally:
            browser.close()
    assert not [e for e in errors if "favicon" not in e], errors
