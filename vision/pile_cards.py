"""The top card of a real pile on the discard zone: enrol each card from one photo, then name it or ask.

The zone is cut out of a picture with one small perspective warp: the board's own picture
(720p), or better a full-resolution crop of the zone alone (`zone_box` says which pixels of
the board's picture to crop, `crop_homography` gives the crop's own board-to-pixel map: a Pi
camera can take that crop at the sensor's full resolution while the board is read at 720p).

On the zone the top card of the pile is found among the rectangles of a card's size whose four
sides are complete, or three where a white card on white cards shows one side not at all
(vision.card_outline): of the few distinct ones, the one whose inside shows an enrolled card's
whole big symbol (a rectangle a few degrees off, or a card's beneath, shows it cut or covered). It is rectified to an upright card straight from the picture at its own resolution. Two parts of it are read separately: the corner index (both
corners: a card lies either way up) and the big symbol in the middle, each by normalised
correlation of locally normalised brightness (light, shadow bands and white balance move a
region's level and contrast, not its pattern), each allowed to slide by a pixel or two (all the
slid windows against all templates in one matrix product). A card
is named only if the symbol names it clearly ahead of every other card and the corner agrees: its
index no more than a hair behind any other card's, a little more behind the index of a card whose
symbol is far behind (blurred indexes look much alike; big symbols less so). Anything less asks the player: a wrong card is the worst answer (the
referee would judge against it). Several frames of a card lying still are combined by their
mean scores (`combine`).

Enrolment is one photo per card, augmented (blur, a small turn and size change of the outline:
what a later photo's focus and outline fit may differ by); a card the table keeps asking about
can be given a second photo (`enrol(..., add=True)`).
"""
from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.calibration_record import Calibration
from vision.card_outline import Outline, top_card_candidates
from vision.cards import CardReader, CardReading, load_card_reader, read_templates
from vision.errors import CardError
from vision.tuning import (
    CARD_CORNER_MARGIN, CARD_CORNER_MARGIN_MAX, CARD_CORNER_PER_SYMBOL, CARD_MIN_CORNER, CARD_MIN_SUPPORT,
    CARD_MIN_SYMBOL, CARD_OUTLINES, CARD_PRESENT_AREA, CARD_STILL_MM, CARD_SYMBOL_MARGIN,
)

log = logging.getLogger(__name__)

ZONE_PX_PER_MM = 2.0  # the zone the outline is searched in
ZONE_MARGIN_MM = 30.0  # a card turned 25 deg and shifted 8 mm reaches this far past the printed zone
CANON_PX_PER_MM = 1.2  # the upright card read: a 720p picture has ~0.65 px/mm, a full-resolution crop 1.5-3
CARD_MM = (63.0, 88.0)
SLIDE_PX = 2  # a region may slide this far against its template (the outline's fit)
# moves of the likeliest outline tried against the symbols (turn in degrees, size, shift in zone pixels),
# a round of them around the best so far, up to REFINE_ROUNDS rounds
REFINE = ((-2.0, 1.0, 0, 0), (-1.0, 1.0, 0, 0), (1.0, 1.0, 0, 0), (2.0, 1.0, 0, 0), (0.0, 0.98, 0, 0),
          (0.0, 1.02, 0, 0), (0.0, 1.0, -4, 0), (0.0, 1.0, 4, 0), (0.0, 1.0, 0, -4), (0.0, 1.0, 0, 4))
REFINE_ROUNDS = 2
# regions of the upright card, mm (x0, y0, x1, y1): the top-left corner index (the bottom-right one is
# the same region of the card turned), and the big symbol
CORNER_MM = (4.5, 4.5, 22.0, 21.0)  # inside a card's printed frame (3-4 mm in), around the index
SYMBOL_MM = (10.0, 16.0, 53.0, 72.0)
FORMAT = "dogtable-pile-card-templates"
VERSION = 1  # normalised corner and symbol patterns, several per card (augmented enrolment)


@dataclass(frozen=True)
class PileCardReading(CardReading):
    """A card reading with what the pile reader saw of the top card."""

    corners_mm: np.ndarray | None = field(default=None, compare=False)  # (4, 2) the top card's outline
    symbol: np.ndarray | None = field(default=None, compare=False)  # (cards, 2) scores per way up
    corner: np.ndarray | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, object]:
        return {"card": self.card, "confidence": round(self.confidence, 3), "present": self.present,
                "ask": self.ask, "runner_up": self.runner_up}


def zone_box(calibration: Calibration, homography: np.ndarray, frame_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """(x0, y0, w, h): the pixels of the board's picture (`frame_size` = (w, h)) that hold the discard
    zone and its margin: the crop to ask a camera for at full resolution."""
    (cx, cy), (w, h) = calibration.discard_centre_mm, calibration.discard_size_mm
    hw, hh = w / 2 + ZONE_MARGIN_MM, h / 2 + ZONE_MARGIN_MM
    pts = np.array([[cx - hw, cy - hh], [cx + hw, cy - hh], [cx + hw, cy + hh], [cx - hw, cy + hh]], np.float64)
    p = cv2.perspectiveTransform(pts[None], homography)[0]
    x0, y0 = np.floor(p.min(axis=0)).astype(int)
    x1, y1 = np.ceil(p.max(axis=0)).astype(int) + 1
    x0, y0 = max(int(x0), 0), max(int(y0), 0)
    x1, y1 = min(int(x1), frame_size[0]), min(int(y1), frame_size[1])
    return x0, y0, x1 - x0, y1 - y0


def crop_homography(homography: np.ndarray, box: tuple[int, int, int, int], crop_size: tuple[int, int]) -> np.ndarray:
    """Board mm -> pixels of a crop of `box` (of the board's picture) taken at `crop_size` (w, h) pixels."""
    x0, y0, w, h = box
    sx, sy = crop_size[0] / w, crop_size[1] / h
    # pixel centres: picture pixel x maps to crop pixel (x - x0 + 0.5) * sx - 0.5
    T = np.array([[sx, 0, (0.5 - x0) * sx - 0.5], [0, sy, (0.5 - y0) * sy - 0.5], [0, 0, 1]])
    return T @ homography


class PileCardReader:
    """Cuts out the discard zone of a calibrated setup and names the top card of a pile, or asks."""

    def __init__(self, calibration: Calibration, templates: dict[str, list[np.ndarray]] | None = None,
                 empty_zone: np.ndarray | None = None) -> None:
        self.cal = calibration
        (cx, cy), (w, h) = calibration.discard_centre_mm, calibration.discard_size_mm
        self.zone_mm = (cx - w / 2 - ZONE_MARGIN_MM, cy - h / 2 - ZONE_MARGIN_MM, w + 2 * ZONE_MARGIN_MM,
                        h + 2 * ZONE_MARGIN_MM)
        self.zone_size = (int(round(self.zone_mm[2] * ZONE_PX_PER_MM)), int(round(self.zone_mm[3] * ZONE_PX_PER_MM)))
        self.card_px = (CARD_MM[0] * ZONE_PX_PER_MM, CARD_MM[1] * ZONE_PX_PER_MM)
        self.templates: dict[str, list[np.ndarray]] = {k: list(v) for k, v in (templates or {}).items()}
        self.empty_zone = empty_zone
        self._canon = (int(round(CARD_MM[0] * CANON_PX_PER_MM)), int(round(CARD_MM[1] * CANON_PX_PER_MM)))
        self._stack: tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    # --- the zone -----------------------------------------------------------------------------
    def _zone_to_mm(self) -> np.ndarray:
        x0, y0, _, _ = self.zone_mm
        s = ZONE_PX_PER_MM
        return np.array([[1 / s, 0, x0], [0, 1 / s, y0], [0, 0, 1]])

    def zone(self, frame: np.ndarray, homography: np.ndarray | None = None) -> np.ndarray:
        """The discard zone seen from above, ZONE_PX_PER_MM pixels per mm, from `frame` (a whole picture or
        a crop, with its own `homography`: board mm -> its pixels)."""
        H = self.cal.homography if homography is None else homography
        src = _prefilter(frame, H, ZONE_PX_PER_MM, self.zone_mm)
        return cv2.warpPerspective(src, H @ self._zone_to_mm(), self.zone_size,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)

    def set_empty(self, empty_frame: np.ndarray, homography: np.ndarray | None = None) -> None:
        self.empty_zone = self.zone(empty_frame, homography)

    def _present(self, zone: np.ndarray) -> bool:
        """Whether something lies on the zone: a card's area at least differs from the empty zone."""
        if self.empty_zone is None:
            raise CardError("the card reader has no picture of the empty discard zone: calibrate again")
        a = cv2.GaussianBlur(zone, (0, 0), 2.0).astype(np.float32) + 8
        b = cv2.GaussianBlur(self.empty_zone, (0, 0), 2.0).astype(np.float32) + 8
        # a light change scales the whole zone: its rim (a few mm wide, which no card on the zone
        # reaches but a corner of one turned far) says by how much
        ratio = np.log(a) - np.log(b)
        rim = int(6 * ZONE_PX_PER_MM)
        ring = np.concatenate([ratio[:rim].reshape(-1, 3), ratio[-rim:].reshape(-1, 3),
                               ratio[:, :rim].reshape(-1, 3), ratio[:, -rim:].reshape(-1, 3)])
        ratio -= np.median(ring, axis=0)
        diff = np.abs(ratio).max(axis=2)
        # the noise is measured on the rim too: a pile covers most of the zone, and the zone's own
        # median difference is then a card's
        rim_diff = np.abs(ring - np.median(ring, axis=0)).max(axis=1)
        noise = 1.4826 * float(np.median(np.abs(rim_diff - np.median(rim_diff)))) + 0.02
        changed = diff > max(0.12, 4 * noise)
        return float(changed.mean()) * self.zone_size[0] * self.zone_size[1] >= CARD_PRESENT_AREA * self.card_px[0] * self.card_px[1]

    # --- the upright card -----------------------------------------------------------------------
    def _upright(self, frame: np.ndarray, H: np.ndarray, corners_zone: np.ndarray,
                 src: np.ndarray | None = None) -> np.ndarray:
        """The card inside `corners_zone` (zone pixels), upright at CANON_PX_PER_MM, read from `frame` itself
        (`src`: `frame` already prefiltered for it)."""
        cw, ch = self._canon
        dst = np.array([[-0.5, -0.5], [cw - 0.5, -0.5], [cw - 0.5, ch - 0.5], [-0.5, ch - 0.5]], np.float32)
        Q = cv2.getPerspectiveTransform(dst, corners_zone.astype(np.float32))  # upright px -> zone px
        M = H @ self._zone_to_mm() @ Q  # upright px -> picture px
        if src is None:
            src = _prefilter(frame, H, CANON_PX_PER_MM, self.zone_mm)
        img = cv2.warpPerspective(src, M, (cw, ch), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE)
        return _normalised(img)

    def _regions(self, card: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(corner top-left, corner bottom-right turned upright, symbol) regions of a normalised upright card."""
        s = CANON_PX_PER_MM

        def cut(box: tuple[float, float, float, float], img: np.ndarray) -> np.ndarray:
            x0, y0, x1, y1 = (int(round(v * s)) for v in box)
            return img[y0:y1, x0:x1]

        turned = card[::-1, ::-1]
        return cut(CORNER_MM, card), cut(CORNER_MM, turned), cut(SYMBOL_MM, card)

    def _outline(self, frame: np.ndarray, H: np.ndarray, n: int = 1) -> tuple[np.ndarray, list[Outline], bool]:
        """(the zone, up to `n` distinct outlines that may be the top card's (most complete first, each
        complete enough), whether anything lies there)."""
        zone = self.zone(frame, H)
        present = self._present(zone)
        if not present:
            return zone, [], False
        found = top_card_candidates(zone, self.empty_zone, self.card_px, n)
        return zone, [o for o in found if o.support >= CARD_MIN_SUPPORT], True

    # --- enrolment ------------------------------------------------------------------------------
    def enrol(self, frame: np.ndarray, card: str, homography: np.ndarray | None = None, add: bool = False) -> None:
        """Learn `card` from one photo of it lying alone on the zone (`add`: one more photo of a card
        already enrolled, e.g. one the table keeps asking about)."""
        H = self.cal.homography if homography is None else homography
        _, outlines, present = self._outline(frame, H)
        if not present or not outlines:
            raise CardError(f"no card found on the discard zone for '{card}': lay it flat inside the dashed frame")
        variants = []
        outline = outlines[0]
        centre = outline.corners.mean(axis=0)
        # what a later photo may differ by: focus (blur) and the outline's fit (a degree, a per cent)
        for turn, size in ((0.0, 1.0), (1.5, 1.0), (-1.5, 1.0), (0.0, 0.98)):
            c, s_ = np.cos(np.radians(turn)), np.sin(np.radians(turn))
            R = np.array([[c, -s_], [s_, c]], np.float32) * size
            corners = (outline.corners - centre) @ R.T + centre
            up = self._upright(frame, H, corners)
            variants.append(up)
            if turn == 0.0 and size == 1.0:
                for blur in (1.0, 1.8):
                    variants.append(_normalised_again(cv2.GaussianBlur(up, (0, 0), blur)))
        if add and card in self.templates:
            self.templates[card].extend(variants)
        else:
            self.templates[card] = variants
        self._stack = None

    # --- recognition -----------------------------------------------------------------------------
    def _stacked(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every template's regions, each flattened to zero mean and unit length (one row a template):
        (names, owner index per template, top-left corners, bottom-right corners turned upright, symbols)."""
        if self._stack is None:
            names = list(self.templates)
            owner, tls, brs, symbol = [], [], [], []
            for k, name in enumerate(names):
                for v in self.templates[name]:
                    tl, br, sym = self._regions(v)
                    owner.append(k)
                    tls.append(tl.ravel())
                    brs.append(br.ravel())
                    symbol.append(sym.ravel())
            self._stack = (names, np.array(owner), _unit_rows(np.array(tls)), _unit_rows(np.array(brs)),
                           _unit_rows(np.array(symbol)))
        return self._stack

    def _scores(self, up: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(names, symbol scores (cards, 2 ways up), corner scores (cards, 2)) of an upright card."""
        names, owner, tls, brs, symbols = self._stacked()
        n = len(names)
        sym = np.full((n, 2), -1.0)
        cor = np.full((n, 2), -1.0)
        for way, img in enumerate((up, up[::-1, ::-1])):
            tl, br, s = self._regions(img)
            vs = _slid(s, symbols)
            # both corners, each against the template's same corner
            vc = 0.5 * (_slid(tl, tls) + _slid(br, brs))
            np.maximum.at(sym[:, way], owner, vs)
            np.maximum.at(cor[:, way], owner, vc)
        return names, sym, cor

    def recognise(self, frame: np.ndarray, homography: np.ndarray | None = None) -> PileCardReading:
        """The top card in `frame` (a whole picture, or a crop of the zone with its own `homography`)."""
        if not self.templates:
            raise CardError("no cards enrolled yet: run 'dogtable vision enrol-cards' first")
        H = self.cal.homography if homography is None else homography
        _, outlines, present = self._outline(frame, H, CARD_OUTLINES)
        if not present:
            return PileCardReading(None, 1.0, False, False)
        if not outlines:
            log.debug("card outline unsure: no card's four sides complete")
            return PileCardReading(None, 0.0, True, True)
        up, outline = self._likeliest(frame, H, outlines)
        names, sym, cor = self._scores(up)
        corners_mm = cv2.perspectiveTransform(outline.corners[None].astype(np.float64), self._zone_to_mm())[0]
        return _decide(names, sym, cor, corners_mm)

    def _likeliest(self, frame: np.ndarray, H: np.ndarray, outlines: list[Outline]) -> tuple[np.ndarray, Outline]:
        """(the upright card, its outline) of the outline candidates whose inside looks most like an
        enrolled card's big symbol: a rectangle a few degrees off the top card's, or a card's beneath,
        shows a symbol cut or covered, the top card's shows a whole one."""
        src = _prefilter(frame, H, CANON_PX_PER_MM, self.zone_mm)
        names, owner, _, _, symbols = self._stacked()
        # one template per card (its first, unaugmented photo) says how well an outline's symbol fits
        firsts = symbols[[int(np.flatnonzero(owner == k)[0]) for k in range(len(names))]]
        def fit_of(corners: np.ndarray) -> tuple[float, np.ndarray]:
            up = self._upright(frame, H, corners, src)
            return max(float(_slid(self._regions(img)[2], firsts).max()) for img in (up, up[::-1, ::-1])), up

        best: tuple[float, np.ndarray, Outline] | None = None
        for o in outlines:
            fit, up = fit_of(o.corners)
            if best is None or fit > best[0]:
                best = (fit, up, o)
        assert best is not None
        fit, up, o = best
        # the outline's fit (a blurred edge, a bent card, a side placed from its opposite) may leave it a
        # degree or two off: turned and sized a little, the symbol fits best where the card lies
        for _ in range(REFINE_ROUNDS):
            centre = o.corners.mean(axis=0)
            moved = False
            for turn, size, dx, dy in REFINE:
                c_, s_ = np.cos(np.radians(turn)), np.sin(np.radians(turn))
                R = np.array([[c_, -s_], [s_, c_]]) * size
                corners = ((o.corners - centre) @ R.T + centre + np.array([dx, dy])).astype(np.float32)
                f, u = fit_of(corners)
                if f > fit:
                    fit, up, o, moved = f, u, Outline(corners, o.angle_deg + turn, o.support, o.hidden), True
            if not moved:
                break
        return up, o

    def combine(self, readings: Sequence[PileCardReading]) -> PileCardReading:
        """One reading of several frames of a card lying still: their mean scores, judged as one.

        Only frames whose card was found where the first one's was (within CARD_STILL_MM) count; if
        any frame's card lay elsewhere or was not found, the card moved: the latest reading stands."""
        if not readings:
            raise ValueError("no readings to combine")
        last = readings[-1]
        usable = [r for r in readings if r.present and r.symbol is not None and r.corner is not None
                  and r.corners_mm is not None]
        if len(usable) != len(readings) or len(usable) < 2:
            return last
        ref = usable[0].corners_mm
        assert ref is not None
        if any(float(np.abs(r.corners_mm - ref).max()) > CARD_STILL_MM for r in usable):  # type: ignore[operator]
            return last
        sym = np.mean([r.symbol for r in usable], axis=0)
        cor = np.mean([r.corner for r in usable], axis=0)
        return _decide(list(self.templates), sym, cor, last.corners_mm)

    # --- file form -----------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        data = {
            "format": FORMAT, "version": VERSION, "canon": list(self._canon), "zone": list(self.zone_size),
            "empty_zone": None if self.empty_zone is None else self.empty_zone.tolist(),
            "cards": {k: [np.round(v, 4).tolist() for v in vs] for k, vs in self.templates.items()},
        }
        Path(path).write_text(json.dumps(data) + "\n")


def _decide(names: list[str], sym: np.ndarray, cor: np.ndarray, corners_mm: np.ndarray | None) -> PileCardReading:
    """Name a card only if the big symbol names it clearly ahead of every other card (CARD_SYMBOL_MARGIN),
    both match it well, and its corner index matches it about as well as any other card's index: within
    CARD_CORNER_MARGIN of the index of a card whose symbol is nearly as good, within up to
    CARD_CORNER_MARGIN_MAX of one whose symbol is far behind (CARD_CORNER_PER_SYMBOL): the symbol and the
    index agree, each weighed by how much it tells."""
    s_best = sym.max(axis=1)
    c_best = cor.max(axis=1)
    ks = int(s_best.argmax())
    s_second = float(np.delete(s_best, ks).max()) if len(names) > 1 else -1.0
    s_margin = float(s_best[ks]) - s_second
    # how far the symbol's card's index is ahead of (or behind) each other card's, less what the symbol's
    # lead over that card allows it to trail by (a blurred index looks much like several others); the
    # least of these
    allowed = np.clip(CARD_CORNER_PER_SYMBOL * (s_best[ks] - s_best), CARD_CORNER_MARGIN, CARD_CORNER_MARGIN_MAX)
    ahead = float(c_best[ks]) - c_best + allowed - CARD_CORNER_MARGIN
    c_margin = float(np.delete(ahead, ks).min()) if len(names) > 1 else 2.0
    conf = float(np.clip(min(s_margin / (2 * CARD_SYMBOL_MARGIN), 0.5 + 10 * c_margin), 0, 1))
    # the corner index does not say which way up a card lies (its two corners carry the same index)
    sure = (s_best[ks] >= CARD_MIN_SYMBOL and c_best[ks] >= CARD_MIN_CORNER and s_margin >= CARD_SYMBOL_MARGIN
            and c_margin >= -CARD_CORNER_MARGIN)
    runner = names[int(np.argsort(s_best)[-2])] if len(names) > 1 else None
    kw = dict(corners_mm=corners_mm, symbol=sym, corner=cor)
    if not sure:
        log.debug("card unsure: symbol %s %.2f (+%.2f), its corner %.2f (%+.2f)", names[ks], s_best[ks], s_margin,
                  c_best[ks], c_margin)
        return PileCardReading(None, conf, True, True, names[ks], **kw)  # type: ignore[arg-type]
    return PileCardReading(names[ks], conf, True, False, runner, **kw)  # type: ignore[arg-type]


def load_pile_card_reader(calibration: Calibration, path: str | Path) -> PileCardReader:
    p = Path(path)
    data = read_templates(p, FORMAT, VERSION)
    reader = PileCardReader(calibration)
    try:
        cards = {k: [np.asarray(v, np.float32) for v in vs] for k, vs in data["cards"].items()}
        empty = None if data.get("empty_zone") is None else np.asarray(data["empty_zone"], np.uint8)
    except (KeyError, TypeError, ValueError) as exc:
        raise CardError(f"{p}: damaged card templates ({exc}); enrol the cards again") from None
    want = reader._canon[::-1]
    for k, vs in cards.items():
        for v in vs:
            if v.shape != want:
                raise CardError(f"{p}: a template for '{k}' has shape {v.shape}, expected {want}; enrol the cards again")
    if empty is not None and empty.shape[:2] != reader.zone_size[::-1]:
        raise CardError(f"{p}: the empty zone is {empty.shape[1]}x{empty.shape[0]}, expected "
                        f"{reader.zone_size[0]}x{reader.zone_size[1]}; enrol the cards again")
    return PileCardReader(calibration, cards, empty)


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    """(n, m) rows less their mean, over their length: their dot products are normalised correlations."""
    rows = rows.astype(np.float32) - rows.mean(axis=1, keepdims=True, dtype=np.float32)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)


def _slid(region: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """(templates,) each template's best normalised correlation with `region` slid by up to SLIDE_PX pixels
    each way (the region's edge repeated beyond it): OpenCV's TM_CCOEFF_NORMED, all templates in one product."""
    h, w = region.shape
    padded = np.pad(region, SLIDE_PX, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, (h, w)).reshape(-1, h * w)
    return (_unit_rows(windows) @ templates.T).max(axis=0)


def _prefilter(frame: np.ndarray, H: np.ndarray, out_ppm: float, zone_mm: tuple[float, float, float, float]) -> np.ndarray:
    """`frame` blurred down to `out_ppm` where the picture has more pixels per mm than that (a plain warp
    would sample single noisy pixels); as it is where it has fewer."""
    x0, y0, w, h = zone_mm
    cx, cy = x0 + w / 2, y0 + h / 2
    p = cv2.perspectiveTransform(np.array([[[cx, cy], [cx + 10, cy], [cx, cy + 10]]], np.float64), H)[0]
    ppm = 0.5 * (np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 10
    if ppm <= 1.2 * out_ppm:
        return frame
    return cv2.GaussianBlur(frame, (0, 0), 0.5 * ppm / out_ppm)


def _normalised(img: np.ndarray) -> np.ndarray:
    """An upright card's brightness, locally normalised: the log of grey less its local mean, over its
    local spread (a shadow band, a highlight, a dim lamp change level and contrast, not the print)."""
    grey = np.log(img.astype(np.float32).mean(axis=2) + 8.0)
    return _normalised_again(grey)


def _normalised_again(g: np.ndarray) -> np.ndarray:
    sigma = 4.0 * CANON_PX_PER_MM  # ~4 mm: the strokes of an index, the edges of a symbol
    mean = cv2.GaussianBlur(g, (0, 0), sigma)
    d = g - mean
    spread = np.sqrt(cv2.GaussianBlur(d * d, (0, 0), 2 * sigma)) + 0.02
    return (d / spread).astype(np.float32)


def load_table_card_reader(calibration: Calibration, path: str | Path) -> PileCardReader | CardReader:
    """The card reader a template file was enrolled for: the pile reader (templates from
    `dogtable vision enrol-cards --pile`), or the older whole-card reader, whose files tables already
    hold (they keep working until the cards are enrolled again)."""
    p = Path(path)
    try:
        fmt = json.loads(p.read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        fmt = None  # the loader says what is wrong with the file
    if fmt == FORMAT:
        return load_pile_card_reader(calibration, p)
    return load_card_reader(calibration, p)
