"""The top card's outline on a drawn zone: four sides seen, and one side not seen at all."""
from __future__ import annotations

import cv2
import numpy as np

from vision.card_outline import top_card_candidates
from vision.tuning import CARD_MIN_SUPPORT

PX = 2.0  # zone pixels per mm
CARD = (63.0 * PX, 88.0 * PX)


def _card(centre: tuple[float, float], angle_deg: float) -> np.ndarray:
    """(4, 2) the corners of a card turned by `angle_deg` about `centre` (zone pixels)."""
    w, h = CARD
    a = np.radians(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ R.T + np.array(centre)


def _zone(cards: list[tuple[np.ndarray, int]], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(a zone with `cards` (corners, grey) drawn in order, the empty zone), lightly blurred and noisy."""
    rng = np.random.default_rng(seed)
    empty = np.full((320, 280, 3), 120, np.uint8)
    zone = empty.copy()
    for corners, grey in cards:
        cv2.fillPoly(zone, [np.round(corners * 16).astype(np.int32)], (grey,) * 3, cv2.LINE_AA, 4)
    out = []
    for img in (zone, empty):
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 1.2) + rng.normal(0, 2.0, img.shape)
        out.append(np.clip(img, 0, 255).astype(np.uint8))
    return out[0], out[1]


def _centre_error(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.hypot(*(found.mean(axis=0) - truth.mean(axis=0))))


def test_a_card_with_four_sides_seen_is_found() -> None:
    top = _card((140, 160), 12.0)
    zone, empty = _zone([(top, 220)], seed=1)
    found = top_card_candidates(zone, empty, CARD, 4)
    assert found and found[0].hidden == -1
    assert _centre_error(found[0].corners, top) < 3.0 and abs(found[0].angle_deg - 12.0) < 2.0


def test_a_card_whose_one_side_shows_no_edge_is_found_from_its_other_three() -> None:
    # a card of the same white beneath reaches past the top card's left side: no step marks that side
    top = _card((150, 160), 0.0)
    beneath = np.array([[20, 95], [150, 95], [150, 225], [20, 225]], float)  # within its top and bottom
    zone, empty = _zone([(beneath, 220), (top, 220)], seed=2)
    found = top_card_candidates(zone, empty, CARD, 8)
    near = [o for o in found if o.support >= CARD_MIN_SUPPORT and _centre_error(o.corners, top) < 3.0]
    assert near, [(o.corners.mean(axis=0).round(1), o.hidden) for o in found]
    assert near[0].hidden == 0  # its left side, placed a card's width from the right one
    assert abs(near[0].angle_deg) < 2.0
