"""The card-tag map: which card each RFID tag (a sticker on the card) stands for.

A TOML file of `"<tag uid>" = "<card id>"`, e.g.

    "04:a2:19:7c" = "7"
    "04:a2:19:7d" = "1/11"

The uid is the hex the reader reports (`:` or `-` between bytes, or none; any case).
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import engine
from companion.errors import UserError


class CardTagError(UserError):
    """The file is missing or wrong: the message names file, key and problem."""


def normalise_uid(text: str) -> bytes | None:
    """Bytes of a uid written as hex (04:A2:19:7C, 04-a2-19-7c, 04a2197c); None if it is not one."""
    digits = text.strip().replace(":", "").replace("-", "").replace(" ", "")
    if not digits or len(digits) % 2 or len(digits) > 20:
        return None
    try:
        return bytes.fromhex(digits)
    except ValueError:
        return None


@dataclass(frozen=True)
class CardTags:
    cards: dict[bytes, str]
    source: str

    def card_for(self, uid: bytes) -> str | None:
        return self.cards.get(bytes(uid))

    @classmethod
    def load(cls, path: str | Path) -> CardTags:
        p = Path(path)
        try:
            with p.open("rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise CardTagError(f"card-tag map {p} does not exist (set service.card_tags to the file, "
                               "or to \"\" without an RFID reader)") from None
        except OSError as exc:
            raise CardTagError(f"card-tag map {p} cannot be read: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise CardTagError(f"card-tag map {p} is not valid TOML: {exc}") from None
        return cls.parse(data, str(p))

    @classmethod
    def parse(cls, data: dict, source: str) -> CardTags:
        problems = []
        cards: dict[bytes, str] = {}
        written: dict[bytes, str] = {}
        for key, card in data.items():
            uid = normalise_uid(key)
            if uid is None:
                problems.append(f"'{key}' is not a tag uid (1 to 10 bytes in hex, like \"04:a2:19:7c\")")
                continue
            if not isinstance(card, str) or card not in engine.ALL_CARDS:
                problems.append(f"'{key}': {card!r} is not a card id (cards: {', '.join(engine.ALL_CARDS)})")
                continue
            if uid in cards:
                problems.append(f"'{key}': the same tag as '{written[uid]}'")
                continue
            cards[uid], written[uid] = card, key
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise CardTagError(f"card-tag map {source}: {problems[0]}{more}")
        if not cards:
            raise CardTagError(f"card-tag map {source} has no tags: add lines like \"04:a2:19:7c\" = \"7\"")
        return cls(cards, source)
