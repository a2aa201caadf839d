"""Reading every field on the photo-like scene (scripts/photo_scene.py), not on our own renderer.

Each test is one of the ways a real camera's light and pieces make a field unknown or read
wrong, on a small seeded picture:

- a saturated piece's dark channel takes in the field around it (JPEG colour at half
  resolution, defocus): a yellow pawn on the cream track is bluer than in its yellow kennel;
- inside a lit green ring a red pawn's colour drifts towards yellow;
- a standing pawn's hard shadow and leaning head reach into the empty field beside it, whose
  pattern then differs from its empty look as a white piece's does; a low lamp's shadow
  reaches farther still, darkening the field smoothly;
- a lacquered piece learned under the lamp's reflection reads darker and redder elsewhere;
- a royal piece is read from its patch's most colourful pixels: in its own lit ring those are
  the ring's light, and a black piece in a red ring is as red as a red one;
- a field's learned lit look may miss in a red ring as much as a white piece does, while the
  field's colour says "empty" plainly.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import engine
from vision.calibration import calibrate, glow_groups, learn_glow
from vision.errors import CalibrationError
from vision.features import classify, dark_lit_path_distance, from_channels, mixed_distances, mixed_prototypes, soft
from vision.reader import BoardReader
from vision.tuning import DARK_LIT_REACH, HIGHLIGHT_SHARES, MIX_SHARES


@pytest.fixture(scope="module")
def photo(script):
    """scripts/photo_scene.py, the scene written apart from our own renderer."""
    return script("photo_scene")


@pytest.fixture(scope="module")
def calibrated(photo, made_once):
    """(setup name, scene seed, glow colours) -> the scene, its calibration and the start position.
    The pictures and the calibration are all of a test's setup time, and some tests share one: each
    is made once in the run (`made_once`, across xdist's workers too). Its arrays are read-only, so a
    test that changed a shared calibration would fail, not pass it on."""
    made: dict[tuple, tuple] = {}

    def get(name: str, seed: int, glow: tuple[tuple[int, int, int], ...] = ()):
        if (name, seed, glow) not in made:
            setup = photo.setup_named(name)
            scene = photo.PhotoScene(setup, seed=seed)
            key = f"photo-{name}-{seed}" + "".join(f"-{r}_{g}_{b}" for r, g, b in glow)
            cal = made_once(key, lambda: _calibrate(photo, scene, glow))
            made[name, seed, glow] = scene, _read_only(cal), photo.start_position(setup)
        return made[name, seed, glow]

    return get


def _calibrate(photo, scene, glow: tuple[tuple[int, int, int], ...]):
    setup = scene.setup
    start = photo.start_position(setup)
    empty = photo.empty_of(start)
    empties = [scene.render(empty, frame_index=i) for i in range(3)]
    starts = [scene.render(start, frame_index=10 + i) for i in range(3)]
    cal = calibrate(empties, setup.segments, setup.board, starts, start.field_occupancy())
    if glow:
        groups = glow_groups(setup.segments)
        cal = learn_glow(cal, [(scene.render(empty, frame_index=20 + k * len(groups) + i, lit={f: c for f in g}),
                                {f: c for f in g}) for k, c in enumerate(glow) for i, g in enumerate(groups)])
    return cal


def _read_only(cal):
    for value in vars(cal).values():
        inner = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else [value]
        for a in inner:  # the arrays, also those in the seats' dict and the tuple of marker templates
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
    return cal


def _reader(calibrated, name: str, seed: int, glow: tuple[tuple[int, int, int], ...] = ()):
    """The setup's scene, a new reader of its calibration (a reader follows the camera from frame to
    frame: each test starts its own), and the start position."""
    scene, cal, start = calibrated(name, seed, glow)
    return scene, BoardReader(cal), start


def _position(start: engine.Position, pieces: list[list[str]]) -> engine.Position:
    pos = engine.parse_position({"variant": start.variant.name, "board": len(pieces), "pieces": pieces})
    return dataclasses.replace(pos, board=start.board)


def _wrong(reading, truth: dict[str, str]) -> list[tuple[str, str, str]]:
    return [(f, lab, truth.get(f, "empty")) for f, lab in zip(reading.field_ids, reading.labels)
            if lab not in ("unknown", truth.get(f, "empty"))]


def test_a_piece_looks_mixed_with_its_field_but_a_dark_piece_not_like_a_shadow() -> None:
    cream = [0.3, -0.16, 0.24]
    yellow = [-0.9, 0.03, -1.97]
    black = [-2.2, 0.0, 0.0]
    protos = np.array([[cream, yellow, black]], np.float32)
    looks = mixed_prototypes(protos)
    assert looks.shape == (1, 3, len(HIGHLIGHT_SHARES) * len(MIX_SHARES), 3)
    # the yellow pawn on the cream track, as the camera sees it: bluer than in its kennel
    on_track = np.array([[-0.4, 0.03, -1.1]], np.float32)
    d = mixed_distances(on_track, looks)[0]
    assert d.argmin() == 1 and d[1] < 0.42 and d[0] - d[1] > 0.5
    # a hard shadow on the cream field: darker, the field's own hue; not the black piece mixed with the field
    shadow = np.array([[-0.7, -0.16, 0.24]], np.float32)
    d = mixed_distances(shadow, looks)[0]
    assert d[2] > 0.3
    assert np.allclose(looks[0, 0], soft(protos[0, 0]), atol=1e-5)  # the empty field's look is its own


def test_yellow_and_red_pieces_on_the_cream_track_are_read(calibrated) -> None:
    scene, reader, start = _reader(calibrated, "lamp-wood-flat", seed=5)
    pos = _position(start, [["T6", "T26", "T47", "K"], ["T16", "K", "K", "K"], ["T33", "T35", "K", "K"],
                            ["T21", "T28", "T54", "H1"]])
    truth = pos.field_occupancy()
    for i in range(2):
        r = reader.read(scene.render(pos, frame_index=100 + i))
        assert not r.covered and r.problem is None
        assert _wrong(r, truth) == []
        on_track = {f: lab for f, lab in zip(r.field_ids, r.labels) if f.startswith("T") and f in truth}
        assert on_track == {f: truth[f] for f in on_track}, on_track


def _red_in_green_ring(calibrated, name: str, seed: int, seat0: list[str], lit_fields: list[str], first: int) -> int:
    """Seat 0's pieces on `seat0`, the rings of `lit_fields` lit green, 3 frames: no wrong field; how many
    of the lit fields read seat 0."""
    scene, reader, start = _reader(calibrated, name, seed=seed)
    pos = _position(start, [seat0, ["T16", "K", "K", "K"], ["T33", "K", "K", "K"], ["T50", "H1", "K", "K"]])
    truth = pos.field_occupancy()
    lit = {f: (0, 255, 0) for f in lit_fields}
    red = 0
    for i in range(3):
        r = reader.read(scene.render(pos, frame_index=first + i, lit=lit), lit=lit)
        assert _wrong(r, truth) == []
        red += sum(lab == "s0" for f, lab in zip(r.field_ids, r.labels) if f in lit_fields)
    return red


def test_a_red_piece_in_a_green_ring_is_never_read_as_yellow(calibrated) -> None:
    red = _red_in_green_ring(calibrated, "royal-two-20-linen", 5, ["H0", "H2", "K", "K"],
                             ["S0H0", "S0H2", "S0K0", "S0K1"], 100)
    assert red >= 6  # most of them are read, not left unknown


def test_empty_fields_beside_standing_pieces_and_white_pieces_on_six_segments(calibrated) -> None:
    scene, reader, start = _reader(calibrated, "6seg-lamp-10", seed=5)
    # white (seat 4) pieces between and beside standing pieces; empty fields beside standing ones
    pos = _position(start, [["T10", "T30", "K", "K"], ["T26", "T70", "K", "K"], ["T12", "K", "K", "K"],
                            ["T50", "T52", "K", "K"], ["T11", "T31", "T51", "H0"], ["T72", "T90", "K", "K"]])
    truth = pos.field_occupancy()
    beside = ["T9", "T13", "T29", "T32", "T49", "T53", "T69", "T71", "T73", "T89", "T91", "T25", "T27"]
    for i in range(2):
        r = reader.read(scene.render(pos, frame_index=100 + i))
        assert not r.covered and r.problem is None
        assert _wrong(r, truth) == []
        labels = dict(zip(r.field_ids, r.labels))
        white = [f for f, who in truth.items() if who == "s4"]
        assert [labels[f] for f in white] == ["s4"] * len(white)
        read_beside = sum(labels[f] == "empty" for f in beside)
        assert read_beside >= len(beside) - 1, {f: labels[f] for f in beside}


def _read_without_a_wrong_field(scene, reader, pos: engine.Position, first: int) -> list[dict[str, str]]:
    """Two frames of `pos` (frame indices `first` and `first` + 300), each read uncovered with no wrong field:
    their labels by field."""
    truth = pos.field_occupancy()
    out = []
    for i in range(2):
        r = reader.read(scene.render(pos, frame_index=first + 300 * i))
        assert not r.covered and r.problem is None
        assert _wrong(r, truth) == []
        out.append(dict(zip(r.field_ids, r.labels)))
    return out


def test_an_empty_field_in_a_white_piece_s_shadow_is_read_by_its_dark_rim(calibrated) -> None:
    # the white piece on S4H0 shades the empty start field T64
    # beyond the part judged apart, unevenly (the shadow's edge crosses it), and T64's colour is as
    # near a white piece's as its own. Its dark printed rim is not brightened, as a white piece
    # standing on it would brighten it: empty, the shadow taken out point by point.
    scene, reader, start = _reader(calibrated, "6seg-lamp-10", seed=5)
    pos = _position(start, [["T7", "T56", "H1", "H2"], ["T73", "H3", "K", "K"], ["T13", "T70", "H2", "K"],
                            ["T55", "T61", "T95", "H0"], ["T17", "T33", "H0", "H3"], ["T2", "T38", "T49", "H0"]])
    truth = pos.field_occupancy()
    for labels in _read_without_a_wrong_field(scene, reader, pos, first=1001):
        assert labels["T64"] == "empty"
        assert [labels[f] for f, who in truth.items() if who == "s4"] == ["s4"] * 4


def test_white_pieces_learned_a_little_apart_from_their_kennel_are_told_by_their_pattern(calibrated) -> None:
    # the lamp's highlight puts the white pieces' learned colour a little apart from their kennel's
    # empty look, yet within the reader's reach of a track field's empty look (T95): by colour alone
    # the white piece there would read "empty"; the seat must be told by its pattern.
    scene, reader, start = _reader(calibrated, "6seg-lamp-10", seed=8)
    assert reader.cal.pale_seats == (4,)
    pos = _position(start, [["T10", "T47", "K", "K"], ["T5", "T31", "T80", "K"], ["T11", "T38", "T39", "T43"],
                            ["T24", "T64", "K", "K"], ["T61", "T88", "T95", "K"], ["T33", "T56", "H0", "K"]])
    for labels in _read_without_a_wrong_field(scene, reader, pos, first=1000):
        assert [labels[f] for f in ("T61", "T88", "T95")] == ["s4"] * 3


def test_a_red_piece_far_from_the_lamp_is_read_though_learned_with_its_highlight() -> None:
    # the seat-0 kennel, where the red pieces' colour is learned,
    # lies under the lamp's reflection; out on the track the same pieces read darker and redder
    empty = [-0.033, -0.144, 0.338]
    protos = np.array([[empty, [-0.992, 1.058, 0.433], [-1.052, -1.177, 1.346], [-1.164, -1.796, -0.498],
                        [-0.689, 0.028, -1.944]]], np.float32)
    looks = mixed_prototypes(protos)
    on_track = np.array([[-1.377, 2.248, 1.05], [-1.474, 2.521, 1.335], [-1.426, 2.223, 1.02]], np.float32)
    d = mixed_distances(on_track, np.repeat(looks, len(on_track), axis=0))
    assert list(classify(d)) == [1, 1, 1]
    # a dark piece is not a red one with its highlight taken out: black, or the empty field in shadow
    dark = np.array([[-2.2, 0.0, 0.0], [-0.7, -0.144, 0.338]], np.float32)
    assert list(classify(mixed_distances(dark, np.repeat(looks, 2, axis=0)))) == [-1, 0]


def test_a_piece_whose_colour_the_camera_bent_far_is_read_while_every_other_class_is_far() -> None:
    # a red pawn bent by tilt and highlight: 0.63 from red, 1.29 from yellow, 1.40 from the empty
    # field; no other tier reads it (too far for the first, too little margin for the others)
    empty, red, yellow = 1.397, 0.629, 1.288
    d = np.array([[empty, red, 1.9, yellow], [0.5, 0.7, 1.9, 1.9], [1.0, 0.5, 1.9, 0.7], [1.5, 0.85, 1.9, 1.9]])
    # read; the empty field is never read from a bent colour; a class only 1.4 times nearer is not read;
    # nor one bent farther than BENT_DISTANCE
    assert list(classify(d)) == [1, -1, -1, -1]
    assert list(classify(d, bent=False)) == [-1, -1, -1, -1]  # not in a lit ring


def test_a_dark_piece_in_a_ring_takes_the_ring_s_colour_whatever_its_brightness() -> None:
    # sRGB pieces of the photo scene, relative to a cream board (0.8): what a dark piece in the table's
    # green ring (0, 255, 60) or amber ring (255, 150, 0) may look like, and what it may not
    def features(srgb: tuple[int, int, int]) -> np.ndarray:
        lin = (np.array(srgb[::-1], np.float64) / 255.0) ** 2.2 / 0.8
        return from_channels(np.log(lin))

    black, green, yellow, red, blue = (features(c) for c in ((34, 33, 38), (24, 124, 52), (236, 186, 16),
                                                               (188, 22, 30), (22, 66, 176)))
    green_ring, amber_ring = np.array([60, 255, 0]) / 255.0, np.array([0, 150, 255]) / 255.0  # BGR
    assert dark_lit_path_distance(black, green, green_ring) < DARK_LIT_REACH
    assert dark_lit_path_distance(black, yellow, amber_ring) < 0.1  # the amber ring runs through yellow
    for colour in (red, blue, yellow):
        assert dark_lit_path_distance(black, colour, green_ring) > 5 * DARK_LIT_REACH
    for colour in (green, blue):
        assert dark_lit_path_distance(black, colour, amber_ring) > 5 * DARK_LIT_REACH


def test_a_pawn_tilted_and_distorted_away_from_its_colour_is_read(calibrated) -> None:
    # lamp-25-distorted: the green pawn on T35, leaning with the tilt, reads about 0.5 from its own
    # colour and 0.8 from yellow's; black-window-22: the red pawn on T57, 0.71 from red and 1.19 from
    # the black dog. Every other class is far: both are read.
    scene, reader, start = _reader(calibrated, "lamp-25-distorted", seed=11)
    pos = _position(start, [["T48", "H2", "K", "K"], ["T53", "H3", "K", "K"], ["T35", "T42", "K", "K"],
                            ["T16", "T36", "T63", "H3"]])
    for labels in _read_without_a_wrong_field(scene, reader, pos, first=1003):
        assert labels["T35"] == "s2"
    scene, reader, start = _reader(calibrated, "black-window-22", seed=11)
    pos = _position(start, [["T11", "T57", "H2", "K"], ["T21", "T29", "T30", "K"], ["T34", "T43", "T47", "K"],
                            ["T3", "T44", "H3", "K"]])
    pos = dataclasses.replace(pos, black_dog=24, disc=0)
    for labels in _read_without_a_wrong_field(scene, reader, pos, first=1000):
        assert labels["T57"] == "s0"


def test_royal_red_pieces_in_their_own_green_ring_are_read(calibrated) -> None:
    # the service lights the rings of the pieces it talks about: a royal piece is read from its
    # patch's most colourful pixels, and in a lit ring those are the ring's light
    red = _red_in_green_ring(calibrated, "royal-lamp-12", 3, ["H0", "H3", "K", "K"], ["S0H0", "S0H3", "S0K0", "S0K1"], 300)
    assert red >= 6  # read only because the ring's tint is told apart from the body


def test_black_royal_pieces_in_a_red_ring_are_never_read_as_red(calibrated) -> None:
    # six segments, royal: seat 5's pieces are black; in a red ring they look as red as seat 0's
    scene, reader, start = _reader(calibrated, "6seg-royal-1080p", seed=3)
    pos = _position(start, [["T10", "K", "K", "K"], ["T26", "K", "K", "K"], ["T42", "K", "K", "K"],
                            ["T58", "K", "K", "K"], ["T74", "K", "K", "K"], ["T34", "T52", "T88", "K"]])
    truth = pos.field_occupancy()
    lit = {f: (255, 0, 0) for f in ("T34", "T52", "T88", "S5K3")}
    for i in range(2):
        r = reader.read(scene.render(pos, frame_index=400 + i, lit=lit), lit=lit)
        assert _wrong(r, truth) == []


def test_empty_fields_in_a_standing_piece_s_shadow_read_empty(calibrated) -> None:
    # two lights, 20 deg, linen: the black (seat 5) pieces' shadows darken the fields beside them
    scene, reader, start = _reader(calibrated, "6seg-two-20-linen", seed=3)
    pos = _position(start, [["T10", "K", "K", "K"], ["T26", "T77", "K", "K"], ["T42", "K", "K", "K"],
                            ["T58", "K", "K", "K"], ["T11", "T40", "K", "K"], ["H0", "H2", "T79", "T81"]])
    truth = pos.field_occupancy()
    beside = ["T80", "S5H1", "T78", "T76", "T82", "S5H3", "T9", "T41", "T39"]
    empty = 0
    for i in range(2):
        r = reader.read(scene.render(pos, frame_index=500 + i))
        assert not r.covered and r.problem is None
        assert _wrong(r, truth) == []
        labels = dict(zip(r.field_ids, r.labels))
        assert [labels[f] for f in ("T11", "T40")] == ["s4", "s4"]  # the white pieces still read
        empty += sum(labels[f] == "empty" for f in beside)
    assert empty == 2 * len(beside)


def test_an_empty_field_in_its_own_red_ring_is_never_read_white(calibrated) -> None:
    # two lights on linen, the rings learned lit: a red ring's lit look missed one empty field's by
    # as much as a white piece does, while the field's colour said "empty" plainly
    scene, reader, start = _reader(calibrated, "6seg-two-20-linen", seed=2, glow=((0, 255, 0), (255, 0, 0)))
    pos = _position(start, [["T10", "K", "K", "K"], ["T26", "K", "K", "K"], ["T42", "K", "K", "K"],
                            ["T58", "K", "K", "K"], ["T11", "T40", "K", "K"], ["T74", "K", "K", "K"]])
    truth = pos.field_occupancy()
    empties = [f for f in reader.cal.field_ids if f not in truth and f.startswith("T")]
    lit = {f: (255, 0, 0) for f in empties[66:72]}  # T75 among them
    r = reader.read(scene.render(pos, frame_index=611, lit=lit), lit=lit)
    assert _wrong(r, truth) == []
    assert r.labels[r.field_ids.index("T11")] == r.labels[r.field_ids.index("T40")] == "s4"


def test_an_empty_field_in_its_own_red_ring_reads_empty_where_its_colour_says_so_plainly(calibrated) -> None:
    # a red ring on the linen board: the empty T5's pattern lies 3-9 noise widths off its learned
    # lit look (a white piece: above 10), between the two bars, while its colour is several times
    # nearer the empty field than the white seat's: read empty. A white piece on T5 in the same
    # light is never read empty.
    scene, reader, start = _reader(calibrated, "6seg-two-20-linen", seed=2, glow=((0, 255, 0), (255, 0, 0)))
    pieces = [["T10", "K", "K", "K"], ["T26", "K", "K", "K"], ["T42", "K", "K", "K"], ["T58", "K", "K", "K"],
              ["T11", "T40", "K", "K"], ["T74", "K", "K", "K"]]
    lit = {f: (255, 0, 0) for f in ("T5", "T11", "T40")}
    for who_on_t5, want in (("K", "empty"), ("T5", "s4")):
        pieces[4][3] = who_on_t5
        pos = _position(start, pieces)
        truth = pos.field_occupancy()
        seen = []
        for i in range(4):
            r = reader.read(scene.render(pos, frame_index=700 + i, lit=lit), lit=lit)
            assert _wrong(r, truth) == []
            seen.append(r.labels[r.field_ids.index("T5")])
        assert seen == [want] * 4


def test_a_highlight_on_one_lacquered_pawn_passes_calibration_and_a_missing_piece_does_not(photo) -> None:
    # the lamp's highlight on the yellow pawn on S3K1 moves its blue channel, a few grey levels, far
    # in raw log units: compared in raw log units an honest start picture would be refused
    setup = photo.setup_named("6seg-lamp-10")
    scene = photo.PhotoScene(setup, seed=6)
    start = photo.start_position(setup)
    empties = [scene.render(photo.empty_of(start), frame_index=i) for i in range(3)]
    starts = [scene.render(start, frame_index=50 + i) for i in range(3)]
    cal = calibrate(empties, setup.segments, setup.board, starts, start.field_occupancy())
    assert sorted(cal.seat_features) == [0, 1, 2, 3, 4, 5]
    # the same light with one yellow pawn taken out of its kennel: still refused, naming the field
    pieces = [["K"] * 4 for _ in range(6)]
    pieces[3][0] = "T40"
    shown = _position(start, pieces)
    missing = sorted(set(start.field_occupancy()) - set(shown.field_occupancy()) - {"T40"})
    assert len(missing) == 1 and missing[0].startswith("S3K")
    starts = [scene.render(shown, frame_index=50 + i) for i in range(3)]
    with pytest.raises(CalibrationError, match=rf"piece on {missing[0]} does not look like the other seat 3's .*empty field"):
        calibrate(empties, setup.segments, setup.board, starts, start.field_occupancy())


def _lit_reads(calibrated, name: str, seed: int, pieces: list[list[str]], lit: dict[str, tuple[int, int, int]],
               frames: int, first: int) -> list[dict[str, str]]:
    """`frames` pictures of `pieces` with the rings of `lit` lit, each read with no wrong field: the lit
    fields' labels."""
    scene, reader, start = _reader(calibrated, name, seed=seed)
    pos = _position(start, pieces)
    truth = pos.field_occupancy()
    out = []
    for i in range(frames):
        r = reader.read(scene.render(pos, frame_index=first + i, lit=lit), lit=lit)
        assert _wrong(r, truth) == []
        labels = dict(zip(r.field_ids, r.labels))
        out.append({f: labels[f] for f in lit})
    return out


def test_royal_red_pieces_in_green_rings_are_read_by_their_colour_without_the_tint(calibrated) -> None:
    # a red piece in its own green ring is nearest yellow
    # in the usual reading; read again without the ring's tint it is plainly red. Yellow pieces in green
    # rings beside them read yellow both ways and must stay yellow.
    lit = {f: (0, 255, 0) for f in ("S0H1", "S0H3", "S0K0", "S0K1", "S3H0", "T40", "S3K0", "S3K1")}
    reads = _lit_reads(calibrated, "royal-lamp-12", 6, [["H1", "H3", "K", "K"], ["T16", "K", "K", "K"],
                                                    ["T33", "K", "K", "K"], ["H0", "T40", "K", "K"]], lit, 3, 200)
    red = sum(labels[f] == "s0" for labels in reads for f in ("S0H1", "S0H3", "S0K0", "S0K1"))
    assert red >= 8  # of 12: the usual reading alone reads about a third of them
    assert all(labels[f] == "s3" for labels in reads for f in ("S3H0", "T40", "S3K0", "S3K1"))


def test_black_royal_pieces_in_red_and_green_rings_are_not_read_as_a_colour(calibrated) -> None:
    # what the tint-free reading must not do: a black piece takes a coloured ring's colour with or
    # without the tint (six segments, royal: seat 5 black, seat 3 yellow, seat 0 red)
    lit = {"S5H1": (255, 0, 0), "T34": (255, 0, 0), "T52": (0, 255, 0), "S5K0": (0, 255, 0),
           "T60": (0, 255, 0), "S3H2": (0, 255, 0), "S0H0": (0, 255, 0), "S0K0": (0, 255, 0)}
    pieces = [["H0", "K", "K", "K"], ["T26", "K", "K", "K"], ["T42", "K", "K", "K"], ["T60", "H2", "K", "K"],
              ["T74", "K", "K", "K"], ["T34", "T52", "H1", "K"]]
    reads = _lit_reads(calibrated, "6seg-royal-1080p", 3, pieces, lit, 2, 200)
    assert all(labels[f] in ("s5", "unknown") for labels in reads for f in ("S5H1", "T34", "T52", "S5K0"))
    assert all(labels[f] == "s3" for labels in reads for f in ("T60", "S3H2"))


def test_a_white_piece_between_two_standing_pawns_in_dim_light_is_never_read_empty(calibrated) -> None:
    # a white pawn on the cream track (T6) with pawns standing on both sides (T5, T7) in a dim, noisy
    # frame: its colour leans to the empty field's and the part of its pattern out of the neighbours'
    # reach differs from the empty look by less than the piece bar. The dark print it covers there is
    # brightened, as a shadow never brightens it: not empty.
    scene, reader, start = _reader(calibrated, "dim-6seg-lamp", seed=1)
    pos = _position(start, [["H0", "H3", "K", "T67"], ["K", "T18", "T4", "T5"], ["H0", "H1", "H3", "T94"],
                            ["H0", "K", "T17", "T7"], ["H1", "K", "T11", "T6"], ["K", "T25", "T28", "T77"]])
    truth = pos.field_occupancy()
    for i in range(2):
        r = reader.read(scene.render(pos, frame_index=1001 + 300 * i))
        assert not r.covered and r.problem is None
        assert _wrong(r, truth) == []
        assert dict(zip(r.field_ids, r.labels))["T6"] in ("s4", "unknown")


def test_a_white_piece_beside_a_standing_pawn_whose_colour_leans_white_is_never_read_empty(calibrated) -> None:
    # a white pawn on the cream track (T43) beside a standing pawn (T44) in a dim, noisy frame: too
    # little of its dark print is left out of the neighbour's reach to weigh, and those kept points
    # differ from the empty look by less than the piece bar; but its whole pattern is past the bar and
    # its colour leans to white rather than to the empty field's, which no shadow does: not empty
    scene, reader, start = _reader(calibrated, "dim-6seg-lamp", seed=123)
    pos = _position(start, [["T6", "T13", "T44", "T49"], ["T63", "T82", "T85", "K"], ["T65", "H3", "K", "K"],
                            ["T5", "T20", "T67", "T73"], ["T43", "T71", "K", "K"], ["T32", "T76", "T89", "K"]])
    truth = pos.field_occupancy()
    for frame_index in (1000, 1005):
        r = reader.read(scene.render(pos, frame_index=frame_index))
        assert not r.covered and r.problem is None
        assert _wrong(r, truth) == []
        assert dict(zip(r.field_ids, r.labels))["T43"] in ("s4", "unknown")


def test_an_empty_white_kennel_hole_whose_pattern_says_empty_plainly_is_read_empty(calibrated) -> None:
    # on the royal 6-segment board at 1080p the white seat's kennel hole S4K1 differs from a white
    # piece in colour by little more than the light model's error: its t swings from 0 to 1 from frame
    # to frame while its pattern reads it empty far below the empty bar, and t does not veto that
    scene, reader, start = _reader(calibrated, "6seg-royal-1080p", seed=1)
    base = [["T17", "T45", "T67", "K"], ["T18", "H2", "K", "K"], ["T24", "T50", "H3", "K"], ["T6", "T71", "T94", "K"],
            ["T20", "T84", "H3", "K"], ["T35", "T58", "K", "K"]]
    pos = _position(start, base)
    truth = pos.field_occupancy()
    for frame_index in (1018, 1118):
        r = reader.read(scene.render(pos, frame_index=frame_index))
        assert _wrong(r, truth) == []
        assert dict(zip(r.field_ids, r.labels))["S4K1"] == "empty"
    # ... and a white piece standing there is still not read empty
    pos = _position(start, base[:4] + [["T20", "T84", "K", "K"]] + base[5:])
    assert "S4K1" in pos.field_occupancy()
    r = reader.read(scene.render(pos, frame_index=1018))
    assert _wrong(r, pos.field_occupancy()) == []


def test_a_piece_on_its_own_kennel_is_never_read_as_another_seat_s(calibrated) -> None:
    # in dim light a seat-5 pawn in its kennel (S5K2) can look nearer seat 2's colour than its own;
    # a kennel holds its own seat's pieces only, so it is not read as seat 2's
    scene, reader, start = _reader(calibrated, "dim-6seg-lamp", seed=3)
    pos = _position(start, [["T22", "T24", "T61", "T78"], ["H0", "H1", "T2", "T47"], ["K", "K", "T31", "T52"],
                            ["K", "K", "T0", "T43"], ["K", "K", "T20", "T76"], ["K", "K", "K", "T49"]])
    r = reader.read(scene.render(pos, frame_index=1006))
    assert _wrong(r, pos.field_occupancy()) == []
    assert dict(zip(r.field_ids, r.labels))["S5K2"] in ("s5", "unknown")


def test_a_yellow_pawn_on_its_own_home_field_is_read_where_its_colour_names_it(calibrated) -> None:
    # the field around a yellow pawn pales its colour: on its yellow home field t comes out at about
    # 0.6 with a noise of 0.05, under the margin's floor, while its colour names seat 3 plainly
    scene, reader, start = _reader(calibrated, "lamp-wood-flat", seed=1)
    for pieces, first in (([["H0", "K", "T38", "T47"], ["H2", "K", "K", "T10"], ["K", "T12", "T3", "T34"],
                            ["H3", "K", "T26", "T6"]], 1000),
                          ([["K", "K", "K", "T34"], ["H2", "T14", "T21", "T36"], ["K", "T32", "T48", "T51"],
                            ["H3", "K", "K", "K"]], 1018)):
        for labels in _read_without_a_wrong_field(scene, reader, _position(start, pieces), first=first):
            assert labels["S3H3"] == "s3"
