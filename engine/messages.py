"""The referee's words, in English and German.

Pieces are named by colour and field ("the blue piece on T16" / "der Stein von Blau auf
T16"): the German form avoids adjective endings, so one template serves every case.
"""
from __future__ import annotations

from engine.position import HOME, KENNEL

LANGS = ("en", "de")

COLOURS_DE = {
    "red": "Rot", "blue": "Blau", "green": "Grün", "yellow": "Gelb", "white": "Weiß",
    "black": "Schwarz", "orange": "Orange", "purple": "Lila",
}

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "legal": "legal: {play}",
        "no_play": "{player} cannot play the {card}: {why}; the card must be laid down without a move",
        "no_play_why": "no piece can move with it",
        "nothing_changed": "nothing moved, but the {card} must be played in full (for example {example})",
        "not_own": "{piece} moved, but {player} may only move {whose} pieces",
        "own": "their own",
        "partners": "their partner's",
        "start_card": "only a start card (1/11, 13 or a joker) brings a piece out of the kennel",
        "start_field": "a piece leaving the kennel goes onto its own start field {field}, not {to}",
        "start_blocked": "{piece} already stands on the start field, so no piece can come out",
        "to_kennel": "{piece} went back to the kennel, but nothing captured it",
        "home_leave": "{piece} is in the home and can never leave it",
        "home_back": "pieces in the home never move backwards",
        "home_from_start": "{piece} stands on its own start field and cannot go straight into the home: it must go around first (or step back with a 4)",
        "home_jump": "{blocker} is in the way: pieces in the home cannot jump over each other",
        "home_own": "a piece can only go into its own home, over its own start field",
        "protected_pass": "{blocker} is protected on its start field and cannot be passed",
        "protected_land": "{blocker} is protected on its start field and cannot be landed on",
        "backward": "only the 4 moves backwards; {piece} moved {n} fields back to {to}",
        "distance": "the {card} moves exactly {values} forward, but {piece} moved {n} to {to}",
        "fields": "{n} fields",
        "or": " or ",
        "seven_total": "all 7 points must be used: the pieces moved {n} in all",
        "burn_missing": "{piece} was passed by the 7 and is burned: it must go back to its kennel",
        "capture_missing": "{piece} was landed on and is captured: it must go back to its kennel",
        "one_piece": "the {card} moves one piece, but {n} pieces changed: {changes}",
        "almost": "close to the legal play {play}, but {diff}",
        "should_be": "{piece} should stand on {want}",
        "swap_protected": "{piece} is protected (own start field, home or kennel) and cannot be swapped",
        "swap_own": "a swap exchanges one of your pieces with a piece of another colour",
        "swap_must": "the swap is compulsory: {example}",
        "changes_seen": "what changed: {changes}",
        "moved": "{piece} moved to {to}",
        "not_this_card": "no play of the {card} by {player} leads to this position",
        "kennel": "the kennel",
        "piece": "the {colour} piece on {field}",
        "piece_kennel": "a {colour} piece from the kennel",
        "player": "{colour}",
        "copy_first": "a copy repeats the last card played in this round, and none has been played yet",
        "magnet_home": "the magnet works only on the track: it cannot take a piece into the home",
        "magnet_behind": "the magnet moves {piece} to the field directly behind the next piece ahead, no further and no less",
        "king_value": "{piece} is a king: kings move only with cards of value 1 to 7",
        "king_capture": "{blocker} is a king: only another king can capture it (except on your own start field)",
        "rank_pass": "{piece} may not pass {blocker}: only equal or lower ranks may be passed (the 4 and the 10 ignore ranks)",
        "disc_missing": "a piece was moved onto a paw: the disc must now be turned a quarter turn, either way",
        "disc_not_allowed": "the disc turns only when a card moves a piece onto a paw (not a swap, not the black dog)",
        "dog_should_be": "the black dog should stand on {want}",
        "dog_swap": "the black dog on {field} can never be swapped",
        "dog_still": "the black dog on {field} moves only with a black card (black 1-7, 5 or 6)",
        # hints (engine.hints): a phrase after "because it" / "denn das"
        "hint_capture": "captures {piece}",
        "hint_home": "brings {piece} into the home",
        "hint_back4": "takes {piece} 4 fields back to {field}, just in front of its home",
        "hint_start": "brings a piece out of the kennel",
        "hint_keep_start": "keeps the start card for the piece waiting in the kennel",
        "hint_keep_four": "keeps the 4: {piece} can go home backwards next turn",
        "hint_keep_card": "keeps the {card} for later",
        "hint_partner": "helps your partner: {piece} moves on to {field}",
        "hint_safe": "takes {piece} out of danger",
        "hint_advance": "moves {piece} {n} fields on",
        "hint_best": "leaves the team in the best position",
        "hint_second": "; the next best, {play}, is worse: {why}",
        "worse_no_capture": "it leaves {piece} standing",
        "worse_no_home": "it brings no piece into the home",
        "worse_danger_at": "it leaves {piece} {n} fields in front of {attacker}",
        "worse_start_field": "it leaves {piece} on {player}'s start field, where a start card captures it",
        "worse_danger": "it leaves a piece in danger",
        "worse_spends_start": "it spends the start card while a piece waits in the kennel",
        "worse_spends_four": "it spends the 4: {piece} could go home backwards next turn",
        "worse_spends_card": "it spends the {card}, a card worth keeping",
        "worse_blocking": "it leaves your start field blocked while pieces wait in the kennel",
        "worse_threat": "it threatens fewer pieces of the other side",
        "worse_draw": "it draws no extra card",
        "worse_partner": "it does less for your partner",
        "worse_progress": "its pieces get {n} fields less far",
        "worse_close": "it scores a little lower",
    },
    "de": {
        "legal": "erlaubt: {play}",
        "no_play": "{player} kann die Karte {card} nicht spielen: {why}; die Karte wird ohne Zug abgelegt",
        "no_play_why": "kein Stein kann damit ziehen",
        "nothing_changed": "nichts hat sich bewegt, aber die Karte {card} muss ganz gespielt werden (zum Beispiel {example})",
        "not_own": "{piece} wurde bewegt, aber {player} darf nur {whose} Steine ziehen",
        "own": "die eigenen",
        "partners": "die des Partners",
        "start_card": "nur eine Startkarte (1/11, 13 oder ein Joker) bringt einen Stein aus dem Zwinger",
        "start_field": "ein Stein aus dem Zwinger kommt auf sein eigenes Startfeld {field}, nicht auf {to}",
        "start_blocked": "{piece} steht schon auf dem Startfeld, also kann kein Stein herauskommen",
        "to_kennel": "{piece} ging in den Zwinger zurück, aber niemand hat ihn geschlagen",
        "home_leave": "{piece} ist im Ziel und kann es nie mehr verlassen",
        "home_back": "Steine im Ziel ziehen nie rückwärts",
        "home_from_start": "{piece} steht auf dem eigenen Startfeld und darf nicht direkt ins Ziel: er muss erst eine Runde gehen (oder mit einer 4 zurück)",
        "home_jump": "{blocker} ist im Weg: im Ziel darf kein Stein überholt werden",
        "home_own": "ein Stein darf nur in sein eigenes Ziel, über sein eigenes Startfeld",
        "protected_pass": "{blocker} ist auf seinem Startfeld geschützt und darf nicht überholt werden",
        "protected_land": "{blocker} ist auf seinem Startfeld geschützt und darf nicht geschlagen werden",
        "backward": "nur die 4 zieht rückwärts; {piece} ging {n} Felder zurück auf {to}",
        "distance": "die Karte {card} zieht genau {values} vorwärts, aber {piece} zog {n} auf {to}",
        "fields": "{n} Felder",
        "or": " oder ",
        "seven_total": "alle 7 Punkte müssen gespielt werden: die Steine zogen zusammen {n}",
        "burn_missing": "{piece} wurde von der 7 überholt und ist verbrannt: er muss zurück in den Zwinger",
        "capture_missing": "{piece} wurde geschlagen: er muss zurück in den Zwinger",
        "one_piece": "die Karte {card} zieht einen Stein, aber {n} Steine haben sich verändert: {changes}",
        "almost": "fast der erlaubte Zug {play}, aber {diff}",
        "should_be": "{piece} müsste auf {want} stehen",
        "swap_protected": "{piece} ist geschützt (eigenes Startfeld, Ziel oder Zwinger) und darf nicht getauscht werden",
        "swap_own": "beim Tauschen wechselt einer deiner Steine den Platz mit einem Stein einer anderen Farbe",
        "swap_must": "das Tauschen ist Pflicht: {example}",
        "changes_seen": "das hat sich verändert: {changes}",
        "moved": "{piece} zog auf {to}",
        "not_this_card": "kein Zug der Karte {card} von {player} führt zu dieser Stellung",
        "kennel": "den Zwinger",
        "piece": "der Stein von {colour} auf {field}",
        "piece_kennel": "ein Stein von {colour} aus dem Zwinger",
        "player": "{colour}",
        "copy_first": "die Kopie wiederholt die zuletzt gespielte Karte dieser Runde, und es wurde noch keine gespielt",
        "magnet_home": "der Magnet wirkt nur auf der Laufbahn: er bringt keinen Stein ins Ziel",
        "magnet_behind": "der Magnet zieht {piece} genau auf das Feld hinter den nächsten Stein, nicht weiter und nicht weniger",
        "king_value": "{piece} ist ein König: Könige ziehen nur mit Karten von 1 bis 7",
        "king_capture": "{blocker} ist ein König: nur ein anderer König darf ihn schlagen (außer auf dem eigenen Startfeld)",
        "rank_pass": "{blocker} hat einen höheren Rang als {piece} und darf nicht überholt werden (die 4 und die 10 heben die Rangfolge auf)",
        "disc_missing": "ein Stein wurde auf eine Pfote gezogen: jetzt muss die Scheibe eine Vierteldrehung gedreht werden, in eine der beiden Richtungen",
        "disc_not_allowed": "die Scheibe dreht sich nur, wenn eine Karte einen Stein auf eine Pfote zieht (nicht beim Tauschen, nicht durch den schwarzen Hund)",
        "dog_should_be": "der schwarze Hund müsste auf {want} stehen",
        "dog_swap": "der schwarze Hund auf {field} darf nie getauscht werden",
        "dog_still": "der schwarze Hund auf {field} zieht nur mit einer schwarzen Karte (schwarze 1-7, 5 oder 6)",
        # hints (engine.hints): a phrase after "because it" / "denn das"
        "hint_capture": "schlägt eine Figur: {piece} muss zurück in den Startbereich",
        "hint_home": "bringt eine Figur ins Ziel ({piece})",
        "hint_back4": "zieht 4 Felder rückwärts: {piece} steht dann auf {field}, direkt vor dem Ziel",
        "hint_start": "bringt eine Figur aus dem Startbereich",
        "hint_keep_start": "behält die Startkarte für die Figur im Startbereich",
        "hint_keep_four": "behält die 4: {piece} kann im nächsten Zug rückwärts vor das Ziel",
        "hint_keep_card": "behält die Karte {card} für später",
        "hint_partner": "hilft dem Partner: {piece} zieht weiter auf {field}",
        "hint_safe": "bringt eine Figur aus der Gefahr ({piece})",
        "hint_advance": "zieht {n} Felder weiter ({piece})",
        "hint_best": "lässt das Team am besten stehen",
        "hint_second": "; der zweitbeste Zug {play} ist schlechter: {why}",
        "worse_no_capture": "er schlägt nichts: {piece} bleibt stehen",
        "worse_no_home": "er bringt keine Figur ins Ziel",
        "worse_danger_at": "danach steht {piece} nur {n} Felder vor einer gegnerischen Figur ({attacker})",
        "worse_start_field": "danach steht {piece} auf dem Startfeld von {player}, wo eine Startkarte sie schlägt",
        "worse_danger": "er lässt eine Figur in Gefahr",
        "worse_spends_start": "er verbraucht die Startkarte, obwohl eine Figur im Startbereich wartet",
        "worse_spends_four": "er verbraucht die 4: {piece} könnte im nächsten Zug rückwärts vor das Ziel",
        "worse_spends_card": "er verbraucht die Karte {card}, die man besser behält",
        "worse_blocking": "er lässt das eigene Startfeld besetzt, während Figuren im Startbereich warten",
        "worse_threat": "er bedroht weniger gegnerische Figuren",
        "worse_draw": "er bringt keine zusätzliche Karte",
        "worse_partner": "er hilft dem Partner weniger",
        "worse_progress": "die Figuren kommen {n} Felder weniger weit",
        "worse_close": "er ist etwas schwächer",
    },
}


CARDS_DE = {
    "swap": "Tauscher", "joker": "Joker", "copy": "Kopie", "magnet": "Magnet", "partner": "Partner",
    "black-1-7": "schwarze 1-7", "black-5": "schwarze 5", "black-6": "schwarze 6",
}


def card_name(card: str, lang: str) -> str:
    return CARDS_DE.get(card, card) if lang == "de" else card


def colour_name(colour: str, lang: str) -> str:
    return COLOURS_DE.get(colour, colour) if lang == "de" else colour


def say(lang: str, key: str, **kw: object) -> str:
    if "card" in kw:
        kw["card"] = card_name(str(kw["card"]), lang)
    return TEXT[lang][key].format(**kw)


def place(loc: int, lang: str) -> str:
    if loc == KENNEL:
        return TEXT[lang]["kennel"]
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
