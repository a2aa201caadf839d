"""The game record people keep: a whole simulated game with its deals and exchange, in five
languages, public and whole, read back and re-played; records typed by hand."""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import engine
from companion import record as R
from companion import table as T
from companion.cli import main
from companion.journal import Journal
from companion.service import Service
from companion.settings import ServiceSettings, Settings, WebSettings
from companion.simulated.table import SimulatedTable
from engine.messages import LANGUAGES, card_name, colour_name
from simulated_rig import close

SETTINGS = Settings(replace(ServiceSettings(), bot_delay_s=0.0, accept_flash_s=0.0), WebSettings(pin="1"))
RECORDS = Path(__file__).parent / "records"
NAMED = ("swap", "joker", "magnet", "copy", "partner", "black-1-7", "black-5", "black-6")  # cards with a name, not a number


@dataclass
class Played:
    journal: Path
    variant: str
    final: engine.Position
    deals: dict[int, tuple[tuple[str, ...], ...]]  # round (from 1) -> hands by seat index, as the dealer dealt them
    whole: dict  # the JSON record once the game is over (what anyone gets then)
    middle: dict  # exports while the game was on, and the hands and cards laid down at that moment


def _bots_play(path: Path, variant: str, players: int, seed: int,
               meanwhile: Callable[[SimulatedTable], bool] = lambda t: False) -> SimulatedTable:
    """A simulated table whose bots play every seat to the end of the game; `meanwhile(table)`
    runs before each bot's step (returning True when it acted instead)."""
    svc = Service(SETTINGS, Journal(path))
    t = SimulatedTable(svc, seed=seed)
    t.open(T.Setup(variant, players, "highlight"))
    t.set_bots(list(svc.state.seats))
    for _ in range(5000):
        if svc.state.phase == "over":
            break
        if not meanwhile(t):
            assert t.bot_step()
    assert svc.state.phase == "over"
    return t


def _play(path: Path, variant: str, players: int, seed: int) -> Played:
    middle: dict = {}

    def export_in_round_2(t: SimulatedTable) -> bool:
        svc, st = t.service, t.service.state
        if not middle and st.round_no == 1 and st.phase == "play" and sum(st.played) >= 2:
            laid = [e.card for e in svc.journal.events(svc.game_id) if isinstance(e, T.CardSeen)]
            middle.update({"txt": svc.export("txt"), "json": svc.export("json"),
                           "txt_public": svc.export("txt", public=True), "txt_host": svc.export("txt", public=False),
                           "de": svc.export("txt", lang="de"), "held": st.hands, "laid": laid})
        return False

    t = _bots_play(path, variant, players, seed, export_in_round_2)
    svc = t.service
    assert middle
    deals: dict[int, tuple[tuple[str, ...], ...]] = {}
    for e in svc.journal.events(svc.game_id):
        if isinstance(e, T.Deal):
            assert e.round_no + 1 not in deals  # bots never undo: one deal per round
            deals[e.round_no + 1] = e.hands
    played = Played(path, variant, svc.state.position, deals, svc.export("json"), middle)
    close(t)
    return played


@pytest.fixture(scope="module", params=[("black", 4, 3), ("compact", 3, 5)], ids=["black-4", "compact-3"])
def played(request, tmp_path_factory) -> Played:
    variant, players, seed = request.param
    return _play(tmp_path_factory.mktemp("game") / "j.sqlite", variant, players, seed)


def _colour(rec: dict, seat: int, lang: str = "en") -> str:
    colour = next(s["colour"] for s in rec["seats"] if s["seat"] == seat)
    return colour_name(colour, lang).capitalize()


def test_a_simulated_game_keeps_its_deals_its_exchange_and_who_played(played: Played) -> None:
    rec = played.whole
    seats = [s["seat"] for s in rec["seats"]]
    assert rec["site"] == "simulated" and not rec["public"] and rec["result"] == "won"
    assert [s["player"] for s in rec["seats"]] == ["bot"] * len(seats)
    assert rec["rounds"] == len(played.deals)
    assert {d["round"]: {h["seat"]: tuple(h["cards"]) for h in d["hands"]} for d in rec["deals"]} == \
        {r: {s: hands[s] for s in seats} for r, hands in played.deals.items()}
    by_round = Counter(g["round"] for g in rec["gifts"])
    assert by_round and all(n == len(seats) for n in by_round.values())
    for g in rec["gifts"]:  # each card given was in the giver's hand as dealt
        assert g["card"] in played.deals[g["round"]][g["seat"]] and g["to"] != g["seat"]
    text = R.to_text(rec)
    assert f'[Players "{", ".join(_colour(rec, s) + " = bot" for s in seats)}"]' in text
    assert '[Site "simulated table"]' in text and f'[Rounds "{rec["rounds"]}"]' in text
    first = played.deals[1]
    for s in seats:
        assert f"Deal {_colour(rec, s)}: {', '.join(card_name(c, 'en') for c in first[s])}\n" in text
    g = rec["gifts"][0]
    assert f"{_colour(rec, g['seat'])} gives {g['card']} to {_colour(rec, g['to'])}\n" in text


def test_the_record_the_cli_exports_re_plays_to_the_end_of_the_game(played: Played, tmp_path: Path, capsys) -> None:
    for name in ("game.txt", "game.json", "spiel.txt"):
        out = tmp_path / name
        lang = ["--lang", "de"] if name == "spiel.txt" else []
        assert main(["replay", "--journal", str(played.journal), "--export", str(out), *lang]) == 0
        back = R.read_record(out)
        assert back["plays"] == played.whole["plays"] and back["deals"] == played.whole["deals"]
        _, pos = R.replay_record(back, str(out))
        assert T.board_key(pos) == T.board_key(played.final)
        capsys.readouterr()
        assert main(["replay", str(out)]) == 0
        assert f"{len(back['plays'])} plays re-played" in capsys.readouterr().out
    assert (tmp_path / "spiel.txt").read_text().count("\nRunde ") == played.whole["rounds"]
    # --export alone: the text on standard output; --public: without the cards face down
    assert main(["replay", "--journal", str(played.journal), "--export", "--lang", "it", "--public"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(R.TEXT_TITLE) and '[Language "it"]' in out and "Carte: coperte fino alla fine" in out
    assert R.from_text(out, "stdout")["public"] is True


def test_an_undo_back_over_the_end_of_a_round_keeps_the_deal_dealt_again(tmp_path: Path) -> None:
    undone = []

    def undo_the_last_play_of_rounds_1_and_3(t: SimulatedTable) -> bool:
        st = t.service.state
        # a new round was dealt: the host takes the round's last play back, so the dealer deals it again
        if st.round_no in (1, 3) and st.phase == "exchange" and st.hands is not None and not st.gifts \
                and len(undone) < 2 * st.round_no:
            t.submit(T.Undo("web"))
            undone.append(st.round_no)
            return True
        return False

    t = _bots_play(tmp_path / "j.sqlite", "classic", 4, 4, undo_the_last_play_of_rounds_1_and_3)
    svc = t.service
    assert undone == [1, 1, 3, 3, 3, 3]
    last: dict[int, tuple[tuple[str, ...], ...]] = {}
    for e in svc.journal.events(svc.game_id):
        if isinstance(e, T.Deal):
            last[e.round_no + 1] = e.hands
    rec = svc.export("json")
    assert len([e for e in rec["events"] if e["kind"] == "deal"]) > rec["rounds"] == len(rec["deals"])
    assert {d["round"]: [h["cards"] for h in d["hands"]] for d in rec["deals"]} == \
        {r: [list(h) for h in hands] for r, hands in last.items()}
    _, pos = R.replay_record(R.from_text(R.to_text(rec), "undone.txt"), "undone.txt")
    assert T.board_key(pos) == T.board_key(svc.state.position)
    close(t)


def _words_only(text: str) -> str:
    """The text without what is the notation (the plays and the positions): what people read."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\s*\d+\s+)(\S+\s+)?(=.*|[^#]*?)(\s+#.*)?$", line)
        if m and line.strip()[:1].isdigit():
            kept = m[1] + (m[2] or "")
            words = m[4] or ""
            if not m[3].startswith("=") and ":" not in m[3]:
                kept += m[3]  # "lays the hand down", "discards 7": words, not notation
            line = kept + words
        out.append(line)
    return "\n".join(out)


def test_every_language_names_the_cards_and_the_colours_in_its_own_words(played: Played) -> None:
    rec = played.whole
    seats = [s["seat"] for s in rec["seats"]]
    named_in_deck = {c for c, _ in engine.get_variant(played.variant).deck} & set(NAMED)
    assert named_in_deck
    for lang in LANGUAGES:
        text = R.to_text(rec, lang)
        assert f'[Language "{lang}"]' in text
        for s in seats:
            assert _colour(rec, s, lang) in text.split("[Players ", 1)[1].split("\n", 1)[0]
            for r, hands in played.deals.items():
                assert f": {', '.join(card_name(c, lang) for c in hands[s])}\n" in text, (lang, r, s)
        words = _words_only(text)
        for card in named_in_deck:
            name = card_name(card, lang)
            # the id may be part of the name ("swap card"): outside the names it must not appear
            rest = re.sub(re.escape(name), " ", words, flags=re.IGNORECASE)
            assert not re.search(rf"(?<![\w-]){re.escape(card)}(?![\w-])", rest, re.IGNORECASE), (lang, card)
            assert name in words, (lang, card)
        # and it reads back as the same game
        back = R.from_text(text, f"record.{lang}.txt")
        for key in ("plays", "deals", "gifts", "seats", "rounds", "result", "winners", "mode", "direction", "site",
                    "public", "game", "date", "edition", "players"):
            assert back[key] == rec[key], (lang, key)
        assert R.to_text(back, lang) == text


def test_the_public_version_holds_no_card_of_any_hand(played: Played) -> None:
    mid = played.middle
    text, rec = mid["txt"], mid["json"]
    assert text == mid["txt_public"] and rec["public"] is True  # while the game is on, public unless asked whole
    seats = [s["seat"] for s in rec["seats"]]
    assert rec["deals"] == [] and rec["gifts"] and all(g["card"] is None for g in rec["gifts"])
    for e in rec["events"]:
        if e["kind"] == "deal":
            assert all(isinstance(n, int) for n in e["hands"]) and isinstance(e["stock"], int)
        if e["kind"] == "give":
            assert e["card"] is None
    for r, hands in played.deals.items():
        for s in seats:
            assert f"Deal {_colour(rec, s)}:" not in text and f"Karten {_colour(rec, s, 'de')}:" not in mid["de"]
            assert ", ".join(card_name(c, "en") for c in hands[s]) not in text, (r, s)
    assert text.count("Deal: hidden until the game is over") == rec["rounds"] == 2
    assert re.findall(r"\n(\w+) gives (.+?) to ", text) and all(
        what == "a card" for _, what in re.findall(r"\n(\w+) gives (.+?) to ", text))
    # every card the public JSON names was laid down (in its play and the event that showed it), none held
    named = Counter(_card_values(rec))
    laid = Counter(mid["laid"])
    assert named and all(n <= 2 * laid[c] for c, n in named.items()), (named, laid)
    # a card still held that nobody laid down yet is nowhere in the public record
    hidden = {c for s in seats for c in mid["held"][s] if c in NAMED} - set(mid["laid"])
    assert hidden or played.variant != "black", "the Black DOG game holds named cards at that moment"
    blob = json.dumps(rec)
    for card in hidden:
        assert f'"{card}"' not in blob and not re.search(rf"(?<![\w-]){re.escape(card)}(?![\w-])", text), card
        assert card_name(card, "de") not in mid["de"]
    # the host gets the whole record at any time; and it still re-plays to where the game stood
    assert "Deal: hidden" not in mid["txt_host"] and f"Deal {_colour(rec, seats[0])}: " in mid["txt_host"]
    for t in (text, mid["txt_host"], mid["de"]):
        R.replay_record(R.from_text(t, "middle.txt"), "middle.txt")


def _card_values(obj: object) -> list[str]:
    """Every value of a "card" key anywhere in the JSON."""
    if isinstance(obj, dict):
        return [v for k, v in obj.items() if k == "card" and isinstance(v, str)] + \
            [c for k, v in obj.items() for c in _card_values(v)]
    if isinstance(obj, list):
        return [c for v in obj for c in _card_values(v)]
    return []


def test_the_json_record_and_an_older_one_without_the_new_keys_read_back(played: Played, tmp_path: Path) -> None:
    rec = played.whole
    back = json.loads(R.to_json(rec))
    assert back == rec
    _, pos = R.replay_record(back)
    assert T.board_key(pos) == T.board_key(played.final)
    old = {k: v for k, v in rec.items() if k not in ("deals", "gifts", "public", "site", "direction", "rounds")}
    old["seats"] = [{"seat": s["seat"], "colour": s["colour"]} for s in rec["seats"]]
    (tmp_path / "old.json").write_text(json.dumps(old))
    text = R.to_text(R.read_record(tmp_path / "old.json"))
    assert "Deal: not known (dealt at a real table)" in text and '[Direction "clockwise"]' in text
    assert R.from_text(text, "old.txt")["plays"] == rec["plays"]


# --- records typed by hand, following docs/record.md and the first format's description ---
def test_a_record_typed_by_hand_reads_re_plays_and_converts(tmp_path: Path, capsys) -> None:
    path = RECORDS / "club_evening_en.txt"
    rec = R.read_record(path)
    assert [s["player"] for s in rec["seats"]] == ["Anna", "Ben", "Clara", "bot"]
    assert rec["site"] == "Anna's kitchen" and rec["event"] == "Club evening" and rec["mode"] == "referee"
    assert rec["tags"] == {"Scorer": "Ben"} and rec["rounds"] == 2 and rec["result"] == "unfinished"
    assert rec["plays"][2] == {"kind": "play", "round": 1, "seat": 2, "card": "joker", "play": "joker as 13: K-T32"}
    assert rec["plays"][25] == {"kind": "sitout", "round": 2, "seat": 2}
    assert len(rec["gifts"]) == 8 and [g["card"] for g in rec["gifts"][4:]] == [None] * 4
    shown, pos = R.replay_record(rec, str(path))
    assert shown[-1] == "29 plays re-played; no winner yet"
    assert [sorted(p) for p in pos.to_json()["pieces"]] == [["K", "K", "K", "T17"], ["K", "K", "K", "T43"],
                                                            ["K", "K", "K", "T0"], ["K", "K", "T20", "T50"]]
    for lang in ("de", "nl"):
        out = tmp_path / f"club.{lang}.txt"
        assert main(["replay", str(path), "--export", str(out), "--lang", lang]) == 0
        again = R.read_record(out)
        # the joker's play as the engine names it; everything else as typed
        assert again["plays"][2]["play"] == "joker as 1/11: K-T32"
        assert [p for i, p in enumerate(again["plays"]) if i != 2] == [p for i, p in enumerate(rec["plays"]) if i != 2]
        assert again["seats"] == rec["seats"] and again["tags"] == rec["tags"] and again["site"] == rec["site"]
    assert "Karten Grün: Joker, 2, 3, 5, 6, 9" in (tmp_path / "club.de.txt").read_text()
    # handed round before the game is over: the deal and the cards given are left out
    assert main(["replay", str(path), "--export", str(tmp_path / "public.txt"), "--public"]) == 0
    public = (tmp_path / "public.txt").read_text()
    assert "Deal Red" not in public and "Red gives 9" not in public and public.count("Red gives a card to Green") == 2
    assert public.count("Deal: hidden until the game is over") == 2
    assert R.read_record(tmp_path / "public.txt")["plays"][3:] == rec["plays"][3:]
    assert "[Players \"Rood = Anna, Blauw = Ben, Groen = Clara, Geel = computer\"]" in (tmp_path / "club.nl.txt").read_text()


def test_records_of_the_first_formats_still_read(tmp_path: Path) -> None:
    text = R.read_record(RECORDS / "first_format.txt")
    assert text["edition"] == "classic" and text["players"] == 4 and text["game"] == 7
    assert [p["kind"] for p in text["plays"]] == ["play", "play", "sitout", "discard", "play", "position", "play"]
    shown, pos = R.replay_record(text)
    assert shown[-1] == "7 plays re-played; no winner yet"
    js = R.read_record(RECORDS / "first_format.json")
    assert js["plays"] == text["plays"]
    again = R.to_text(js, "fr")
    assert "Manche 1" in again and "Rouge" in again and "Donne : inconnue" in again
    assert R.from_text(again, "again.txt")["plays"] == text["plays"]


# --- damage -----------------------------------------------------------------------------
def _line_of(lines: list[str], start: str) -> int:
    return next(i for i, line in enumerate(lines) if line.lstrip().startswith(start))


# (file, the line that begins so, what in it, changed into what, what the one-line error must say)
EDITS = [
    ("illegal.txt", "5 Red", "T0-T5", "T0-T6", r"line {line}: play 5 \(5: T0-T6\) does not re-play: .*not a legal play"),
    ("not-held.txt", "1 Red", "1/11: K-T0", "13: K-T0", r"line {line}: play 1 \(Red 13: K-T0\): the seat does not hold 13"),
    ("gift-not-held.txt", "Red gives", "gives 9", "gives 8", r"line {line}: Red gives 8 but holds 1/11, 5, 7, 2, 9, 3"),
    ("short-hand.txt", "Deal Blue", "13, ", "", r"line {line}: Blue is dealt 5 cards, but round 1 deals 6"),
    ("too-many.txt", "Deal Red", "1/11, 5, 7, 2, 9, 3", "joker, joker, joker, joker, joker, joker",
     r"line \d+: the deal of round 1 has 7 of 'joker', the classic deck 6"),
    ("not-a-card.txt", "Deal Red", "9", "99", r"line {line}: cannot read .*'99' is not a card"),
    ("purple.txt", "9 Red", "Red", "Purple", r"line {line}: cannot read .*'Purple' is not one of the players"),
    ("renumbered.txt", "13 Red", "13 Red", "14 Red", r"line {line}: cannot read .*play 14 where play 13 comes next"),
    ("end-count.txt", "End:", "29", "30", r"line {line}: the end line says 30 plays, the record has 29"),
    ("rounds.txt", "[Rounds", "2", "3", r"line {line}: the Rounds tag says 3, the record has 2 rounds"),
    ("mode.txt", "[Mode", "referee", "umpire", r"line {line}: Mode 'umpire' is not known"),
    ("winner.txt", "[Result", "not finished", "won by Red and Green",
     r"line {line}: the record says Red and Green won, but after its plays nobody has won"),
    ("bad-position.txt", "28 =", '"T21"', '"T99"', r"line {line}: play 28 \(a position set by hand\) does not re-play"),
]


def _damaged(tmp: Path) -> dict[str, tuple[Path, str]]:
    """Each kind of damage a record can come to: the file, and what its one-line error must say."""
    good = (RECORDS / "club_evening_en.txt").read_text()
    lines = good.splitlines()
    out: dict[str, tuple[Path, str]] = {}

    def put(name: str, new: list[str] | str, says: str) -> None:
        p = tmp / name
        p.write_text(new if isinstance(new, str) else "\n".join(new) + "\n")
        out[name] = (p, says)

    def edit(name: str, start: str, old: str, new: str, says: str) -> None:
        i = _line_of(lines, start)
        changed = lines[:]
        assert old in changed[i]
        changed[i] = changed[i].replace(old, new, 1)
        put(name, changed, says.format(line=i + 1))

    for args in EDITS:
        edit(*args)
    lost = lines[:]
    del lost[_line_of(lines, "17 Red")]
    put("line-lost.txt", lost, r"line {line}: cannot read .*play 18 where play 17 comes next".format(
        line=_line_of(lines, "18 Blue")))
    late = lines[:]
    late.insert(_line_of(lines, "1 Red"), '[Event "late"]')
    put("late-tag.txt", late, r"line {line}: cannot read .*a tag pair belongs at the head".format(
        line=_line_of(lines, "1 Red") + 1))
    put("cut-short.txt", lines[:_line_of(lines, "20 Yellow")], r"ends before its end line \('End: N plays'\)")
    put("cut-mid-line.txt", good[:good.index("T2-T14") + 3], r"ends before its end line .*cut short after line 38\?")
    # a JSON record changed by hand, and one cut short
    rec = R.read_record(RECORDS / "club_evening_en.txt")
    rec.pop("text_lines", None)
    bad_play = json.loads(json.dumps(rec))
    bad_play["plays"][6]["play"] = "9: T32-T40"
    put("illegal.json", json.dumps(bad_play), r"illegal.json: play 7 \(9: T32-T40\) does not re-play")
    bad_deal = json.loads(json.dumps(rec))
    bad_deal["deals"][0]["hands"][1]["cards"].pop()
    put("short-hand.json", json.dumps(bad_deal), r"short-hand.json: Blue is dealt 5 cards, but round 1 deals 6")
    put("cut.json", R.to_json(rec)[:400], r"cut.json is damaged: not valid JSON")
    return out


def test_a_damaged_record_is_one_line_naming_the_line_exit_2_and_nothing_lost(tmp_path: Path, capsys) -> None:
    damaged = _damaged(tmp_path)
    for name, (path, says) in damaged.items():
        before = path.read_bytes()
        out = tmp_path / f"out-{name}.txt"
        for argv in (["replay", str(path)], ["replay", str(path), "--export", str(out)]):
            assert main(argv) == 2, name
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and err[0].startswith(f"dogtable: error: {path}") and "internal" not in err[0], (name, err)
            assert re.search(says, err[0]), (name, says, err[0])
        assert path.read_bytes() == before and not out.exists(), name


def test_the_service_exports_in_a_language_it_knows(tmp_path: Path) -> None:
    svc = Service(SETTINGS, Journal(tmp_path / "j.sqlite"))
    svc.open(T.Setup("classic", 4, "highlight"))
    assert R.from_text(svc.export("txt", lang="it"), "x")["plays"] == []
    with pytest.raises(T.TableError, match="export language 'es' is unknown"):
        svc.export("txt", lang="es")
    svc.journal.close()
