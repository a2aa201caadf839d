"""What the table service says, in every language (the engine words its own reasons).

The sentences live in `companion/locale/<lang>/LC_MESSAGES/companion.po` (see docs/languages.md).
Every message is produced in all languages when it happens, so the web page can switch
language without asking the service again and the journal replay gives the same words.
"""
from __future__ import annotations

from engine.messages import LANGUAGES, card_name, colour_name, load_catalogue, lookup

LANGS = LANGUAGES


def _texts() -> dict[str, dict[str, str]]:
    return load_catalogue("companion", "companion")


def say(lang: str, key: str, **kw: object) -> str:
    if "card" in kw:  # "swap" -> "Tauscher", "échange", ...
        kw["card"] = card_name(str(kw["card"]), lang)
    return lookup(_texts(), lang, key).format(**kw)


def both(key: str, **kw: object) -> dict[str, str]:
    """The message in every language; values that are callables get the language."""
    out = {}
    for lang in LANGS:
        args = {k: (v(lang) if callable(v) else v) for k, v in kw.items()}
        out[lang] = say(lang, key, **args)
    return out


def player_name(colour: str):
    """A callable for `both`: the seat's colour as a name in the given language."""
    return lambda lang: colour_name(colour, lang).capitalize()
