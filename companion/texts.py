"""What the table service says, in English and German (the engine words its own reasons).

Every message is produced in both languages when it happens, so the web page can switch
language without asking the service again and the journal replay gives the same words.
"""
from __future__ import annotations

from engine.messages import colour_name

LANGS = ("en", "de")

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "no_card": "pieces moved, but no card was played: put them back, or show the card first",
        "board_back": "the board is back as it was",
        "setup_differs": "the board does not show the starting position: {changes}",
        "setup_ok": "starting position confirmed",
        "too_many": "{player} has {n} pieces on the board, but only {have} pieces",
        "unknown_piece": "a piece on {field} belongs to no player in this game",
        "not_turn": "it is {turn}'s turn, not {seat}'s",
        "card_void": "{player} lays down the {card} without a move",
        "no_play_card": "{player} cannot move with the {card}; if no card in the hand can move, lay the hand down",
        "sat_out": "{player} lays down the hand and sits out this round",
        "discard": "{player} discards the {card}",
        "discard_draw": "{player} discards the {card} and draws a new card",
        "exchange": "round {round}: {cards} cards each; exchange one card with your {whom}",
        "exchange_partner": "partner",
        "exchange_left": "left neighbour",
        "exchange_done": "cards exchanged: {player} starts",
        "card_seen": "{player} plays the {card}",
        "accepted": "{player}: {play}",
        "flagged": "{player}, {card}: {reason}",
        "turn_disc": "now turn the disc a quarter turn",
        "disc_turned": "disc turned {direction}",
        "clockwise": "clockwise",
        "anticlockwise": "anticlockwise",
        "undo": "undone: {what}",
        "nothing_to_undo": "there is nothing to undo",
        "corrected": "position corrected by hand",
        "turn_set": "it is now {player}'s turn",
        "mode": "mode: {mode}",
        "winner": "{players} won the game!",
        "winners": "{players} won the game!",
        "and": " and ",
        "partner_play": "{player} plays for {partner}",
        "hint": "hint: {play}, because it {why}",
        "why_home": "puts a piece in the home",
        "why_capture": "captures {colours}",
        "why_start": "brings a piece out of the kennel",
        "why_advance": "moves a piece {n} fields closer to the home",
        "why_safe": "keeps the best position for the team",
        "mode_referee": "referee",
        "mode_highlight": "highlight",
        "mode_training": "training",
        "exchange_first": "first the exchange: every player gives one card face down (tap the card to give)",
        "exchange_give_each": "every player gives one card: tap the card to give in the hand (bots give their own)",
        "not_in_hand": "{player} does not hold the {card}",
        "already_given": "{player} has already given a card in this exchange",
        "gave_card": "{player} gives a card face down to {to}",
        "card_back": "{player} takes the {card} back into the hand",
        "no_play_other": "{player} cannot move with the {card}: play another card",
        "no_play_hand": "{player} cannot move with the {card}, nor with any other card: lay the hand down",
        "no_play_discard": "{player} cannot move with any card: discard one and draw a new card",
    },
    "de": {
        "no_card": "Steine wurden bewegt, aber keine Karte gespielt: zurückstellen oder zuerst die Karte zeigen",
        "board_back": "das Brett steht wieder wie vorher",
        "setup_differs": "das Brett zeigt nicht die Startstellung: {changes}",
        "setup_ok": "Startstellung bestätigt",
        "too_many": "{player} hat {n} Steine auf dem Brett, aber nur {have} Steine",
        "unknown_piece": "ein Stein auf {field} gehört keinem Spieler in diesem Spiel",
        "not_turn": "{turn} ist an der Reihe, nicht {seat}",
        "card_void": "{player} legt die {card} ohne Zug ab",
        "no_play_card": "{player} kann mit der {card} nicht ziehen; wenn keine Karte der Hand ziehen kann, die Hand ablegen",
        "sat_out": "{player} legt die Hand ab und setzt diese Runde aus",
        "discard": "{player} wirft die {card} ab",
        "discard_draw": "{player} wirft die {card} ab und zieht eine neue Karte",
        "exchange": "Runde {round}: je {cards} Karten; tauscht eine Karte mit {whom}",
        "exchange_partner": "dem Partner",
        "exchange_left": "dem linken Nachbarn",
        "exchange_done": "Karten getauscht: {player} beginnt",
        "card_seen": "{player} spielt die {card}",
        "accepted": "{player}: {play}",
        "flagged": "{player}, {card}: {reason}",
        "turn_disc": "jetzt die Scheibe eine Vierteldrehung drehen",
        "disc_turned": "Scheibe {direction} gedreht",
        "clockwise": "im Uhrzeigersinn",
        "anticlockwise": "gegen den Uhrzeigersinn",
        "undo": "rückgängig: {what}",
        "nothing_to_undo": "es gibt nichts rückgängig zu machen",
        "corrected": "Stellung von Hand korrigiert",
        "turn_set": "jetzt ist {player} an der Reihe",
        "mode": "Modus: {mode}",
        "winner": "{players} hat das Spiel gewonnen!",
        "winners": "{players} haben das Spiel gewonnen!",
        "and": " und ",
        "partner_play": "{player} spielt für {partner}",
        "hint": "Tipp: {play}, denn das {why}",
        "why_home": "bringt einen Stein ins Ziel",
        "why_capture": "schlägt {colours}",
        "why_start": "bringt einen Stein aus dem Zwinger",
        "why_advance": "bringt einen Stein {n} Felder näher ans Ziel",
        "why_safe": "hält die beste Stellung für das Team",
        "mode_referee": "Schiedsrichter",
        "mode_highlight": "Zeigen",
        "mode_training": "Training",
        "exchange_first": "zuerst der Tausch: jeder gibt eine Karte verdeckt weiter (die Karte zum Geben antippen)",
        "exchange_give_each": "jeder gibt eine Karte: die Karte in der Hand antippen (Bots geben selbst)",
        "not_in_hand": "{player} hat die Karte {card} nicht auf der Hand",
        "already_given": "{player} hat in diesem Tausch schon eine Karte gegeben",
        "gave_card": "{player} gibt {to} eine Karte verdeckt",
        "card_back": "{player} nimmt die Karte {card} zurück auf die Hand",
        "no_play_other": "{player} kann mit der Karte {card} nicht ziehen: eine andere Karte spielen",
        "no_play_hand": "{player} kann weder mit der Karte {card} noch mit einer anderen ziehen: die Hand ablegen",
        "no_play_discard": "{player} kann mit keiner Karte ziehen: eine abwerfen und eine neue ziehen",
    },
}


def say(lang: str, key: str, **kw: object) -> str:
    return TEXT[lang][key].format(**kw)


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
