"""Learning each field's empty look and each seat's colour from a picture of the start position.

The stage of calibrating (vision.calibration) after the board is placed: the height at which a
standing piece's body is sampled (`choose_sample_height`), then each seat's (and the dog's)
colour from the pieces in their kennels, checked piece by piece; a seat whose pieces have
nearly the empty field's colour (white on cream) is learned by the field's pattern instead,
against the empty board's own.
"""
from __future__ import annotations

import logging
from dataclasses import replace
import numpy as np

import engine
from vision.calibration_record import Calibration
from vision.camera import Lens, raised_points_mm
from vision.errors import CalibrationError
from vision.features import distances, soft
from vision.markers import project
from vision.pale import structure_thresholds
from vision.placement import check_frame
from vision.reader import BoardReader
from vision.tuning import (
    DEFAULT_DOG, MAX_DISTANCE, MIN_MARGIN, PALE_SEAT_DISTANCE, SAMPLE_HEIGHT_GAIN, SAMPLE_HEIGHTS_MM,
)

log = logging.getLogger(__name__)


def default_start(variant: str, segments: int) -> dict[str, str]:
    """The start position's field occupancy: every seat's pieces in its kennel."""
    v = engine.get_variant(variant)
    pieces = [["K"] * v.pieces for _ in range(segments)]
    return engine.parse_position({"variant": variant, "board": segments, "pieces": pieces}).field_occupancy()


def _sample_points(cal: Calibration, lens: Lens | None, h: float) -> np.ndarray | None:
    """Board points whose picture under the homography is where a piece's body `h` mm up appears."""
    if lens is not None:
        return project(np.linalg.inv(cal.homography), lens.pixels(cal.centres_mm, h))
    return raised_points_mm(cal.homography, cal.resolution, cal.centres_mm, h) if h else None


def choose_sample_height(cal: Calibration, empty: np.ndarray, starts: list[np.ndarray],
                         occupancy: dict[str, str], lens: Lens | None = None) -> Calibration:
    """Learn where pieces' bodies appear (see vision/camera.py) from the start pictures.

    With a fitted `lens`, the points also follow its distortion, which the homography
    (a plane's straight-line model) leaves up to a pixel or two off at the board's corners.
    """
    index = {f: i for i, f in enumerate(cal.field_ids)}
    groups: dict[str, list[int]] = {}
    for fid, who in occupancy.items():
        if fid in index:
            groups.setdefault(who, []).append(index[fid])
    if not groups:
        return cal
    rows_all = [r for rows in groups.values() for r in rows]
    pale_rows = None
    best = None
    for h in SAMPLE_HEIGHTS_MM:
        pts = _sample_points(cal, lens, h)
        probe = replace(cal, sample_height_mm=h, sample_shift_mm=None if pts is None else pts - cal.centres_mm)
        reader = BoardReader(probe)
        empty_f = reader.measure(empty).features
        ms = [reader.measure(check_frame(f, "start-position image")) for f in starts]
        ms = [m for m in ms if not m.covered and not m.problem] or ms
        feats = np.median(np.stack([m.features for m in ms]), axis=0)
        apart = np.array([distances(feats[r][None, :], empty_f[r][None, :])[0, 0] for r in rows_all])
        if pale_rows is None:  # pale seats (white on cream) are told apart by their pattern: not judged here
            pale_rows = apart < 2 * MIN_MARGIN
        score = float(np.median(apart[~pale_rows])) if (~pale_rows).any() else 0.0
        log.debug("sample height %s mm: pieces %.3f from their empty fields", h, score)
        if best is None or score > best[0] / SAMPLE_HEIGHT_GAIN:
            best = (score, probe, empty_f)
    assert best is not None
    _, probe, empty_f = best
    report = dict(probe.report, sample_height_mm=probe.sample_height_mm)
    return replace(probe, empty_features=empty_f.astype(np.float32), report=report)


def learn_colours(cal: Calibration, start: np.ndarray | list[np.ndarray], occupancy: dict[str, str],
                  empty: np.ndarray | None = None) -> Calibration:
    """Learn each seat's (and the dog's) colour from a frame whose occupancy is known.

    A seat whose pieces have nearly the empty field's colour (white pieces on a cream
    board) is accepted if `empty` (the empty-board frame) is given and the pieces clearly
    change the field's pattern (their outline, head and shadow) against the empty field's.
    """
    starts = [check_frame(f, "start-position image") for f in ([start] if isinstance(start, np.ndarray) else start)]
    if not starts:
        raise CalibrationError("no start-position image given")
    start = starts[0]
    if any(f.shape[1] != cal.resolution[0] or f.shape[0] != cal.resolution[1] for f in starts):
        raise CalibrationError(
            f"the start-position image is {start.shape[1]}x{start.shape[0]} but the empty-board image was "
            f"{cal.resolution[0]}x{cal.resolution[1]}: use the same camera setting for both"
        )
    reader = BoardReader(cal)
    readings = [reader.measure(f) for f in starts]
    problems = [m.problem for m in readings if m.problem]
    if len(problems) == len(readings):
        raise CalibrationError(f"start-position image: {problems[0]}")
    usable = [(f, m) for f, m in zip(starts, readings) if not m.problem and not m.covered]
    if not usable:
        raise CalibrationError("something covers the board in the start-position image: take it again with hands off the board")
    starts = [f for f, _ in usable]
    # each picture's features come from its own light fit; their median per field is robust to
    # one noisy picture, and to the exposure drifting between pictures
    features = np.median(np.stack([m.features for _, m in usable]), axis=0).astype(np.float32)
    index = {f: i for i, f in enumerate(cal.field_ids)}
    groups: dict[str, list[int]] = {}
    for fid, who in occupancy.items():
        if fid not in index:
            raise CalibrationError(f"the start position has a piece on {fid}, which the board geometry does not have")
        groups.setdefault(who, []).append(index[fid])
    protos: dict[str, np.ndarray] = {}
    pale: dict[str, list[int]] = {}
    for who, rows in sorted(groups.items()):
        feats = features[rows]
        protos[who] = np.median(feats, axis=0).astype(np.float32)
    for who, rows in sorted(groups.items()):
        _check_group(cal, features, who, rows, protos)
    for who, rows in sorted(groups.items()):
        proto = protos[who]
        # A piece must differ clearly from the empty field it stands on in colour, or else in
        # pattern (checked below, once every colour is known). Clearly is more than the reader's
        # reach for a class (PALE_SEAT_DISTANCE: a white piece under a lamp's highlight learns a
        # colour near both its kennel's and a track field's empty look, and by colour alone it
        # would be read "empty"; coloured and black seats stay far beyond that reach).
        empty_d = distances(proto[None, :], cal.empty_features[rows])[0]
        if empty_d.min() < PALE_SEAT_DISTANCE:
            pale[who] = rows
    seats = {int(who[1:]): f for who, f in protos.items() if who.startswith("s")}
    if not seats:
        raise CalibrationError("the start position has no pieces to learn colours from")
    if len(pale) == len(protos):
        raise CalibrationError("every piece looks like the empty fields: are the pieces placed, and is the light good enough?")
    names = [n for n in protos if n not in pale]  # pale seats may look alike: the pattern tells piece from field
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if distances(protos[a][None, :], protos[b][None, :])[0, 0] < 2 * MIN_MARGIN:
                raise CalibrationError(f"{_name(a)} and {_name(b)} pieces look alike to the camera: better light may help")
    pale_seats: tuple[int, ...] = ()
    pattern = None
    if pale:
        rows0 = next(iter(pale.values()))
        if empty is None or "dog" in pale:
            who = next(iter(pale))
            raise CalibrationError(
                f"{_name(who)} pieces look too much like the empty field {cal.field_ids[rows0[0]]}: "
                "are they placed, and is the light good enough?"
            )
        pattern = reader.structure_pattern(check_frame(empty, "empty-board image"))
        probe = replace(cal, seat_features=seats, empty_pattern=pattern, pale_seats=tuple(int(w[1:]) for w in pale))
        s = np.median(np.stack([BoardReader(probe).structure_distance(f) for f in starts]), axis=0)
        occupied = np.zeros(len(cal.field_ids), bool)
        for rows in groups.values():
            occupied[rows] = True
        _, high = structure_thresholds(s[~occupied])
        for who, rows in pale.items():
            weak = [r for r in rows if s[r] <= high]
            if weak:
                raise CalibrationError(
                    f"{_name(who)} pieces look too much like the empty field {cal.field_ids[weak[0]]}, even in "
                    "detail: is the picture sharp and the light good enough?"
                )
        pale_seats = probe.pale_seats
    report = dict(cal.report, pale_seats=list(pale_seats))
    dog = protos.get("dog")
    return replace(
        cal,
        seat_features=seats,
        dog_feature=dog if dog is not None else np.array(DEFAULT_DOG, np.float32),
        dog_learned=dog is not None,
        pale_seats=pale_seats,
        empty_pattern=pattern,
        report=report,
    )


def _check_group(cal: Calibration, features: np.ndarray, who: str, rows: list[int],
                 protos: dict[str, np.ndarray]) -> None:
    """Refuse a start picture in which one of `who`'s pieces does not look like the others.

    Noise alone must not refuse: the dark channel of a saturated colour (the blue of a yellow
    piece) is a few grey levels, noisy in log units, and a shadow band darkens a whole row. So
    a piece is refused only if it is far from its own group's colour AND not clearly nearer to
    it than to anything else it could be (the empty field it stands on, another seat's or the
    dog's colour), or wildly off and not even twice as near its own as anything else. The
    message names the field and what it looks like.
    Colours are compared as the reader compares them (`soft`): in raw log units the lamp's
    highlight on one lacquered yellow pawn moves its blue channel, only a few grey levels, far
    from the other yellow pawns' (a dark channel's log swings), and an honest start picture
    would be refused; compared as the reader does it is a modest difference.
    """
    seen = soft(features)
    own = distances(seen[rows], soft(protos[who])[None, :])[:, 0]
    for k, r in enumerate(rows):
        if own[k] <= MAX_DISTANCE * 0.8:
            continue
        others = {"an empty field": float(distances(seen[r][None, :], soft(cal.empty_features[r])[None, :])[0, 0])}
        others.update({f"{_name(o)} pieces": float(distances(seen[r][None, :], soft(p)[None, :])[0, 0])
                       for o, p in protos.items() if o != who})
        like, d_like = min(others.items(), key=lambda kv: kv[1])
        if d_like - own[k] < MIN_MARGIN or (own[k] > 2.5 * MAX_DISTANCE and d_like < 2 * own[k]):
            raise CalibrationError(
                f"the piece on {cal.field_ids[r]} does not look like the other {_name(who)} pieces "
                f"(colour distance {own[k]:.2f}; it looks more like {like}, {d_like:.2f}): is the start position "
                "set up as expected, with nothing covering or shading it?"
            )


def _name(who: str) -> str:
    return "the black dog's" if who == "dog" else f"seat {who[1:]}'s"

