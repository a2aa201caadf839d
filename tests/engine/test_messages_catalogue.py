"""The text catalogue: every language has every sentence, with the same placeholders, translated.

The PO files are read here with Babel directly (not through engine.messages), so a broken
loader cannot hide a broken catalogue. The referee's reasons are then checked, per language,
for the words the rulebooks in that language use.
"""
from __future__ import annotations

import importlib.util
import json
import re
import shutil
import string
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import engine
from engine import messages
from engine.messages import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = {  # room -> PO file for a language
    "engine": "engine/locale/{lang}/LC_MESSAGES/engine.po",
    "companion": "companion/locale/{lang}/LC_MESSAGES/companion.po",
    "page": "companion/locale/{lang}/LC_MESSAGES/page.po",
}
# Sentences that are rightly the same as in English (a word the languages share).
SAME_AS_ENGLISH = {
    ("engine", "fr", "card_joker"), ("engine", "nl", "card_joker"), ("engine", "it", "card_partner"),
    ("engine", "fr", "colour_orange"),
    ("companion", "nl", "mode_training"),
    ("page", "fr", "mode"), ("page", "de", "training"), ("page", "nl", "training"), ("page", "nl", "camera"),
    ("page", "fr", "orange"), ("page", "de", "orange"), ("page", "fr", "card_joker"), ("page", "nl", "card_joker"),
    # royal rank letters on the pieces: K(önig), K(oning) and F(ou) are the initials there too
    ("page", "de", "rank_0"), ("page", "nl", "rank_0"), ("page", "fr", "rank_3"),
}


def po(room: str, lang: str) -> dict[str, str]:
    with (ROOT / CATALOGUES[room].format(lang=lang)).open("rb") as fh:
        cat = read_po(fh, locale=lang)
    assert not [m.id for m in cat if m.id and m.fuzzy], f"{room}/{lang}: fuzzy entries must be checked"
    return {str(m.id): str(m.string) for m in cat if m.id}


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("room", CATALOGUES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_every_sentence_with_the_same_placeholders(room: str, lang: str) -> None:
    english, mine = po(room, "en"), po(room, lang)
    assert len(english) > 30
    assert sorted(set(english) - set(mine)) == [], f"{room}/{lang} lacks these keys"
    assert sorted(set(mine) - set(english)) == [], f"{room}/{lang} has keys English lacks"
    for key, text in mine.items():
        assert text, f"{room}/{lang}: '{key}' is empty"
        names = fields(text)
        assert names == fields(english[key]), f"{room}/{lang}: '{key}' placeholders differ from English"
        assert all(n.isidentifier() for n in names), f"{room}/{lang}: '{key}' needs named placeholders"
        filled = text.format(**{n: f"<{n}>" for n in names})
        assert "{" not in filled and "}" not in filled, f"{room}/{lang}: '{key}' -> {filled!r}"


@pytest.mark.parametrize("room", CATALOGUES)
@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_no_sentence_is_left_in_english(room: str, lang: str) -> None:
    english, mine = po(room, "en"), po(room, lang)
    left = [key for key, text in mine.items()
            if text == english[key] and re.search(r"[^\W\d_]", re.sub(r"\{\w+\}", "", text))
            and (room, lang, key) not in SAME_AS_ENGLISH]
    assert left == [], f"{room}/{lang}: still English"


def test_every_key_the_code_asks_for_is_in_the_catalogue() -> None:
    """Keys named in the code (say(lang, "x"), both("x"), t("x"), data-i18n="x") all exist."""
    asked = {
        "engine": set(re.findall(r'\bsay\(lang, "(\w+)"', (ROOT / "engine/referee.py").read_text())),
        "companion": {key for path in sorted((ROOT / "companion/table").glob("*.py"))
                      for key in re.findall(r'\bboth\("(\w+)"', path.read_text())},
        "page": set(re.findall(r'\bthis\.t\("(\w+)"', (ROOT / "companion/web/static/app.js").read_text()))
        | set(re.findall(r'data-i18n(?:-label)?="(\w+)"', (ROOT / "companion/web/static/index.html").read_text())),
    }
    for room, keys in asked.items():
        assert len(keys) > 5, room
        assert sorted(keys - set(po(room, "en"))) == [], f"{room}: asked for but not in the catalogue"


def test_page_json_matches_page_po() -> None:
    folder = ROOT / "companion/web/static/texts"
    for lang in LANGUAGES:
        assert json.loads((folder / f"{lang}.json").read_text(encoding="utf-8")) == po("page", lang), (
            f"{lang}.json is stale: run scripts/catalogue.py page-json")
    listed = json.loads((folder / "languages.json").read_text(encoding="utf-8"))
    assert listed["languages"] == list(LANGUAGES)
    assert listed["names"] == {lang: po("page", lang)["language_name"] for lang in LANGUAGES}


# --- the referee's words, per language, against the rulebooks' own terms ----------------------
K4 = ["K", "K", "K", "K"]


def pos(*seats: list[str]) -> engine.Position:
    return engine.parse_position({"variant": "classic", "board": 4, "pieces": [list(s) for s in seats]})


# (before, after, card): a kennel exit with a 5; passing a piece on its start field; a 7 that
# passes a piece without burning it.
KENNEL_EXIT = (pos(K4, K4, K4, K4), pos(["T0", "K", "K", "K"], K4, K4, K4), "5")
PASS_START = (pos(["T14", "K", "K", "K"], ["T16", "K", "K", "K"], K4, K4),
              pos(["T19", "K", "K", "K"], ["T16", "K", "K", "K"], K4, K4), "5")
NO_BURN = (pos(["T10", "K", "K", "K"], ["T12", "K", "K", "K"], K4, K4),
           pos(["T17", "K", "K", "K"], ["T12", "K", "K", "K"], K4, K4), "7")
RULEBOOK_WORDS = {  # lang -> scene -> words the reason must use (black-dog, 3-pieces, classic nl rulebooks)
    "en": {KENNEL_EXIT: ["start card", "kennel"], PASS_START: ["start field", "passed"], NO_BURN: ["burned", "kennel"]},
    "de": {KENNEL_EXIT: ["Startkarte", "Startbereich"], PASS_START: ["Startfeld", "überholt"],
           NO_BURN: ["überholt", "verbrannt", "Startbereich"]},
    "fr": {KENNEL_EXIT: ["carte « départ »", "zone de départ"], PASS_START: ["case départ", "doublé"],
           NO_BURN: ["doublé", "pris", "zone de départ"]},
    "it": {KENNEL_EXIT: ["carta di partenza", "zona di partenza"], PASS_START: ["casella di partenza", "sorpassato"],
           NO_BURN: ["sorpassato", "bruciato", "zona di partenza"]},
    "nl": {KENNEL_EXIT: ["startkaart", "startzone"], PASS_START: ["startveld", "ingehaald"],
           NO_BURN: ["ingehaald", "verbrand", "startzone"]},
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_reasons_use_the_rulebook_words(lang: str) -> None:
    for (before, after, card), words in RULEBOOK_WORDS[lang].items():
        verdict = engine.check(before, after, card, 0, lang=lang)
        assert not verdict.legal
        for word in words:
            assert word in verdict.reason, (lang, word, verdict.reason)
    # the same scene reads differently in every language
    reasons = {engine.check(*PASS_START[:2], "5", 0, lang=x).reason for x in LANGUAGES}
    assert len(reasons) == len(LANGUAGES)


def _royal_and_black_scenes() -> dict[str, tuple[dict, dict, str]]:
    import rb_helpers as h
    from rb_helpers import FOOL, KING

    rank = h.royal_pos({0: ["K", "K", "K", "T2"], 1: ["T4", "K", "K", "K"]})
    king = h.royal_pos({0: ["T2", "K", "K", "K"]})
    card, k = h.blue()
    paw = h.first_paw(0)
    disc = h.black_pos({0: [f"T{paw - k}", "K", "K", "K"]}, "T42")
    dog = h.black_pos({0: ["T10", "K", "K", "K"]}, "T42")
    return {
        "rank": (rank, h.put(rank, 0, FOOL, "T7"), "5"),  # a fool may not pass a king
        "king": (king, h.put(king, 0, KING, "T10"), "8"),  # kings move only with 1 to 7
        "disc": (disc, h.move(disc, 0, f"T{paw - k}", f"T{paw}"), card),  # onto a paw, the disc not turned
        "dog": (dog, h.with_dog(h.move(dog, 0, "T10", "T13"), "T45"), "3"),  # the dog moved by a blue 3
        "copy": (dog, h.move(dog, 0, "T10", "T13"), "copy"),  # a copy as the round's first card
    }


ROYAL_AND_BLACK_WORDS = {  # dog-royal_de-fr-it and black-dog_de-en-fr-it; Dutch: plain words (no rulebook)
    "en": {"rank": ["rank", "pass"], "king": ["king"], "disc": ["disc", "paw"], "dog": ["black dog"], "copy": ["copy"]},
    "de": {"rank": ["ranghöher", "überholt"], "king": ["König"], "disc": ["Drehscheibe", "Tatzen-Feld"],
           "dog": ["Black DOG"], "copy": ["Kopie"]},
    "fr": {"rank": ["rang", "doubler"], "king": ["roi"], "disc": ["disque", "patte"], "dog": ["Black DOG"],
           "copy": ["copie"]},
    "it": {"rank": ["grado", "sorpassare"], "king": [" re:"], "disc": ["ruota", "zampa"], "dog": ["CANE Nero"],
           "copy": ["copia"]},
    "nl": {"rank": ["rang", "inhalen"], "king": ["koning"], "disc": ["draaischijf", "poot"], "dog": ["Black DOG"],
           "copy": ["kopie"]},
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_royal_and_black_reasons_use_the_rulebook_words(lang: str) -> None:
    for name, (before, after, card) in _royal_and_black_scenes().items():
        verdict = engine.check(engine.parse_position(before), engine.parse_position(after), card, 0, lang=lang)
        assert not verdict.legal, name
        for word in ROYAL_AND_BLACK_WORDS[lang][name]:
            assert word in verdict.reason, (name, lang, word, verdict.reason)


def test_names_of_cards_colours_and_players() -> None:
    assert [messages.card_name("swap", x) for x in LANGUAGES] == ["swap card", "Tauscher", "échange", "scambio", "ruilkaart"]
    assert [messages.card_name("joker", x) for x in LANGUAGES] == ["joker", "Joker", "joker", "jolly", "joker"]
    assert messages.card_name("1/11", "fr") == "1/11"  # number cards stay as printed
    assert [messages.player("blue", x) for x in LANGUAGES] == ["Blue", "Blau", "Bleu", "Blu", "Blauw"]
    assert messages.colour_name("teal", "it") == "teal"  # a colour the catalogue lacks keeps its id
    assert messages.place(engine.KENNEL, "nl") == "de startzone"


def test_an_unknown_language_is_refused_by_the_referee() -> None:
    with pytest.raises(engine.PositionError, match="not available"):
        engine.check(*PASS_START[:2], "5", 0, lang="es")


def test_a_language_lacking_a_sentence_falls_back_to_english(tmp_path: Path, monkeypatch) -> None:
    """At run time a gap shows the English sentence (the tests above keep gaps out of git)."""
    pkg = tmp_path / "gappy_texts"
    for lang in LANGUAGES:
        folder = pkg / "locale" / lang / "LC_MESSAGES"
        folder.mkdir(parents=True)
        body = 'msgid "a"\nmsgstr "A {x}"\n' + ('' if lang == "fr" else 'msgid "b"\nmsgstr "B-%s"\n' % lang)
        if lang != "it":  # Italian: the file is lost altogether
            (folder / "t.po").write_text(body, encoding="utf-8")
    (pkg / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    texts = messages.load_catalogue("gappy_texts", "t")
    assert messages.lookup(texts, "fr", "b") == "B-en"
    assert messages.lookup(texts, "de", "b") == "B-de"
    assert messages.lookup(texts, "it", "a") == "A {x}"
    with pytest.raises(KeyError):
        messages.lookup(texts, "de", "nowhere")


# --- scripts/catalogue.py: the tool the lead merges new texts with ----------------------------
def _tool():
    spec = importlib.util.spec_from_file_location("catalogue_tool", ROOT / "scripts/catalogue.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["catalogue_tool"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def copy_root(tmp_path: Path) -> Path:
    """A scratch copy of the catalogue (PO files and page JSON) to import into."""
    for rel in ("engine/locale", "companion/locale", "companion/web/static/texts"):
        shutil.copytree(ROOT / rel, tmp_path / rel)
    return tmp_path


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_import_adds_texts_once_and_regenerates_the_page(copy_root: Path, tmp_path: Path, capsys) -> None:
    tool = _tool()
    pending = tmp_path / "pending.json"
    new = {"en": "{player} shows the QR code", "de": "{player} zeigt den QR-Code", "fr": "{player} montre le code QR",
           "it": "{player} mostra il codice QR", "nl": "{player} toont de QR-code"}
    legal = {x: po("engine", x)["legal"] for x in LANGUAGES} | {"de": "ERLAUBT: {play}"}  # one word changed
    pending.write_text(json.dumps({"page": {"qr_shown": new}, "engine": {"legal": legal}}), encoding="utf-8")
    assert tool.main(["--root", str(copy_root), "import", str(pending)]) == 0
    assert "5 added, 1 changed, 4 unchanged" in capsys.readouterr().out
    with (copy_root / CATALOGUES["page"].format(lang="it")).open("rb") as fh:
        assert read_po(fh).get("qr_shown").string == new["it"]
    assert json.loads((copy_root / "companion/web/static/texts/nl.json").read_text())["qr_shown"] == new["nl"]
    first = _snapshot(copy_root)
    assert tool.main(["--root", str(copy_root), "import", str(pending)]) == 0  # again: nothing changes
    assert "0 added, 0 changed, 10 unchanged" in capsys.readouterr().out
    assert _snapshot(copy_root) == first
    assert tool.main(["--root", str(copy_root), "check"]) == 0


@pytest.mark.parametrize("entry, problem", [
    ({"page": {"k": {"en": "a", "de": "b", "fr": "c", "it": "d"}}}, "missing nl"),
    ({"page": {"k": {"en": "{n} a", "de": "{m} b", "fr": "{n} c", "it": "{n} d", "nl": "{n} e"}}}, "placeholders"),
    ({"page": {"k": {"en": "a", "de": "", "fr": "c", "it": "d", "nl": "e"}}}, "empty"),
    ({"page": {"k": {"en": "a {", "de": "b", "fr": "c", "it": "d", "nl": "e"}}}, "broken placeholder"),
    ({"pages": {"k": {}}}, "not a room"),
    ({"page": {"k k": {"en": "a"}}}, "a key may hold only"),
    ([1, 2], "top level"),
])
def test_import_refuses_a_bad_entry_and_writes_nothing(copy_root: Path, tmp_path: Path, capsys, entry, problem) -> None:
    tool = _tool()
    good = {"en": "ok", "de": "gut", "fr": "bien", "it": "bene", "nl": "goed"}
    (tmp_path / "good.json").write_text(json.dumps({"page": {"fine": good}}))
    (tmp_path / "bad.json").write_text(json.dumps(entry))
    before = _snapshot(copy_root)
    assert tool.main(["--root", str(copy_root), "import", str(tmp_path / "good.json"), str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert problem in err and "bad.json" in err and "nothing was written" in err
    assert _snapshot(copy_root) == before


def test_import_refuses_a_file_that_is_not_json(copy_root: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "broken.json").write_text('{"page": {"k": ')
    assert _tool().main(["--root", str(copy_root), "import", str(tmp_path / "broken.json")]) == 2
    assert "cannot be read as JSON" in capsys.readouterr().err


def test_check_reports_a_damaged_catalogue(copy_root: Path, capsys) -> None:
    path = copy_root / CATALOGUES["companion"].format(lang="it")
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'msgid "undo"\nmsgstr "[^"]*"\n', "", text)  # a sentence lost
    text = text.replace("{players} ha vinto", "{giocatori} ha vinto")  # a placeholder translated
    text = re.sub(r'(msgid "setup_ok"\nmsgstr )"[^"]*"', r'\1""', text)  # a sentence emptied
    path.write_text(text + '\nmsgid "extra"\nmsgstr "in più"\n', encoding="utf-8")
    assert _tool().main(["--root", str(copy_root), "check"]) == 1
    out = capsys.readouterr().out
    assert "companion/it: 'undo' is missing" in out
    assert "companion/it: 'winner' has placeholders ['giocatori'], English ['players']" in out
    assert "companion/it: 'setup_ok' is empty" in out
    assert "companion/it: 'extra' is not in English" in out


def test_tables_lists_what_an_old_style_checkout_holds_beyond_the_catalogue(tmp_path: Path, capsys) -> None:
    """A branch still writing the hand-made tables: the lead sees what its pending file must carry."""
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine/messages.py").write_text(
        'TEXT: dict[str, dict[str, str]] = {\n  "en": {"legal": "legal: {play}", "fresh": "a new {thing}"},\n'
        '  "de": {"legal": "erlaubt: {play}", "fresh": "ein neues {thing}"},\n}\n')
    (tmp_path / "companion/web/static").mkdir(parents=True)
    (tmp_path / "companion/web/static/app.js").write_text(
        'const T = {\n  en: {\n    undo: "Take back", tap_me: "Tap \\"here\\"",\n  },\n'
        '  de: {\n    undo: "Rückgängig", tap_me: "Hier tippen",\n  },\n};\n')
    assert _tool().main(["--root", str(ROOT), "tables", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "engine.fresh: not in the catalogue (en: 'a new {thing}')",
        "page.tap_me: not in the catalogue (en: 'Tap \"here\"')",
        "page.undo: English differs: table 'Take back', catalogue 'Undo'",
    ]
