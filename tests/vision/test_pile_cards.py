"""The pile card reader's parts that need no benchmark: the file a table holds picks its reader,
frames of a card lying still are judged together, the symbol and the index are weighed together,
a pile covering most of the zone is seen."""
from __future__ import annotations


import numpy as np

from vision.calibration import calibrate
from vision.cards import CardReader
from vision.pile_cards import CANON_PX_PER_MM, CARD_MM, PileCardReader, PileCardReading, load_table_card_reader
from vision.pile_cards import _decide
from vision.tuning import CARD_STILL_MM, CARD_SYMBOL_MARGIN



def test_a_template_file_gets_the_reader_it_was_enrolled_for(cal, tmp_path) -> None:
    pile = PileCardReader(cal)
    canon = (round(CARD_MM[1] * CANON_PX_PER_MM), round(CARD_MM[0] * CANON_PX_PER_MM))  # an upright card, (h, w)
    pile.templates = {"7": [np.zeros(canon, np.float32)]}
    pile.save(tmp_path / "pile.json")
    assert isinstance(load_table_card_reader(cal, tmp_path / "pile.json"), PileCardReader)
    old = CardReader(cal, {"7": np.zeros((101, 36, 3), np.float32)})
    old.save(tmp_path / "old.json")
    back = load_table_card_reader(cal, tmp_path / "old.json")
    assert isinstance(back, CardReader) and set(back.templates) == {"7"}


def _reading(margin: float, shift_mm: float = 0.0) -> PileCardReading:
    """One frame's scores: card '7' ahead of the others by `margin` (symbol), its index a little ahead."""
    sym = np.full((3, 2), 0.9 - margin)
    sym[0, 0] = 0.9
    cor = np.full((3, 2), 0.85)
    cor[0, 0] = 0.9
    corners = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], float) + shift_mm
    return PileCardReading(None, 0.0, True, True, "7", corners_mm=corners, symbol=sym, corner=cor)


def test_still_frames_are_judged_by_their_mean_scores(cal) -> None:
    reader = PileCardReader(cal, {"7": [], "8": [], "9": []})
    clear, unsure = _reading(1.5 * CARD_SYMBOL_MARGIN), _reading(0.6 * CARD_SYMBOL_MARGIN)
    assert reader.combine([unsure]).card is None  # one unsure frame alone asks
    both = reader.combine([clear, unsure])
    assert both.card == "7" and not both.ask
    # the card moved between the frames: only the newest frame counts, and it is unsure
    moved = _reading(0.6 * CARD_SYMBOL_MARGIN, shift_mm=2 * CARD_STILL_MM)
    assert reader.combine([clear, moved]).card is None


def test_an_index_may_trail_a_little_only_behind_a_card_whose_symbol_is_far_behind() -> None:
    names = ["5", "8", "6"]

    def named(cor_8: float, cor_6: float) -> str | None:
        sym = np.array([[0.95, 0.3], [0.85, 0.3], [0.5, 0.3]])  # the 5's symbol; the 8's close, the 6's far behind
        cor = np.array([[0.93, 0.93], [cor_8, cor_8], [cor_6, cor_6]])
        return _decide(names, sym, cor, None).card

    assert named(0.9, 0.9) == "5"  # both indexes agree
    assert named(0.9, 0.96) == "5"  # a blurred 5's index a hair behind a 6's: the 6's round symbol is far off
    assert named(0.9, 0.99) is None  # ... but not far behind it
    assert named(0.96, 0.9) is None  # behind the index of the 8, whose square symbol is nearly as good: ask


def _five_and_eight(eve, seed: int):
    """The evening scene's bulb-lit table with the 5 and the 8 enrolled: (scene, pile reader, homography, box)."""
    setup = eve.evening_named("eve-bulb-4seg")
    scene = eve.EveningScene(setup, seed=seed)
    start = eve.start_position(setup)
    cal = calibrate([scene.render(eve.empty_of(start))], setup.segments, setup.board, [scene.render(start)],
                    start.field_occupancy())
    H = cal.homography
    box = (0, 0, *setup.resolution)
    cards = PileCardReader(cal)
    cards.set_empty(scene.render_cards(None, frame_index=0, box=box), H)
    for i, c in enumerate(("5", "8")):
        cards.enrol(scene.render_cards(eve.CardOnPile(c), frame_index=10 + i, box=box), c, H)
    return scene, cards, H, box


def test_a_pile_covering_most_of_the_zone_is_seen(eve) -> None:
    scene, cards, H, box = _five_and_eight(eve, seed=2)
    # four cards beneath, turned far both ways and spread: cards cover more of the zone than the board does
    under = (("8", -30.0, -9.0, -9.0), ("8", 30.0, 9.0, 9.0), ("5", 150.0, 9.0, -9.0), ("8", 210.0, -9.0, 9.0))
    pile = eve.CardOnPile("5", angle_deg=10.0, under=under)
    r = cards.recognise(scene.render_cards(pile, frame_index=20, box=box), H)
    assert r.present and r.card in ("5", None), r


def test_an_outline_a_little_off_is_moved_to_where_the_symbol_fits(eve) -> None:
    scene, cards, H, box = _five_and_eight(eve, seed=3)
    frame = scene.render_cards(eve.CardOnPile("8", angle_deg=8.0), frame_index=20, box=box)
    _, outlines, _ = cards._outline(frame, H)
    found = outlines[0]
    # the same outline turned by 2 degrees and shifted by a mm about its centre: the symbol fits it worse
    centre = found.corners.mean(axis=0)
    a = np.radians(2.0)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    off = ((found.corners - centre) @ R.T + centre + 2.0).astype(np.float32)
    _, moved = cards._likeliest(frame, H, [type(found)(off, found.angle_deg + 2.0, found.support)])
    assert abs(moved.angle_deg - found.angle_deg) < 1.0  # turned back
    assert np.abs(moved.corners - found.corners).max() < np.abs(off - found.corners).max()
