from __future__ import annotations

import engine
import numpy as np
import pytest

from vision.cards import CardReader, load_card_reader
from vision.errors import CardError
from vision.reader import BoardReader


@pytest.fixture(scope="module")
def cards(h, table, cal) -> CardReader:
    cr = CardReader(cal)
    cr.set_empty(table.render(h.empty_of(h.start_position()), frame_index=0))
    reader = BoardReader(cal)
    for i, card in enumerate(engine.ALL_CARDS):
        frame = table.render(h.start_position(), card=card, frame_index=200 + i)
        reader.measure(frame)
        cr.enrol(frame, card, reader.homography)
    return cr


def test_recognises_every_card_after_enrolment(h, table, cards) -> None:
    reader = BoardReader(cards.cal)
    for i, card in enumerate(engine.ALL_CARDS):
        frame = table.render(h.some_position(), card=card, frame_index=300 + i, card_angle_deg=180.0 * (i % 2))
        reader.measure(frame)
        r = cards.recognise(frame, reader.homography)
        assert r.card == card and not r.ask and r.confidence > 0.3, (card, r)


def test_no_card_and_unknown_card(h, table, cards) -> None:
    r = cards.recognise(table.render(h.some_position(), frame_index=400))
    assert not r.present and r.card is None


def test_templates_file_roundtrip(cards, tmp_path) -> None:
    path = tmp_path / "cards.json"
    cards.save(path)
    back = load_card_reader(cards.cal, path)
    assert set(back.templates) == set(engine.ALL_CARDS)
    with pytest.raises(CardError, match="enrol-cards"):
        load_card_reader(cards.cal, tmp_path / "missing.json")
    with pytest.raises(CardError, match="no cards enrolled"):
        CardReader(cards.cal, {}, cards.empty_zone).recognise(np.zeros((720, 1280, 3), np.uint8))


def test_harsh_light_every_card_is_recognised_or_asked_never_wrong(h, harsh_table, harsh_cal) -> None:
    cr = CardReader(harsh_cal)
    cr.set_empty(harsh_table.render(h.empty_of(h.start_position()), frame_index=0))
    reader = BoardReader(harsh_cal)
    for i, card in enumerate(engine.ALL_CARDS):
        frame = harsh_table.render(h.start_position(), card=card, frame_index=500 + i)
        reader.measure(frame)
        cr.enrol(frame, card, reader.homography)
    right = 0
    for i, card in enumerate(engine.ALL_CARDS):
        frame = harsh_table.render(h.some_position(), card=card, frame_index=600 + i, card_angle_deg=180.0 * (i % 2))
        reader.measure(frame)
        r = cr.recognise(frame, reader.homography)
        assert r.card in (card, None) and r.present, (card, r)
        right += r.card == card
    assert right >= len(engine.ALL_CARDS) - 1
