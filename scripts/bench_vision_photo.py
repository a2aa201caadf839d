"""Vision benchmark on the photo-like scene (scripts/photo_scene.py), not on our own simulated table.

Per setup (4- and 6-segment boards, royal and black, lamp / two lights / window, tilt 0-25 deg,
barrel distortion, JPEG 60-85, 720p and 1080p): calibration accepted (first try, and of N
fresh tries, each from new frames), per-field accuracy, wrong reads, unknowns, boards exact
in a single frame, false covers on hand-free (JPEG) frames, hands caught, frames to settle
after a move, and ms per frame on one core. A third of the boards are read with a few rings lit.
`served` counts boards exact as the service commits them (companion/devices.py `process`): still
frames at the camera's 15 a second, each read alone and then as the mean of the still frames so far
tells it (vision/still_stack.py: the mean is read at 4, 8 and 16 frames), a lit board's unknowns beside
its rings from up to two frames with the LEDs blanked (`fill_unknown`), and the settle filter, which
waits until every field is read (for at most 24 frames here, 1.6 s); `fr` is the frames that took, and
`ms/fr` the CPU per frame of reading them, the means' readings included. `--single-frames` serves them
without the mean (each frame alone, with the settle filter). Seeded; the scene's setups and seeds are fixed.

`--rings`: the lit-ring stress instead. Every occupied field's ring and three empty ones are lit,
each in one of the table's own steady ring colours (hardware/leds.py: amber for a piece that may
move, light blue for where it may go, green for a confirmed play), and told to the reader as the
service tells it; per setup: lit fields read right, unknown, wrong (what was read for what, in
which ring), and wrong reads among the unlit fields of those frames. Then, as the service does, a
frame whose only unknown fields are the LEDs' doing (`unknown_only_near_lit`) is read once more
with the LEDs blanked and its unknown fields filled from it (`fill_unknown`), and a second time if
some stay unknown: the lit fields right, unknown and wrong after that, and how many frames needed it.
`--players-colours` lights the rings in the pieces' colours, as a play made at another table is
shown; those fields are always read from the blanked frame, as the service reads them.

    .venv/bin/python scripts/bench_vision_photo.py            # full: 16 setups (~10 min of CPU)
    .venv/bin/python scripts/bench_vision_photo.py --quick    # fewer frames per setup
    .venv/bin/python scripts/bench_vision_photo.py --only 6seg
    .venv/bin/python scripts/bench_vision_photo.py --rings --only royal --seed 6   # 30 frames a setup
    .venv/bin/python scripts/bench_vision_photo.py --rings --quick --players-colours   # rings in the pieces' colours
    .venv/bin/python scripts/bench_vision_photo.py --evening --seed 101     # the second scene's boards
    .venv/bin/python scripts/bench_vision_photo.py --cards --seed 101       # cards off a pile, second scene

`--evening`: boards of the second, independently written scene (scripts/photo_scene_evening.py: a
warm bulb in a dim room, a small camera at high gain, drilled holes in painted seat patches);
`--cards`: the played card on a pile there (turned, either way up, bent, shadow bands, highlights,
fingers), enrolled from one photo per card, read from a crop of the zone at the resolution the
table's camera takes it: the service asks the Pi camera for the zone at the sensor's full
resolution (hardware/camera.py `read_zone`, companion/devices.py `_read_pile`), 4608 px across on
the Camera Module 3, so by default the crop is 4608 / the board picture's width times its
resolution (3.6 for a 720p board, 2.4 for the 1080p setup). `--card-scale S` fixes it at S times
instead (e.g. 2.56: a Camera Module 2's 3280 px across a 720p board; 1.0: a webcam, which only has
the board's own picture). Seeds 1-3 were used while
tuning; seeds 101 and above are held out. Card times are also printed as a multiple of a fixed
pure-Python reference loop (as scripts/bench_engine.py does), which compares across machines.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

# one core, as OpenCV is told below: numpy's BLAS would spread a product over threads (and the CPU
# time measured counts them all); set before numpy is first imported
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import engine  # noqa: E402
from hardware.leds import PLAYED, PLAYER_RGB, SOURCE, TARGET  # noqa: E402
from photo_scene import SETUPS, PhotoHand, PhotoScene, Setup, empty_of, start_position  # noqa: E402
import photo_scene_evening as evening  # noqa: E402
from vision.own_colour import MORE_LIGHT  # noqa: E402
from vision.pile_cards import PileCardReader  # noqa: E402
from vision.calibration import Calibration, calibrate, glow_groups, learn_glow  # noqa: E402
from vision.errors import CalibrationError  # noqa: E402
from vision.reader import BoardReader, fill_unknown, unread  # noqa: E402
from vision.settle import SettleFilter  # noqa: E402
from vision.still_stack import StillStack  # noqa: E402

SCENE_SEED = 1
# pictures of the empty board and of the start position per calibration try: as many as the table takes
# (`dogtable vision calibrate --camera`, companion/calibration_shots.py STILL_SHOTS)
CAL_FRAMES = 3
LED_COLOURS = ((0, 255, 0), (255, 0, 0))  # the ring colours the boards below are read in
# The table's steady ring colours (its red flash and violet blink are never read: the reader is told
# only what stays lit), by the names `--rings` prints.
RING_COLOURS = {"amber": SOURCE, "light blue": TARGET, "green": PLAYED}
# `--players-colours`: rings lit in the pieces' own colours instead, as a play made at another table
# is shown (hardware.leds.PLAYER_RGB; black as violet, since an LED cannot be black). A dark piece in
# a red ring looks red, so the service never takes those fields from a lit frame: they are read
# unknown (`unread`) and taken from the frame with the LEDs blanked; the calibration learned the
# table's colours only, as `dogtable vision calibrate` does. `--trust-lit` reads them from the lit
# frame instead, to show why.
PLAYERS_COLOURS = {("violet" if n == "black" else n): c for n, c in PLAYER_RGB.items()}
RING_EMPTY = 3  # empty fields lit per frame besides every occupied one
# Frames with the LEDs blanked the service takes while fields near lit rings stay unknown: the first
# at once, a second half a second later (companion.devices.REBLANK_FRAMES) for fields the first
# could not tell either.
BLANKED_LOOKS = 2


def random_position(rng: np.random.Generator, base: engine.Position) -> engine.Position:
    """Any placement of every seat's pieces (legality does not matter to a camera)."""
    n = base.variant.pieces
    track = base.board.track_length
    free = list(range(track))
    rng.shuffle(free)
    pieces = []
    for _ in base.pieces:
        locs: list[int] = []
        homes = list(rng.permutation(n))
        for _ in range(n):
            u = rng.random()
            if u < 0.3:
                locs.append(engine.KENNEL)
            elif u < 0.45 and homes:
                locs.append(engine.HOME + int(homes.pop()))
            else:
                locs.append(free.pop())
        pieces.append(tuple(sorted(locs)))
    pos = dataclasses.replace(base, pieces=tuple(pieces))
    if base.board.disc_fields:
        pos = dataclasses.replace(pos, black_dog=free.pop(), disc=int(rng.integers(4)))
    return pos


def calibration_start(setup: Setup) -> engine.Position:
    """The start picture's position; on Black DOG boards the dog stands on T5 so that its colour is learned."""
    start = start_position(setup)
    return dataclasses.replace(start, black_dog=5) if setup.board == "black" else start


def calibrate_try(scene: PhotoScene, k: int, frames: int):
    start = calibration_start(scene.setup)
    empties = [scene.render(empty_of(start), frame_index=100 * k + i) for i in range(frames)]
    starts = [scene.render(start, frame_index=100 * k + 50 + i) for i in range(frames)]
    multi = getattr(calibrate, "multi_frame", False)
    return calibrate(empties if multi else empties[0], scene.setup.segments, scene.setup.board,
                     starts if multi else starts[0], start.field_occupancy())


def with_rings_learned(scene: PhotoScene, cal: Calibration, colours) -> Calibration:
    """`cal` with the lit rings' looks learned, on boards with a pale seat, as `dogtable vision calibrate
    --camera` does: the rings lit group by group over the empty board, in each LED colour the reading
    meets, so that fields next to lit rings can be read (white pieces)."""
    if not cal.pale_seats:
        return cal
    empty = empty_of(calibration_start(scene.setup))
    groups = glow_groups(scene.setup.segments)
    return learn_glow(cal, [(scene.render(empty, frame_index=700 + k * len(groups) + i, lit={f: c for f in g}),
                             {f: c for f in g}) for k, c in enumerate(colours) for i, g in enumerate(groups)])


def score(reader: BoardReader, pos: engine.Position, labels: tuple[str, ...]) -> tuple[int, int, int]:
    truth = pos.field_occupancy()
    right = wrong = unknown = 0
    for f, lab in zip(reader.cal.field_ids, labels):
        t = truth.get(f, "empty")
        right += lab == t
        unknown += lab == "unknown"
        wrong += lab not in (t, "unknown")
    return right, wrong, unknown


def bench_setup(setup: Setup, tries: int, reads: int, hands: int, settles: int) -> dict:
    scene = PhotoScene(setup, seed=SCENE_SEED)
    row: dict = {"name": setup.name}
    cal = None
    accepted = 0
    first = False
    errors = []
    for k in range(tries):
        try:
            c = calibrate_try(scene, k, CAL_FRAMES)
        except CalibrationError as e:
            errors.append(str(e))
            continue
        accepted += 1
        first = first or k == 0
        cal = cal or c
    row.update(cal_first=first, cal_ok=accepted, cal_n=tries, errors=errors)
    if cal is None:
        return row
    reader = BoardReader(with_rings_learned(scene, cal, LED_COLOURS))
    base = start_position(setup)
    rng = np.random.default_rng([SCENE_SEED, 9, len(setup.name)])
    right = wrong = unknown = total = exact = false_cover = 0
    served_exact = served_wrong = blanked = served_stack_reads = 0
    served_frames: list[int] = []
    served_cpu = 0.0
    cpu = 0.0
    timed = 0
    for i in range(reads):
        pos = random_position(rng, base)
        occ = pos.field_occupancy()
        lit = None
        if i % 3 == 2:  # the service lights a few rings (told to the reader)
            lit = {f: (0, 255, 0) for f in sorted(occ)[:2]} | {"T5": (255, 0, 0)}
        frame = scene.render(pos, frame_index=1000 + i, lit=lit)
        t0 = time.process_time()
        r = reader.read(frame, disc=pos.disc if setup.board == "black" else None, lit=lit)
        cpu += time.process_time() - t0
        served_cpu += time.process_time() - t0
        timed += 1
        if r.covered:
            false_cover += 1
        a, b, c = score(reader, pos, r.labels)
        right, wrong, unknown, total = right + a, wrong + b, unknown + c, total + len(r.labels)
        exact += (b == 0 and c == 0 and not r.covered and r.problem is None)
        board, frames, looks, stack_reads, stack_cpu = served_board(
            reader, lambda k: scene.render(pos, frame_index=20000 + 100 * i + k, lit=lit),
            lambda look: scene.render(pos, frame_index=7000 + 2000 * look + i), lit,
            pos.disc if setup.board == "black" else None, frame, r)
        blanked += looks > 0
        served_frames.append(frames)
        served_stack_reads += stack_reads
        served_cpu += stack_cpu
        if board is not None:
            sb = sum(board.get(f, "empty") != occ.get(f, "empty") for f in reader.cal.field_ids)
            served_exact += sb == 0
            served_wrong += sb
        for f, lab in zip(reader.cal.field_ids, r.labels):
            t = occ.get(f, "empty")
            if lab != t:  # per (what stands there, kind of field, lit or not): where the unknowns and wrongs are
                key = (t, "".join(ch for ch in f if not ch.isdigit()) + ("*" if lit and f in lit else ""),
                       "unknown" if lab == "unknown" else "wrong")
                row.setdefault("misses", {}).setdefault(key, 0)
                row["misses"][key] += 1
        if b:
            bad = [(f, lab, occ.get(f, "empty")) for f, lab in zip(reader.cal.field_ids, r.labels)
                   if lab not in ("unknown", occ.get(f, "empty"))]
            row.setdefault("wrong_examples", []).extend(bad[:3])
    caught = 0
    for i in range(hands):
        pos = random_position(rng, base)
        target = str(rng.choice(list(engine.load_geometry(setup.segments).centres)))
        hand = PhotoHand(target=target, edge=str(rng.choice(["bottom", "left", "top", "right"])), skin=i % 4,
                         height_mm=float(rng.uniform(40, 110)))
        r = reader.read(scene.render(pos, frame_index=3000 + i, hand=hand),
                        disc=pos.disc if setup.board == "black" else None)
        caught += r.covered
    # settle: a still board, a hand moves a piece, the hand leaves; frames until the true board commits
    settle_frames = []
    settle_wrong = 0
    for g in range(settles):
        filt = SettleFilter()
        stack = StillStack(reader) if STACKED else None

        def look(frame, disc):  # as the service reads a frame: alone, then with the still frames' mean
            r = reader.read(frame, disc=disc)
            if stack is None:
                return r
            r = stack.read(frame, r, disc=disc)
            filt.forget(stack.doubted)
            return r
        pos = random_position(rng, base)
        filt.expect(pos.field_occupancy())  # the service knows the game's position before the move
        t, k = 0.0, 5000 + 100 * g
        dt = 1 / 15
        for _ in range(6):
            filt.feed(look(scene.render(pos, frame_index=k), pos.disc if setup.board == "black" else None), t)
            t, k = t + dt, k + 1
        # move one piece of the first seat with a track piece to a free track field
        used = {loc for p in pos.pieces for loc in (p or ()) if loc < engine.HOME} | (
            {pos.black_dog} if pos.black_dog is not None else set())
        free = [x for x in range(pos.board.track_length) if x not in used]
        s = next(s for s, locs in enumerate(pos.pieces) if locs)
        locs = list(pos.pieces[s])
        locs[0] = int(rng.choice(free))
        new = dataclasses.replace(pos, pieces=tuple(tuple(sorted(locs)) if i == s else p for i, p in enumerate(pos.pieces)))
        target = f"T{locs[0]}"
        for j in range(4):
            hand = PhotoHand(target=target, edge="bottom", height_mm=60.0 - 10 * j, skin=g % 4)
            st = filt.feed(look(scene.render(new if j >= 2 else pos, frame_index=k, hand=hand),
                                pos.disc if setup.board == "black" else None), t)
            settle_wrong += st.committed and st.board != (new if j >= 2 else pos).field_occupancy()
            t, k = t + dt, k + 1
        truth = new.field_occupancy()
        took = None
        for j in range(12):
            st = filt.feed(look(scene.render(new, frame_index=k), new.disc if setup.board == "black" else None), t)
            t, k = t + dt, k + 1
            if st.committed and st.board != truth:
                settle_wrong += 1
            if filt.committed_board == truth and took is None:
                took = j + 1
                break
        settle_frames.append(took)
    row.update(right=right, wrong=wrong, unknown=unknown, total=total, exact=exact, reads=reads,
               served_exact=served_exact, served_wrong=served_wrong, blanked=blanked,
               served_frames=served_frames, served_stack_reads=served_stack_reads,
               served_ms=1000 * served_cpu / max(sum(served_frames), 1),
               false_cover=false_cover, caught=caught, hands=hands, settle=settle_frames, settle_wrong=settle_wrong,
               ms=1000 * cpu / max(timed, 1))
    return row


SERVED_FRAMES = 24  # 1.6 s of a still board at the camera's 15 frames a second
STACKED = True  # `--single-frames`: the service as it was before it read the mean of still frames


def served_board(reader: BoardReader, render, dark_frame, lit, disc, first_frame, first):
    """The board as the service commits it (companion/devices.py `process`): still frames of one board
    (`render(k)`: the k-th; the first, `first_frame`, already read as `first`), each read alone, then as the
    mean of the still frames so far tells it (`StillStack`), a lit board's unknowns beside its rings from up
    to BLANKED_LOOKS frames with the LEDs blanked (`dark_frame(look)`), then the settle filter at 15 frames
    a second, with no board committed before (so it waits until every field is read). Returns (the
    committed board or None after SERVED_FRAMES frames, frames taken, blanked frames, readings of a mean,
    CPU seconds of reading and stacking the frames after the first)."""
    stack = StillStack(reader) if STACKED else None
    filt = SettleFilter()
    dark = None
    looks = 0
    cpu = 0.0
    frame, reading = first_frame, first
    for k in range(SERVED_FRAMES):
        t0 = time.process_time()
        if k:
            frame = render(k)
            t0 = time.process_time()
            reading = reader.read(frame, disc=disc, lit=lit)
        if stack is not None:
            reading = stack.read(frame, reading, disc=disc, lit=lit)
            filt.forget(stack.doubted)
        cpu += time.process_time() - t0
        if dark is not None and reading.unknown:
            reading = fill_unknown(reading, dark) or reading
        if looks < BLANKED_LOOKS and reader.unknown_only_near_lit(reading, lit):
            dark = reader.read(dark_frame(looks), disc=disc)
            looks += 1
            reading = fill_unknown(reading, dark) or reading
        status = filt.feed(reading, k / 15)
        if status.committed:
            return status.board, k + 1, looks, stack.reads if stack else 0, cpu
    return None, SERVED_FRAMES, looks, stack.reads if stack else 0, cpu

def ring_lights(rng: np.random.Generator, occupied, field_ids) -> dict[str, tuple[int, int, int]]:
    """Every occupied field's ring and RING_EMPTY empty ones, each in one of the table's steady colours."""
    colours = list(RING_COLOURS.values())
    lit = {f: colours[int(rng.integers(len(colours)))] for f in sorted(occupied)}
    free = [f for f in field_ids if f not in occupied]
    for j in rng.choice(len(free), size=RING_EMPTY, replace=False):
        lit[free[j]] = colours[int(rng.integers(len(colours)))]
    return lit


def ring_setup(setup: Setup, tries: int, frames: int, seed: int | None = None, only: set[int] | None = None,
               eye_only: bool = False) -> dict:
    """The lit-ring stress on one setup (`--rings`), on scene seed `seed` (default SCENE_SEED): per lit
    field right, unknown or wrong. `only`: the boards (of `frames`) to render and read, the others skipped.
    `eye_only`: the rings are lights for the people only (players' colours): the calibration learned
    the table's colours, and the lit fields are read from the frame with the LEDs blanked."""
    seed = SCENE_SEED if seed is None else seed
    scene = PhotoScene(setup, seed=seed)
    row: dict = {"name": setup.name, "lit": 0, "right": 0, "unknown": 0, "wrong": {}, "examples": [],
                 "unlit_wrong": 0, "misses": {}, "blanked": 0, "after_right": 0, "after_unknown": 0, "after_wrong": 0,
                 "after_examples": []}
    errors = []
    for k in range(tries):
        try:
            cal = calibrate_try(scene, k, CAL_FRAMES)
            break
        except CalibrationError as e:
            errors.append(str(e))
    else:
        row["refused"] = errors[0]
        return row
    learned = (SOURCE, TARGET, PLAYED) if eye_only else tuple(RING_COLOURS.values())
    reader = BoardReader(with_rings_learned(scene, cal, learned))
    name_of = {c: n for n, c in RING_COLOURS.items()}
    base = start_position(setup)
    rng = np.random.default_rng([seed, 9, len(setup.name)])
    lrng = np.random.default_rng([seed, 77, len(setup.name)])
    for i in range(frames):
        pos = random_position(rng, base)
        occ = pos.field_occupancy()
        lit = ring_lights(lrng, occ, reader.cal.field_ids)
        if only is not None and i not in only:
            continue
        disc = pos.disc if setup.board == "black" else None
        r = reader.read(scene.render(pos, frame_index=1000 + i, lit=lit), disc=disc, lit=lit)
        if eye_only:
            r = unread(r, lit)
        after = r.labels
        now = r
        for look in range(BLANKED_LOOKS):  # the service's frames with the LEDs blanked
            if not reader.unknown_only_near_lit(now, lit):
                break
            row["blanked"] += look == 0
            row["second_looks"] = row.get("second_looks", 0) + (look > 0)
            filled = fill_unknown(now, reader.read(scene.render(pos, frame_index=3000 + 2000 * look + i), disc=disc))
            now = now if filled is None else filled
        after = now.labels
        for f, lab in zip(r.field_ids, after):
            t = occ.get(f, "empty")
            if f in lit:
                row["after_right"] += lab == t
                row["after_unknown"] += lab == "unknown"
            if lab not in (t, "unknown"):
                row["after_wrong"] += 1
                row["after_examples"].append((i, f, t, lab))
        for f, lab in zip(r.field_ids, r.labels):
            t = occ.get(f, "empty")
            if f not in lit:
                row["unlit_wrong"] += lab not in (t, "unknown")
                continue
            row["lit"] += 1
            if lab == t:
                row["right"] += 1
                continue
            key = (t, name_of[lit[f]])
            if lab == "unknown":
                row["unknown"] += 1
                row["misses"][key] = row["misses"].get(key, 0) + 1
            else:
                row["wrong"][key + (lab,)] = row["wrong"].get(key + (lab,), 0) + 1
                row["examples"].append((i, f, t, name_of[lit[f]], lab))
    return row


def rings_main(args, tries: int) -> None:
    frames = args.frames or (10 if args.quick else 30)
    if args.players_colours:
        RING_COLOURS.clear()
        RING_COLOURS.update(PLAYERS_COLOURS)
    print(f"# Lit-ring stress on the photo-like scene (seed {SCENE_SEED}; {frames} boards per setup, every occupied "
          f"field's ring and {RING_EMPTY} empty ones lit in the {'pieces' if args.players_colours else 'table'}'s colours: "
          + ", ".join(f"{n} {c}" for n, c in RING_COLOURS.items()) + ")")
    print(f"{'setup':<22}{'lit':>6}{'right':>7}{'unknown':>9}{'wrong':>7}{'unlit wrong':>13}   "
          f"{'blanked':>8}{'then right':>11}{'unknown':>9}{'wrong':>7}")
    tot = dict(lit=0, right=0, unknown=0, wrong=0, unlit=0, blanked=0, after_right=0, after_unknown=0, after_wrong=0,
               frames=0, second_looks=0)
    for s in SETUPS:
        if args.only and args.only not in s.name:
            continue
        r = ring_setup(s, tries, frames, eye_only=args.players_colours and not args.trust_lit)
        if "refused" in r:
            print(f"{s.name:<22}   calibration refused {tries} times: {r['refused']}")
            continue
        wrong = sum(r["wrong"].values())
        print(f"{s.name:<22}{r['lit']:>6}{r['right']:>7}{r['unknown']:>9}{wrong:>7}{r['unlit_wrong']:>13}   "
              f"{r['blanked']:>8}{r['after_right']:>11}{r['after_unknown']:>9}{r['after_wrong']:>7}")
        if r["after_examples"]:
            print("    wrong after the blanked frame (board, field, truth, read): " + ", ".join(map(str, r["after_examples"][:6])))
        for (t, ring, lab), n in sorted(r["wrong"].items(), key=lambda kv: -kv[1]):
            print(f"    wrong: {n} x {t} in a {ring} ring read {lab}")
        if r["examples"]:
            print("    wrong reads (board, field, truth, ring, read): " + ", ".join(map(str, r["examples"][:6])))
        if args.breakdown and r["misses"]:
            parts = [f"{t} in {ring} {n}" for (t, ring), n in sorted(r["misses"].items(), key=lambda kv: -kv[1])]
            print(f"    unknown (truth in ring): {', '.join(parts[:10])}")
        for k in ("lit", "right", "unknown"):
            tot[k] += r[k]
        tot["wrong"] += wrong
        tot["unlit"] += r["unlit_wrong"]
        tot["frames"] += frames
        for k in ("blanked", "after_right", "after_unknown", "after_wrong"):
            tot[k] += r[k]
        tot["second_looks"] += r.get("second_looks", 0)
    print(f"\nALL: {tot['lit']} lit fields, {tot['right']} right, {tot['unknown']} unknown, {tot['wrong']} wrong; "
          f"{tot['unlit']} wrong among the unlit fields")
    print(f"after the frames with the LEDs blanked where the service takes them ({tot['blanked']} of "
          f"{tot['frames']} frames, {tot['second_looks']} of them a second time): {tot['after_right']} right, "
          f"{tot['after_unknown']} unknown, {tot['after_wrong']} wrong (any field)")


def reference_loop() -> float:
    """Seconds of a fixed pure-Python loop: card times are printed as multiples of it (machine-free)."""
    t0 = time.process_time()
    x = 0
    for i in range(200_000):
        x = (x * 31 + i) % 1_000_003
    return time.process_time() - t0


def evening_calibration(scene: "evening.EveningScene"):
    start = evening.start_position(scene.setup)
    return calibrate([scene.render(evening.empty_of(start), frame_index=i) for i in range(CAL_FRAMES)],
                     scene.setup.segments, scene.setup.board,
                     [scene.render(start, frame_index=50 + i) for i in range(CAL_FRAMES)], start.field_occupancy())


def evening_boards(args) -> None:
    """Boards of the second scene: per setup wrong, unknown, boards exact, frames with the more-light hint."""
    reads = args.frames or (8 if args.quick else 30)
    print(f"# Boards on the second scene (scripts/photo_scene_evening.py, seed {SCENE_SEED}; {reads} boards a setup; "
          "one core)")
    print(f"{'setup':<18}{'cal':>5}{'wrong':>7}{'unknown':>9}{'exact':>9}{'hint':>6}{'ms/frame':>10}{'served':>9}"
          f"{'fr':>6}{'ms/fr':>7}")
    tot = dict(wrong=0, unknown=0, exact=0, reads=0, served=0, served_wrong=0, frames=0)
    for e in evening.EVENINGS:
        if args.only and args.only not in e.name:
            continue
        scene = evening.EveningScene(e, seed=SCENE_SEED)
        try:
            reader = BoardReader(evening_calibration(scene))
        except CalibrationError as exc:
            print(f"{e.name:<18}{'no':>5}   calibration refused: {exc}")
            continue
        rng = np.random.default_rng([SCENE_SEED, 19, len(e.name)])
        base = evening.start_position(e)
        wrong = unknown = exact = hinted = served = served_wrong = frames = 0
        cpu = served_cpu = 0.0
        examples = []
        for i in range(reads):
            pos = random_position(rng, base)
            frame = scene.render(pos, frame_index=1000 + i)
            t0 = time.process_time()
            r = reader.read(frame)
            cpu += time.process_time() - t0
            served_cpu += time.process_time() - t0
            board, took, _, _, more_cpu = served_board(
                reader, lambda k: scene.render(pos, frame_index=20000 + 100 * i + k), None, None, None, frame, r)
            frames += took
            served_cpu += more_cpu
            if board is not None:
                occ = pos.field_occupancy()
                sb = sum(board.get(f, "empty") != occ.get(f, "empty") for f in reader.cal.field_ids)
                served += sb == 0
                served_wrong += sb
            _, b, c = score(reader, pos, r.labels)
            wrong, unknown = wrong + b, unknown + c
            exact += b == 0 and c == 0 and not r.covered
            hinted += MORE_LIGHT in r.hints
            occ = pos.field_occupancy()
            examples += [(f, lab, occ.get(f, "empty")) for f, lab in zip(r.field_ids, r.labels)
                         if lab not in ("unknown", occ.get(f, "empty"))]
        print(f"{e.name:<18}{'yes':>5}{wrong:>7}{unknown:>9}{f'{exact}/{reads}':>9}{hinted:>6}{1000 * cpu / reads:>10.1f}"
              f"{f'{served}/{reads}':>9}{frames / reads:>6.1f}{1000 * served_cpu / frames:>7.1f}")
        if examples:
            print(f"    wrong reads (field, read, truth): {examples[:4]}")
        if served_wrong:
            print(f"    wrong fields on the boards the service committed: {served_wrong}")
        for k, v in (("wrong", wrong), ("unknown", unknown), ("exact", exact), ("reads", reads), ("served", served),
                     ("served_wrong", served_wrong), ("frames", frames)):
            tot[k] += v
    print(f"\nALL: {tot['wrong']} wrong, {tot['unknown']} unknown, boards exact {tot['exact']}/{tot['reads']}; "
          f"as the service commits them (the settle filter over still frames{' and their mean' if STACKED else ''}): "
          f"{tot['served']}/{tot['reads']} exact, {tot['served_wrong']} wrong fields, "
          f"{tot['frames'] / max(tot['reads'], 1):.1f} frames a board")


SENSOR_WIDTH = 4608  # the Pi Camera Module 3's full resolution across (4608 x 2592), where `read_zone` crops


def evening_cards(args) -> None:
    """Cards off a pile on the second scene: right, asked, wrong, ms and x ref per card."""
    reads = args.frames or (20 if args.quick else 200)
    where = (f"{args.card_scale}x the board picture's resolution" if args.card_scale else
             f"the camera's full resolution ({SENSOR_WIDTH} px across: {SENSOR_WIDTH}/picture width x the board "
             "picture's)")
    print(f"# Cards on the second scene (seed {SCENE_SEED}; each of {len(engine.ALL_CARDS)} cards enrolled from one "
          f"photo; {reads} piles a setup, the zone at {where}; one core)")
    print(f"{'setup':<18}{'right':>7}{'ask':>6}{'wrong':>7}{'ms/card':>9}{'x ref':>7}")
    tot = dict(right=0, ask=0, wrong=0, n=0)
    ratios = []
    for e in evening.EVENINGS:
        if args.only and args.only not in e.name:
            continue
        scene = evening.EveningScene(e, seed=SCENE_SEED)
        try:
            cal = evening_calibration(scene)
        except CalibrationError as exc:
            print(f"{e.name:<18}   calibration refused: {exc}")
            continue
        scale = args.card_scale or SENSOR_WIDTH / e.resolution[0]
        box = scene.zone_box(scale)
        H = np.diag([scale, scale, 1.0]) @ cal.homography  # the picture at `scale`, pixel centres kept
        H[:2, 2] += 0.5 * scale - 0.5
        H = np.array([[1, 0, -box[0]], [0, 1, -box[1]], [0, 0, 1]], float) @ H
        cards = PileCardReader(cal)
        cards.set_empty(scene.render_cards(None, frame_index=0, scale=scale), H)
        for i, c in enumerate(engine.ALL_CARDS):
            cards.enrol(scene.render_cards(evening.CardOnPile(c), frame_index=10 + i, scale=scale), c, H)
        rng = np.random.default_rng([SCENE_SEED, 23, len(e.name)])
        right = ask = wrong = 0
        cpu = ref = 0.0
        bad = []
        for k in range(reads):
            pile = evening.random_pile(rng, engine.ALL_CARDS)
            img = scene.render_cards(pile, frame_index=500 + k, scale=scale)
            ref += reference_loop()
            t0 = time.process_time()
            r = cards.recognise(img, H)
            cpu += time.process_time() - t0
            right += r.card == pile.card
            ask += r.card is None
            if r.card not in (None, pile.card):
                wrong += 1
                bad.append((pile.card, r.card))
        ratios.append(cpu / ref)
        print(f"{e.name:<18}{right:>7}{ask:>6}{wrong:>7}{1000 * cpu / reads:>9.1f}{cpu / ref:>7.2f}")
        if bad:
            print(f"    wrong (truth, read): {bad[:6]}")
        for k_, v in (("right", right), ("ask", ask), ("wrong", wrong), ("n", reads)):
            tot[k_] += v
    if tot["n"]:
        print(f"\nALL: {tot['right']}/{tot['n']} right ({100 * tot['right'] / tot['n']:.1f}%), {tot['ask']} asked, "
              f"{tot['wrong']} wrong; {np.mean(ratios):.2f} x ref per card; load average "
              + " ".join(f"{v:.1f}" for v in os.getloadavg()))


def main() -> None:
    global SCENE_SEED, STACKED
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--tries", type=int, default=None)
    ap.add_argument("--breakdown", action="store_true",
                    help="per setup: unknown and wrong fields by what stands there and the kind of field")
    ap.add_argument("--seed", type=int, default=1,
                    help="scene seed (1: the seed the reader was tuned on; the others were not looked at while tuning)")
    ap.add_argument("--rings", action="store_true",
                    help="the lit-ring stress: every occupied field's ring lit in the table's own colours")
    ap.add_argument("--players-colours", action="store_true",
                    help="with --rings: the rings lit in the pieces' colours instead of the table's")
    ap.add_argument("--trust-lit", action="store_true",
                    help="with --players-colours: read the lit fields from the lit frame (not as the service does)")
    ap.add_argument("--frames", type=int, default=None,
                    help="boards (or cards) per setup for --rings, --evening, --cards")
    ap.add_argument("--single-frames", action="store_true",
                    help="`served` without the mean of still frames (each frame read alone, as the service did before)")
    ap.add_argument("--evening", action="store_true", help="boards of the second scene (photo_scene_evening.py)")
    ap.add_argument("--cards", action="store_true", help="cards off a pile on the second scene")
    ap.add_argument("--card-scale", type=float, default=None,
                    help="the card zone's resolution as a multiple of the board picture's (default: the Pi camera's "
                         f"full resolution, {SENSOR_WIDTH} px across, as the service reads it: 3.6 for a 720p board)")
    args = ap.parse_args()
    SCENE_SEED = args.seed
    STACKED = not args.single_frames
    cv2.setNumThreads(1)
    if args.evening:
        evening_boards(args)
        return
    if args.cards:
        evening_cards(args)
        return
    tries = args.tries or (3 if args.quick else 5)
    if args.rings:
        rings_main(args, tries)
        return
    reads, hands, settles = (6, 3, 1) if args.quick else (20, 6, 3)
    print(f"# Vision on the photo-like scene (scripts/photo_scene.py, seed {SCENE_SEED}; {CAL_FRAMES} pictures per "
          f"calibration try; {reads} boards, {hands} hands, {settles} moves per setup; one core)")
    print(f"{'setup':<22}{'cal 1st':>8}{'cal ok':>8}{'read %':>9}{'wrong':>7}{'unknown':>9}{'exact':>8}"
          f"{'false cov':>10}{'hands':>7}{'settle fr':>11}{'ms/frame':>10}{'served':>8}{'fr':>6}{'ms/fr':>7}")
    tot = dict(first=0, setups=0, all3=0, right=0, wrong=0, unknown=0, total=0, exact=0, reads=0, fc=0, caught=0,
               hands=0, sw=0, settled=0, moves=0, served=0, served_wrong=0, blanked=0, stack_reads=0,
               served_frames=0)
    ms720, served720 = [], []
    for s in SETUPS:
        if args.only and args.only not in s.name:
            continue
        r = bench_setup(s, tries, reads, hands, settles)
        tot["setups"] += 1
        tot["first"] += r["cal_first"]
        tot["all3"] += r["cal_ok"] > 0
        cal = f"{r['cal_ok']}/{r['cal_n']}"
        if "total" not in r:
            print(f"{s.name:<22}{'no':>8}{cal:>8}   calibration refused: {r['errors'][0]}")
            continue
        for e in sorted(set(r["errors"]))[:2]:
            print(f"    refused once: {e}")
        pct = 100 * (r["total"] - r["unknown"] - r["wrong"]) / r["total"]
        st = r["settle"]
        ok = [x for x in st if x is not None]
        ex, hc = f"{r['exact']}/{r['reads']}", f"{r['caught']}/{r['hands']}"
        sf = f"{'/'.join('-' if x is None else str(x) for x in st)}"
        print(f"{s.name:<22}{'yes' if r['cal_first'] else 'no':>8}{cal:>8}{pct:>9.2f}{r['wrong']:>7}{r['unknown']:>9}"
              f"{ex:>8}{r['false_cover']:>10}{hc:>7}{sf:>11}"
              f"{r['ms']:>10.1f}{r['served_exact']:>5}/{r['reads']:<2}{np.mean(r['served_frames']):>6.1f}"
              f"{r['served_ms']:>7.1f}")
        if r["served_wrong"]:
            print(f"    wrong fields on the boards the service committed: {r['served_wrong']}")
        if len(r["served_frames"]) - r["served_exact"] > 0:
            waited = sum(x == SERVED_FRAMES for x in r["served_frames"])
            if waited:
                print(f"    boards still waiting for a clear view after {SERVED_FRAMES} frames: {waited}")
        if r.get("wrong_examples"):
            print(f"    wrong reads (field, read, truth): {r['wrong_examples'][:4]}")
        if args.breakdown and r.get("misses"):
            parts = [f"{t}@{k} {what} {n}" for (t, k, what), n in sorted(r["misses"].items(), key=lambda kv: -kv[1])]
            print(f"    misses (truth@field kind, * = own ring lit): {', '.join(parts[:10])}")
        for k_, v in (("right", "right"), ("wrong", "wrong"), ("unknown", "unknown"), ("total", "total"),
                      ("exact", "exact"), ("reads", "reads"), ("fc", "false_cover"), ("caught", "caught"), ("hands", "hands"),
                      ("sw", "settle_wrong"), ("served", "served_exact"), ("served_wrong", "served_wrong"),
                      ("blanked", "blanked")):
            tot[k_] += r[v]
        tot["settled"] += len(ok)
        tot["moves"] += len(st)
        tot["stack_reads"] += r["served_stack_reads"]
        tot["served_frames"] += sum(r["served_frames"])
        if s.resolution == (1280, 720):
            ms720.append(r["ms"])
            served720.append(r["served_ms"])
    if tot["total"]:
        print(f"\nALL: calibration accepted first time in {tot['first']}/{tot['setups']} setups, within the tries in "
              f"{tot['all3']}/{tot['setups']}; fields read {100 * tot['right'] / tot['total']:.2f}% "
              f"({tot['wrong']} wrong, {tot['unknown']} unknown of {tot['total']}); boards exact "
              f"{tot['exact']}/{tot['reads']}; false covers {tot['fc']}/{tot['reads']}; hands caught "
              f"{tot['caught']}/{tot['hands']}; moves settled {tot['settled']}/{tot['moves']} (wrong commits "
              f"{tot['sw']}); {np.mean(ms720) if ms720 else float('nan'):.1f} ms per 1280x720 frame (CPU, one core)")
        how = "each read alone and as the mean of the still frames so far" if STACKED else "each read alone"
        print(f"as the service commits them (still frames at 15 a second, {how}, a lit board's unknowns beside its "
              f"rings from up to {BLANKED_LOOKS} frames with the LEDs blanked ({tot['blanked']} boards needed it), the settle filter): boards exact "
              f"{tot['served']}/{tot['reads']}, {tot['served_wrong']} wrong fields; "
              f"{tot['served_frames'] / max(tot['reads'], 1):.1f} frames a board, {tot['stack_reads']} readings of a mean; "
              f"{np.mean(served720) if served720 else float('nan'):.1f} ms per 1280x720 frame with the means (CPU, one core)")


if __name__ == "__main__":
    main()
