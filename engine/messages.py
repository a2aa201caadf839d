"""The referee's words in every language, read from the gettext catalogue.

The sentences live in `engine/locale/<lang>/LC_MESSAGES/engine.po` (read with Babel, once
per process): the msgid is a stable key, the msgstr the sentence with `{name}` placeholders.
English is a catalogue like the others. docs/languages.md says how to fix a word or add a
language. Pieces are named by colour and field ("the blue piece on T16" / "die Figur von Blau
auf T16"): the German and Dutch forms avoid adjective endings, so one template serves every case.
"""
from __future__ import annotations

import functools
import logging
from importlib import resources

from engine.locations import HOME, KENNEL

log = logging.getLogger(__name__)

LANGUAGES = ("en", "de", "fr", "it", "nl")
LANGS = LANGUAGES  # the older name, still used by callers


@functools.cache
def load_catalogue(package: str, domain: str) -> dict[str, dict[str, str]]:
    """{lang: {key: sentence}} from `<package>/locale/<lang>/LC_MESSAGES/<domain>.po`.

    Untranslated (empty) entries and a missing file are left out, so `lookup` falls back to
    English for them rather than failing in the middle of a game.
    """
    from babel.messages.pofile import read_po  # only when a sentence is first needed: keeps `import engine` quick

    out: dict[str, dict[str, str]] = {}
    root = resources.files(package) / "locale"
    for lang in LANGUAGES:
        path = root / lang / "LC_MESSAGES" / f"{domain}.po"
        if not path.is_file():
            log.warning("%s is missing: its sentences will be in English", path)
            out[lang] = {}
            continue
        with path.open("rb") as fh:
            catalog = read_po(fh, locale=lang, domain=domain)
        out[lang] = {str(m.id): str(m.string) for m in catalog if m.id and m.string}
    return out


def lookup(texts: dict[str, dict[str, str]], lang: str, key: str) -> str:
    """The sentence for `key`; English when a language lacks it (the catalogue test forbids that)."""
    found = texts[lang].get(key)
    if found is None:
        log.warning("no %s text for %r: using English", lang, key)
        return texts["en"][key]
    return found


def _texts() -> dict[str, dict[str, str]]:
    return load_catalogue("engine", "engine")


def card_name(card: str, lang: str) -> str:
    """Named cards in words ("swap" -> "Tauscher"); number cards ("7", "1/11") stay as they are."""
    return _texts()[lang].get(f"card_{card}", card)


def colour_name(colour: str, lang: str) -> str:
    return _texts()[lang].get(f"colour_{colour}", colour)


def say(lang: str, key: str, **kw: object) -> str:
    if "card" in kw:
        kw["card"] = card_name(str(kw["card"]), lang)
    return lookup(_texts(), lang, key).format(**kw)


def place(loc: int, lang: str) -> str:
    if loc == KENNEL:
        return say(lang, "kennel")
    if loc >= HOME:
        return f"H{loc - HOME}"
    return f"T{loc}"


def piece(colour: str, loc: int, lang: str) -> str:
    c = colour_name(colour, lang)
    if loc == KENNEL:
        return say(lang, "piece_kennel", colour=c)
    return say(lang, "piece", colour=c, field=place(loc, lang))


def player(colour: str, lang: str) -> str:
    return say(lang, "player", colour=colour_name(colour, lang).capitalize())
