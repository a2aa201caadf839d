"""The top card on the discard zone: enrol each card type once, then recognise with a confidence.

The zone is cut out of the frame with one small perspective warp (a few hundred pixels,
not the frame). A card shows up as a large difference from the empty zone; its outline
(a rotated rectangle) is warped upright to a small canonical image, light-corrected, and
compared by normalised correlation with every enrolled card, both ways up (a card may be
put down either way). When the best match is weak, or not clearly better than the
runner-up, the recogniser says so and the service asks the player.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.calibration_record import Calibration
from vision.errors import CardError

log = logging.getLogger(__name__)

ZONE_PX_PER_MM = 2.0
ZONE_MARGIN_MM = 10.0
CANON = (36, 50)  # canonical card image (w, h): coarse enough to ignore a wobbly outline
MIN_SCORE = 0.6
MIN_MARGIN = 0.01
RATIO = 2.5  # the runner-up must miss by this many times more than the best
CARD_MIN_AREA = 0.45  # of a card's area in the zone mask
INSET = 0.06  # of the card's width and height, left out on every side
HUE_WEIGHT = 0.5  # score lost per log unit of hue difference between the card and a template
ALIGN_CANDIDATES = 3  # cards whose outline fit is refined before judging
ALIGN_STEP_PX = 2.0  # first nudge of the outline, zone pixels
ALIGN_STEP_DEG = 2.0
ALIGN_STEP_SCALE = 0.03
ALIGN_ROUNDS = 12
FORMAT = "dogtable-card-templates"
VERSION = 2  # 2: a hue row after the two correlation halves


@dataclass(frozen=True)
class CardReading:
    card: str | None  # None: no card, or not sure (see `ask`)
    confidence: float
    present: bool
    ask: bool  # a card lies there but we are not sure which: ask the player
    runner_up: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"card": self.card, "confidence": round(self.confidence, 3), "present": self.present,
                "ask": self.ask, "runner_up": self.runner_up}


class CardReader:
    """Cuts out the discard zone of a calibrated setup and recognises enrolled cards."""

    def __init__(self, calibration: Calibration, templates: dict[str, np.ndarray] | None = None,
                 empty_zone: np.ndarray | None = None) -> None:
        self.cal = calibration
        (cx, cy), (w, h) = calibration.discard_centre_mm, calibration.discard_size_mm
        self.zone_mm = (cx - w / 2 - ZONE_MARGIN_MM, cy - h / 2 - ZONE_MARGIN_MM, w + 2 * ZONE_MARGIN_MM, h + 2 * ZONE_MARGIN_MM)
        self.zone_size = (int(round(self.zone_mm[2] * ZONE_PX_PER_MM)), int(round(self.zone_mm[3] * ZONE_PX_PER_MM)))
        self.card_px = (w * ZONE_PX_PER_MM, h * ZONE_PX_PER_MM)
        self.templates: dict[str, np.ndarray] = dict(templates or {})
        self.empty_zone = empty_zone

    def zone(self, frame: np.ndarray, homography: np.ndarray | None = None) -> np.ndarray:
        """The discard zone seen from above, ZONE_PX_PER_MM pixels per mm (small: one cheap warp)."""
        H = self.cal.homography if homography is None else homography
        x0, y0, _, _ = self.zone_mm
        s = ZONE_PX_PER_MM
        zone_to_mm = np.array([[1 / s, 0, x0], [0, 1 / s, y0], [0, 0, 1]])
        return cv2.warpPerspective(frame, H @ zone_to_mm, self.zone_size,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    def set_empty(self, empty_frame: np.ndarray) -> None:
        self.empty_zone = self.zone(empty_frame)

    def _outline(self, zone: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(corners of the upright card in the zone: tl, tr, br, bl; light gain per channel) or None if no card."""
        if self.empty_zone is None:
            raise CardError("the card reader has no picture of the empty discard zone: calibrate again")
        a = cv2.GaussianBlur(zone, (5, 5), 0).astype(np.float32)
        b = cv2.GaussianBlur(self.empty_zone, (5, 5), 0).astype(np.float32)
        # Light changes scale the whole zone; the zone's top and bottom strips (never under
        # the card) say by how much.
        border = np.concatenate([a[:6].reshape(-1, 3), a[-6:].reshape(-1, 3)])
        border_ref = np.concatenate([b[:6].reshape(-1, 3), b[-6:].reshape(-1, 3)])
        gain = np.median(border, axis=0) / np.maximum(np.median(border_ref, axis=0), 1)
        diff = np.abs(a - b * gain).max(axis=2)
        # Otsu adapts to dim light and pale cards; the floor keeps noise out of an empty zone.
        diff = cv2.blur(diff, (5, 5))
        d8 = np.clip(diff, 0, 255).astype(np.uint8)
        otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        mask = (diff > max(12.0, min(0.6 * otsu, 30.0))).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return None
        c = max(contours, key=cv2.contourArea)
        if cv2.contourArea(c) < CARD_MIN_AREA * self.card_px[0] * self.card_px[1]:
            return None
        (mx, my), (rw, rh), ang = cv2.minAreaRect(c)
        if rw > rh:  # make the long side vertical, as the card is printed
            rw, rh, ang = rh, rw, ang + 90
        # The outline of a pale card on pale board is ragged; the card's size is known.
        rw, rh = 0.5 * (rw + self.card_px[0]), 0.5 * (rh + self.card_px[1])
        box = cv2.boxPoints(((mx, my), (rw, rh), ang))
        # Order the corners: top-left, top-right, bottom-right, bottom-left of the upright card.
        return _order(box).astype(np.float32), gain

    def _describe(self, zone: np.ndarray, box: np.ndarray, gain: np.ndarray) -> np.ndarray:
        """Canonical upright card descriptor (float32, zero mean, unit norm) of the card inside `box`."""
        cw, ch = CANON
        # Only the card's inside: its edge against the board (a strong, wobbly step) would
        # swamp the label and pattern in the detail half.
        mx, my = INSET * cw, INSET * ch
        dst = np.array([[-mx, -my], [cw - 1 + mx, -my], [cw - 1 + mx, ch - 1 + my], [-mx, ch - 1 + my]], np.float32)
        M = cv2.getPerspectiveTransform(box.astype(np.float32), dst)
        img = cv2.warpPerspective(zone, M, CANON, flags=cv2.INTER_LINEAR).astype(np.float32)
        img = img / np.maximum(gain, 1e-3)
        # Two halves of one descriptor: coarse colour (tells most cards apart) and the
        # high-passed brightness (label and pattern: tells the dark black cards apart).
        colour = _normalise(np.log(cv2.GaussianBlur(img, (0, 0), 1.5) + 8.0))
        grey = np.log(img.mean(axis=2) + 8.0)
        detail = _normalise((grey - cv2.GaussianBlur(grey, (0, 0), 4.0))[..., None] * np.ones((1, 1, 3), np.float32))
        # The correlation halves are blind to the card's overall hue (means are removed), and a
        # purple 6 and a red 1/11 have the same layout; so one more row holds the body's hue:
        # median log colour per channel, minus its mean (light-level free; the zone gain took
        # out the light's tint).
        logc = np.log(img + 8.0).reshape(-1, 3)
        med = np.median(logc, axis=0)
        hue = np.zeros((1, cw, 3), np.float32)
        hue[0, 0] = med - med.mean()
        return np.concatenate([np.sqrt(0.5) * np.concatenate([colour, detail], axis=0), hue], axis=0)

    def _card_image(self, zone: np.ndarray) -> np.ndarray | None:
        found = self._outline(zone)
        return None if found is None else self._describe(_smooth(zone), *found)

    def enrol(self, frame: np.ndarray, card: str, homography: np.ndarray | None = None) -> None:
        img = self._card_image(self.zone(frame, homography))
        if img is None:
            raise CardError(f"no card found on the discard zone for '{card}': lay it flat inside the dashed frame")
        self.templates[card] = img

    def _aligned_score(self, zone: np.ndarray, box: np.ndarray, gain: np.ndarray, template: np.ndarray) -> float:
        """Correlation with `template` after nudging the outline (shift, turn, size) to fit it best.

        The outline found against the empty zone is off by a pixel or a degree in dim, noisy
        light; a few dozen tiny warps fix that, and only for the few likeliest cards.
        """
        centre = box.mean(axis=0)

        def score(p: tuple[float, float, float, float]) -> float:
            dx, dy, da, ds = p
            c, s_ = np.cos(np.radians(da)), np.sin(np.radians(da))
            R = np.array([[c, -s_], [s_, c]], np.float32) * (1 + ds)
            b = (box - centre) @ R.T + centre + np.array([dx, dy], np.float32)
            return _match(self._describe(zone, b, gain), template)

        p = [0.0, 0.0, 0.0, 0.0]
        best = score(tuple(p))  # type: ignore[arg-type]
        steps = [ALIGN_STEP_PX, ALIGN_STEP_PX, ALIGN_STEP_DEG, ALIGN_STEP_SCALE]
        for _ in range(ALIGN_ROUNDS):
            improved = False
            for k in range(4):
                for sign in (1.0, -1.0):
                    q = list(p)
                    q[k] += sign * steps[k]
                    v = score(tuple(q))  # type: ignore[arg-type]
                    if v > best:
                        best, p, improved = v, q, True
                        break
            if not improved:
                steps = [v / 2 for v in steps]
        return best

    def recognise(self, frame: np.ndarray, homography: np.ndarray | None = None) -> CardReading:
        if not self.templates:
            raise CardError("no cards enrolled yet: run 'dogtable vision enrol-cards' first")
        zone = self.zone(frame, homography)
        found = self._outline(zone)
        if found is None:
            return CardReading(None, 1.0, False, False)
        box, gain = found
        zone = _smooth(zone)
        img = self._describe(zone, box, gain)
        names = list(self.templates)
        scores = []
        for name in names:
            scores.append(_match(img, self.templates[name]))
        order = list(np.argsort(scores)[::-1])
        # Align the outline to each of the likeliest cards, then judge on the aligned scores.
        for i in order[:ALIGN_CANDIDATES]:
            scores[i] = max(scores[i], self._aligned_score(zone, box, gain, self.templates[names[i]]))
        order = list(np.argsort(scores)[::-1])
        best, second = scores[order[0]], (scores[order[1]] if len(order) > 1 else -1.0)
        # Judge the runner-up by how much further it is from a perfect match than the best:
        # near-twins (black-5, black-6) differ little in score but a lot in that ratio.
        miss_best, miss_second = 1.0 - best, 1.0 - second
        conf = float(np.clip(1.0 - RATIO * miss_best / max(miss_second, 1e-6), 0, 1)) * float(best >= MIN_SCORE)
        runner = names[order[1]] if len(order) > 1 else None
        if best < MIN_SCORE or miss_second < RATIO * miss_best or second > best - MIN_MARGIN:
            log.debug("card unsure: %s %.3f vs %s %.3f", names[order[0]], best, runner, second)
            return CardReading(None, conf, True, True, names[order[0]])
        return CardReading(names[order[0]], conf, True, False, runner)

    # --- file form -----------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        data = {
            "format": FORMAT, "version": VERSION, "canon": list(CANON),
            "empty_zone": None if self.empty_zone is None else self.empty_zone.tolist(),
            "cards": {k: np.round(v, 5).tolist() for k, v in self.templates.items()},
        }
        Path(path).write_text(json.dumps(data) + "\n")


def read_templates(p: Path, fmt: str, version: int) -> dict:
    """A card template file's JSON, or CardError saying what to do (enrol again)."""
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise CardError(f"card templates {p} do not exist; run 'dogtable vision enrol-cards' first") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CardError(f"cannot read card templates {p}: {exc}; enrol the cards again") from None
    if not isinstance(data, dict) or data.get("format") != fmt or data.get("version") != version:
        raise CardError(f"{p} is not a card template file of version {version}; enrol the cards again")
    return data


def load_card_reader(calibration: Calibration, path: str | Path) -> CardReader:
    p = Path(path)
    data = read_templates(p, FORMAT, VERSION)
    try:
        cards = {k: np.asarray(v, np.float32) for k, v in data["cards"].items()}
        empty = None if data.get("empty_zone") is None else np.asarray(data["empty_zone"], np.uint8)
    except (KeyError, TypeError, ValueError) as exc:
        raise CardError(f"{p}: damaged card templates ({exc}); enrol the cards again") from None
    want = (2 * CANON[1] + 1, CANON[0], 3)
    for k, v in cards.items():
        if v.shape != want:
            raise CardError(f"{p}: template for '{k}' has shape {v.shape}, expected {want}; enrol the cards again")
    return CardReader(calibration, cards, empty)


def _normalise(img: np.ndarray) -> np.ndarray:
    img = img - img.mean()
    n = float(np.sqrt((img * img).sum()))
    return (img / max(n, 1e-6)).astype(np.float32)


def _turned(img: np.ndarray) -> np.ndarray:
    """The correlation halves of the same card put down the other way up (each half turned 180 degrees)."""
    h = CANON[1]
    return np.concatenate([img[:h][::-1, ::-1], img[h : 2 * h][::-1, ::-1]], axis=0)


def _smooth(zone: np.ndarray) -> np.ndarray:
    """The zone blurred to the canonical image's pixel size: a plain warp would sample single noisy pixels."""
    sigma = 0.5 * ZONE_PX_PER_MM * 63.0 / CANON[0]
    return cv2.GaussianBlur(zone, (0, 0), sigma)


def _match(img: np.ndarray, template: np.ndarray) -> float:
    """Correlation (either way up) of two descriptors, less a penalty for a different hue."""
    n = 2 * CANON[1]
    t = template[:n]
    corr = max(float((img[:n] * t).sum()), float((_turned(img) * t).sum()))
    hue = float(np.sqrt(((img[n, 0] - template[n, 0]) ** 2).sum()))
    return corr - HUE_WEIGHT * hue


def _order(box: np.ndarray) -> np.ndarray:
    c = box.mean(axis=0)
    ang = np.arctan2(box[:, 1] - c[1], box[:, 0] - c[0])
    box = box[np.argsort(ang)]  # from -pi: top-left first for an upright rectangle
    return box
