"""Carrying out a play made at another table: the job, the check of a reading, the LEDs, the words,
and the simulated person who does it (with a mistake, then putting it right).

Positions come from seeded random games of every edition and direction; every legal play of
the card in play there (a seeded sample of a long list) is carried out.
"""
from __future__ import annotations

import functools
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

import engine
from companion import table as T
from companion.journal import Journal
from companion.remote.carry_out import (
    CarryOut,
    Mismatch,
    apply,
    carried_out,
    carry_leds,
    check,
    turn_reading,
)
from companion.service import Service
from companion.settings import ServiceSettings, Settings
from companion.simulated.carry import Carrier, lift_and_place
from companion.simulated.random_games import random_game
from companion.simulated.table import SimulatedTable
from engine.describe import landmark
from engine.messages import LANGUAGES

CASES = [  # (edition, players, direction: None = the edition's own)
    ("classic", 4, "clockwise"), ("classic", 4, "counter-clockwise"), ("classic", 6, None), ("classic", 3, None),
    ("compact", 3, "counter-clockwise"), ("compact", 4, None), ("royal", 4, None), ("royal", 3, None),
    ("black", 4, None), ("black", 3, None), ("brandi", 4, None), ("brandi", 6, "clockwise"),
]
POSITIONS = 6  # per case, spread over the game
PLAYS = 32  # per position at most, over every card of the deck (a split 7 alone has hundreds)
# Words of the English sentences that no other language's sentence may hold (whole words).
ENGLISH = ("the", "piece", "move", "into", "kennel", "should", "went", "fields", "start", "swap", "turn",
           "home", "missing", "where", "back", "still", "put")  # not "bring": German says it too


@functools.cache
def scenes(variant: str, players: int, direction: str | None) -> tuple[tuple[engine.Position, int, tuple], ...]:
    """(position, seat, plays): positions of one seeded random game where a card was played,
    with the legal plays of every card of the deck there for the seat to play."""
    found = []
    seed = sum(map(ord, f"{variant}{players}{direction}"))
    for step in random_game(variant, players, seed, undo_rate=0, mistake_rate=0, max_events=300, direction=direction):
        st = step.state
        if step.kind == "card" and step.refused is None and st.plays and st.card_seat is not None:
            found.append((st.position, st.card_seat))
    assert len(found) >= POSITIONS, (variant, players, len(found))
    rng = random.Random(seed)
    picked = [found[i * len(found) // POSITIONS] for i in range(POSITIONS - 1)] + [found[-1]]
    out = []
    for pos, seat in picked:
        plays = [p for card in sorted(pos.variant.cards) for p in engine.legal_moves(pos, card, seat)]
        out.append((pos, seat, tuple(rng.sample(plays, min(PLAYS, len(plays))))))
    return tuple(out)


def all_plays(case):
    for pos, seat, plays in scenes(*case):
        for play in plays:
            yield pos, seat, play


def english_left(text: str) -> list[str]:
    return [w for w in ENGLISH if re.search(rf"\b{w}\b", text, re.IGNORECASE)]


def assert_words(words: dict[str, str]) -> None:
    assert set(words) == set(LANGUAGES)
    for lang, text in words.items():
        assert text and "{" not in text and "}" not in text, (lang, text)
        if lang != "en":
            assert text != words["en"], (lang, text)
            assert english_left(text) == [], (lang, text)


def free_track_field(pos: engine.Position, *occupied: dict[str, str]) -> str | None:
    taken = set().union(*occupied)
    for f in range(pos.board.track_length):
        if f"T{f}" not in taken:
            return f"T{f}"
    return None


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_every_legal_play_carried_out_gives_its_result(case) -> None:
    checked = disc_turns = dog_moves = swaps = kennels = splits = homes = outs = 0
    for before, seat, play in all_plays(case):
        carry = CarryOut.of(before, play.result, seat)
        done = T.occupancy(play.result)
        assert carry.expected == done
        assert carry.disc_turn == play.disc_turn
        assert apply(carry, T.occupancy(before)) == done, play.notation
        assert check(carry, done, play.result.disc) is None, play.notation
        assert check(carry, done) is None, play.notation
        assert carried_out(carry, done, play.result.disc)
        assert_words(carry.words)
        assert carry.colour == before.board.colours[seat]
        # the LEDs light every piece to pick up and every field a piece reaches
        leds = carry_leds(carry, None)
        assert set(leds) == set(carry.sources) | set(carry.targets)
        assert set(leds.values()) <= {"movable", "target"}
        assert all(leds[s.frm] == "movable" for s in carry.steps)
        coloured = carry_leds(carry, None, coloured=True)
        assert set(coloured.values()) <= {f"remote_from-{carry.colour}", f"remote_to-{carry.colour}"}
        if T.board_key(play.result) != T.board_key(before):
            # untouched: nothing to say yet (the job's own words and LEDs stand), and not done
            assert check(carry, T.occupancy(before), before.disc) is None
            assert not carried_out(carry, T.occupancy(before), before.disc)
        else:
            assert carry.steps == () and carry.disc_turn == 0
        disc_turns += bool(play.disc_turn)
        dog_moves += any(s.who == "dog" for s in carry.steps)
        swaps += any(s.kind == "swap" for s in carry.steps)
        kennels += any(s.kind == "kennel" for s in carry.steps)
        splits += sum(1 for s in carry.steps if s.kind == "move" and s.seat is not None) > 1
        homes += any(s.to.startswith("S") and "H" in s.to for s in carry.steps)
        outs += any(s.kind == "out" for s in carry.steps)
        checked += 1
    assert checked >= POSITIONS
    if case[0] == "black":
        assert carry.before.board.disc_fields
    print(case, checked, "plays;", disc_turns, "disc turns,", dog_moves, "dog moves,", swaps, "swaps,",
          kennels, "sent home,", splits, "with several pieces,", homes, "home entries,", outs, "out of the kennel")


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_a_piece_on_a_wrong_field_is_named_with_both_fields(case) -> None:
    named = 0
    for before, seat, play in all_plays(case):
        carry = CarryOut.of(before, play.result, seat)
        done = T.occupancy(play.result)
        for step in carry.steps:
            right = step.to
            if step.kind not in ("move", "out") or step.who == "dog" or not right.startswith("T") \
                    or done.get(right) != step.who:
                continue
            wrong = free_track_field(before, done, T.occupancy(before))
            if wrong is None:
                continue
            reading = dict(done)
            del reading[right]
            reading[wrong] = step.who
            m = check(carry, reading, play.result.disc)
            assert isinstance(m, Mismatch) and m.wrong, (play.notation, reading)
            # "went to T14, not T12"; "back" where a piece of that colour stood on the target
            # before (DOG Royal: a king landing on its own citizen sends the citizen home)
            went = [s for s in m.steps if s.wrong]
            assert [(s.frm, s.to, s.who) for s in went] == [(wrong, right, step.who)], (play.notation, m.steps)
            assert went[0].kind == ("back" if T.occupancy(before).get(right) == step.who else "went")
            assert m.errors == (wrong,) and right in m.targets
            leds = carry_leds(carry, m)
            assert leds[wrong] == "error" and leds[right] == "target"
            for lang in LANGUAGES:  # both fields said by their landmarks, in every language
                case_of_wrong = "to" if went[0].kind == "went" else "at"
                for field, form in ((wrong, case_of_wrong), (right, "to")):
                    assert landmark(before, int(field[1:]), lang, form) in m.words[lang], (lang, m.words[lang])
            assert_words(m.words)
            assert not carried_out(carry, reading, play.result.disc)
            # the camera could not tell the wrong field: nothing is said, nothing is done
            assert check(carry, {**reading, wrong: "unknown"}, play.result.disc) is None
            assert not carried_out(carry, {**reading, wrong: "unknown"}, play.result.disc)
            named += 1
            break
    assert named >= 3, case


def pos(variant: str, *seats, **kw) -> engine.Position:
    return engine.parse_position({"variant": variant, "board": len(seats), "pieces": [list(s) if s else None for s in seats],
                                  **kw})


K4 = ["K"] * 4


def test_the_words_of_a_job_and_of_its_mistakes() -> None:
    before = pos("classic", ["T10", "T20", "K", "K"], ["T12", "T30", "K", "K"], ["T40", "K", "K", "K"], K4)
    play = engine.parse_play(before, "7: T12-T15, T30-T34", seat=1)  # passes red on... nothing; plain split
    carry = CarryOut.of(before, play.result, 1)
    assert carry.words["en"] == ("Blue: move the blue piece 4 fields before Blue's start to just before Blue's start, "
                                 "move the blue piece 2 fields before Green's start to 2 fields past Green's start")
    assert carry.words["de"].startswith("Blau: zieh die Figur von Blau 4 Felder vor dem Startfeld von Blau auf das "
                                        "Feld direkt vor dem Startfeld von Blau")
    # the second piece put one field short: named with both fields
    reading = {**T.occupancy(before), "T15": "s1", "T33": "s1"}
    del reading["T12"], reading["T30"]
    m = check(carry, reading)
    assert m is not None and m.wrong
    assert m.words["en"] == ("Not right yet: the blue piece went to just past Green's start, "
                             "not to 2 fields past Green's start")
    assert m.words["fr"] == ("Pas encore juste : le pion bleu est allé juste après la case départ de Vert, "
                             "pas jusqu'à 2 cases après la case départ de Vert")
    # only the first piece moved so far: nothing wrong, the rest still to do
    half = {**T.occupancy(before), "T15": "s1"}
    del half["T12"]
    m = check(carry, half)
    assert m is not None and not m.wrong and m.errors == ()
    assert m.words["en"] == "Still to do: the blue piece 2 fields before Green's start should go to 2 fields past Green's start"
    assert m.sources == ("T30",) and m.targets == ("T34",)
    assert carry_leds(carry, m) == {"T30": "movable", "T34": "target"}


def test_a_burned_piece_left_on_the_board_and_a_piece_out_of_the_kennel_by_mistake() -> None:
    before = pos("classic", ["T3", "K", "K", "K"], ["T0", "K", "K", "K"], ["K"] * 4, K4)
    play = engine.parse_play(before, "7: T0-T7", seat=1)  # blue passes red on T3: red is burned
    carry = CarryOut.of(before, play.result, 1)
    assert [(s.kind, s.frm, s.to) for s in carry.steps] == [("kennel", "T3", "S0K3"), ("move", "T0", "T7")]
    assert carry.words["en"] == ("Blue: put the red piece 3 fields past Red's start back into its kennel, "
                                 "move the blue piece on Red's start field to 7 fields past Red's start")
    forgot = {"T3": "s0", "T7": "s1"}
    m = check(carry, forgot)
    assert m is not None and not m.wrong
    assert m.words["en"] == "Still to do: the red piece 3 fields past Red's start should go back into its kennel"
    assert carry_leds(carry, m) == {"T3": "movable", "S0K3": "target"}
    extra = {"T7": "s1", "T32": "s2"}  # a green piece brought out of the kennel that should not be
    m = check(carry, extra)
    assert m is not None and m.wrong and m.errors == ("T32",)
    assert m.words["en"] == "Not right yet: a green piece is on Green's start field, where it should not be"
    assert m.words["de"] == "Noch nicht richtig: eine Figur von Grün steht auf dem Startfeld von Grün, wo sie nicht hingehört"
    # a red piece that should have stayed was moved along with it
    gone = {"T7": "s1", "T5": "s0"}
    play5 = engine.parse_play(before, "5: T0-T5", seat=1)
    m = check(CarryOut.of(before, play5.result, 1), gone)
    assert m is not None and m.wrong
    assert m.words["en"] == ("Not right yet: the red piece 5 fields past Red's start should go back to 3 fields past "
                             "Red's start; the blue piece went to 7 fields past Red's start, not to 5 fields past Red's start")
    assert m.errors == ("T5", "T7") and m.targets == ("T3",)  # T5: lit as an error until the red piece left it


def test_swaps_kennel_exits_home_entries_and_royal_ranks_in_words() -> None:
    before = pos("classic", ["T10", "K", "K", "K"], ["T20", "T14", "K", "K"], K4, K4)
    swap = engine.parse_play(before, "swap: T20<>T10", seat=1)
    carry = CarryOut.of(before, swap.result, 1)
    assert carry.words["en"] == ("Blue: swap the blue piece 4 fields past Blue's start and "
                                 "the red piece 6 fields before Blue's start")
    assert {(s.kind, s.frm, s.to, s.who) for s in carry.steps} == {("swap", "T20", "T10", "s1"),
                                                                 ("swap", "T10", "T20", "s0")}
    out = engine.legal_moves(before, "13", 1)
    start = next(p for p in out if "K" in p.notation)
    carry = CarryOut.of(before, start.result, 1)
    assert carry.words["en"] == "Blue: bring a blue piece out of the kennel onto Blue's start field"
    assert [(s.kind, s.frm, s.to) for s in carry.steps] == [("out", "S1K1", "T16")]
    home = engine.parse_play(before, "5: T14-H2", seat=1)
    carry = CarryOut.of(before, home.result, 1)
    assert carry.words["en"] == "Blue: move the blue piece 2 fields before Blue's start into the home (third field)"
    assert carry.words["nl"] == ("Blauw: zet de spelfiguur van Blauw 2 velden voor het startveld van Blauw "
                                 "naar het doel (derde veld)")
    royal = pos("royal", ["T2", "T5", "K", "K"], K4, K4, K4)
    play = engine.parse_play(royal, "3: T5-T8", seat=0)
    carry = CarryOut.of(royal, play.result, 0)
    assert [s.rank for s in carry.steps] == ["knight"]
    assert carry.words["en"] == "Red: move the red piece (knight) 5 fields past Red's start to 8 fields before Blue's start"
    assert "(Ritter)" in carry.words["de"] and "(cavaliere)" in carry.words["it"]


def test_black_dog_disc_and_dog_are_part_of_the_job() -> None:
    plays = [(b, s, p) for case in CASES if case[0] == "black" for b, s, p in all_plays(case)]
    turned = [(b, s, p) for b, s, p in plays if p.disc_turn]
    dogged = [(b, s, p) for b, s, p in plays if b.black_dog != T.unturned(p).black_dog]  # the dog ran (not only the disc turned it)
    assert turned and dogged, (len(turned), len(dogged))
    for before, seat, play in turned:
        carry = CarryOut.of(before, play.result, seat)
        assert "turn the disc a quarter turn" in carry.words["en"]
        assert "Drehscheibe" in carry.words["de"] and "ruota" in carry.words["it"]
        moved = T.occupancy(T.unturned(play))  # the pieces moved, the disc not yet turned
        for disc in (before.disc, None):
            m = check(carry, moved, disc)
            assert m is not None and not m.wrong and m.disc_turn == play.disc_turn, (play.notation, m)
            assert "still has to turn" in m.words["en"]
        assert not carried_out(carry, moved, before.disc)
        assert turn_reading(before.board, moved, play.disc_turn) == T.occupancy(play.result)
    for before, seat, play in dogged:
        carry = CarryOut.of(before, play.result, seat)
        assert [s.frm for s in carry.steps if s.who == "dog"] == [f"T{before.black_dog}"]
        assert "black dog" in carry.words["en"] and "CANE Nero" in carry.words["it"]


@pytest.mark.parametrize("case", [c for c in CASES if c[1] == 4], ids=lambda c: "-".join(map(str, c)))
def test_the_simulated_person_errs_and_puts_it_right_once_told(case) -> None:
    person = Carrier(seed=7, mistake_rate=0.5)
    errs = fine = 0
    for before, seat, play in all_plays(case):
        carry = CarryOut.of(before, play.result, seat)
        made = person.mistakes
        board = person.carry(before, carry)
        m = check(carry, T.occupancy(board), board.disc)
        if person.mistakes > made:
            # "back": the wrong field's piece of that colour stood elsewhere before (a 7 split)
            assert m is not None and m.wrong and [s.kind for s in m.steps if s.wrong] in (["went"], ["back"]), (
                play.notation, m)
            board = person.put_right(board, m)
            errs += 1
        else:
            assert m is None, (play.notation, m)
            fine += 1
        assert check(carry, T.occupancy(board), board.disc) is None
        assert carried_out(carry, T.occupancy(board), board.disc)
        assert T.board_key(board) == T.board_key(play.result)
    assert errs >= 3 and fine >= 3, (errs, fine)


def test_lift_and_place_refuses_a_step_the_board_does_not_match() -> None:
    before = pos("classic", ["T3", "K", "K", "K"], ["T0", "K", "K", "K"], K4, K4)
    carry = CarryOut.of(before, engine.parse_play(before, "5: T0-T5", seat=1).result, 1)
    elsewhere = pos("classic", ["T3", "K", "K", "K"], ["T1", "K", "K", "K"], K4, K4)
    with pytest.raises(T.TableError, match="no blue piece on T0"):
        lift_and_place(elsewhere, carry.steps)


def test_a_remote_play_carried_out_at_the_simulated_table(tmp_path: Path) -> None:
    """The game moves on as a linked table's play arrives; the board here follows by hand."""
    settings = Settings(replace(ServiceSettings(), bot_delay_s=0.0))
    service = Service(settings, Journal(tmp_path / "j.sqlite"))
    table = SimulatedTable(service, seed=5)
    try:
        table.open(T.Setup("classic", 4, "highlight"), resume=False)
        table.play_bot_turn()  # the exchange
        person = Carrier(seed=1, mistake_rate=1.0)
        carried = 0
        while carried < 3:
            st = service.state
            mv = table.bots.move(st)
            if mv.action != "play" or mv.play is None or T.board_key(mv.play.result) == T.board_key(st.position):
                table.play_bot_turn()  # nothing to carry out: the table plays this turn itself
                continue
            before, seat = st.position, st.turn
            # the linked table's card and settled board, straight to the service
            service.submit(T.CardSeen(mv.card or "", seat, "remote"))
            service.submit(T.BoardSettled.of(T.occupancy(mv.play.result), "remote"))
            assert service.state.position == mv.play.result
            assert T.board_key(table.board) == T.board_key(before)  # the pieces here have not moved
            carry = CarryOut.of(before, mv.play.result, seat)
            reading = person.at_table(table, carry)
            m = check(carry, reading, table.board.disc)
            assert m is not None and m.wrong
            reading = person.put_right_at(table, m)
            assert check(carry, reading, table.board.disc) is None and carried_out(carry, reading)
            assert T.board_key(table.board) == T.board_key(service.state.position)
            carried += 1
    finally:
        table.stop()
        service.stop()
        service.journal.close()


def test_the_rarer_sentences_in_every_language() -> None:
    """A play that moves nothing, a swap and a kennel exit still to do beside a mistake, a piece
    gone that should have stayed, the black dog on a wrong field, the disc half a turn off."""
    before = pos("classic", ["T10", "T3", "K", "K"], ["T20", "T0", "K", "K"], K4, K4)
    nothing = CarryOut.of(before, before, 1)
    assert nothing.steps == () and nothing.words["en"] == "Blue: nothing moves on the board"
    assert_words(nothing.words)
    assert check(nothing, T.occupancy(before)) is None
    swap = CarryOut.of(before, engine.parse_play(before, "swap: T20<>T10", seat=1).result, 1)
    m = check(swap, {**T.occupancy(before), "T40": "s2"})
    assert m is not None and [s.kind for s in m.steps] == ["extra", "swap", "swap"]
    assert m.words["en"] == ("Not right yet: a green piece is 8 fields before Yellow's start, where it should not be; "
                             "the blue piece 4 fields past Blue's start and the red piece 6 fields before Blue's start "
                             "should swap places")
    assert_words(m.words)
    out = CarryOut.of(before, next(p for p in engine.legal_moves(before, "13", 1) if "K" in p.notation).result, 1)
    m = check(out, {**T.occupancy(before), "T40": "s2"})
    assert m is not None and m.steps[-1].kind == "out"
    assert m.words["en"].endswith("; a blue piece should come out of the kennel onto Blue's start field")
    assert_words(m.words)
    five = CarryOut.of(before, engine.parse_play(before, "5: T0-T5", seat=1).result, 1)
    gone = {f: w for f, w in five.expected.items() if f != "T3"}
    m = check(five, gone)
    assert m is not None and m.errors == ("T3",) and [s.kind for s in m.steps] == ["missing"]
    assert m.words["en"] == "Not right yet: a red piece is missing 3 fields past Red's start"
    assert carry_leds(five, m) == {"T3": "error"}
    assert_words(m.words)

    black = [(b, s, p) for b, s, p in all_plays(("black", 4, None)) if p.disc_turn]
    b, s, p = black[0]
    carry = CarryOut.of(b, p.result, s)
    wrong_way = (b.disc - p.disc_turn) % 4
    reading = T.occupancy(T.rotate_disc(p.result, wrong_way - p.result.disc))
    m = check(carry, reading, wrong_way)
    assert m is not None and not m.wrong and abs(m.disc_turn) == 2
    assert m.words["en"] == "Still to do: the disc still has to turn half a turn"
    assert_words(m.words)
    half = CarryOut.of(b, T.rotate_disc(b, 2), s)
    assert half.disc_turn == 2 and half.words["en"].endswith("then turn the disc half a turn")
    assert_words(half.words)
    dog = next((b, s, p) for b, s, p in all_plays(("black", 4, None)) if b.black_dog != T.unturned(p).black_dog
               and not p.disc_turn)
    b, s, p = dog
    carry = CarryOut.of(b, p.result, s)
    right = f"T{p.result.black_dog}"
    wrong = free_track_field(b, carry.expected, T.occupancy(b))
    reading = {**{f: w for f, w in carry.expected.items() if f != right}, wrong: "dog"}
    m = check(carry, reading)
    assert m is not None and [(x.kind, x.who, x.frm, x.to) for x in m.steps] == [("went", "dog", wrong, right)]
    assert m.words["en"].startswith("Not right yet: the black dog went ")
    assert m.words["de"].startswith("Noch nicht richtig: der Black DOG kam ")
    assert_words(m.words)


def test_readings_no_position_could_give_are_put_right_or_waited_for() -> None:
    before = pos("classic", ["T10", "T3", "K", "K"], ["T20", "T0", "K", "K"], K4, K4)
    five = CarryOut.of(before, engine.parse_play(before, "5: T0-T5", seat=1).result, 1)
    done = five.expected
    assert check(five, done, disc=1) is None and carried_out(five, done, disc=1)  # classic has no disc to read
    # five red pieces where red has four: the one too many goes back to its kennel
    m = check(five, {**done, "T40": "s0", "T41": "s0", "T42": "s0"})
    assert m is not None and [s.kind for s in m.steps] == ["extra"] * 3
    assert {s.to for s in m.steps} <= {f"S0K{j}" for j in range(4)}
    # a colour nobody plays here, or a label vision does not give: the camera could not tell
    assert check(five, {**done, "T40": "s5"}) is None and not carried_out(five, {**done, "T40": "s5"})
    assert check(five, {**done, "T40": "blur"}) is None
    with pytest.raises(ValueError, match="not one game"):
        CarryOut.of(before, pos("compact", ["T10", "K", "K"], ["T20", "K", "K"], ["K"] * 3, ["K"] * 3), 1)
