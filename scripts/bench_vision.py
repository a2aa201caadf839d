"""Vision benchmark on the simulated table: accuracy under perturbations, settle filter, cards, speed.

Seeded; prints the figures docs/figures.md gives for the simulated table. Not a test: run it by hand.

    .venv/bin/python scripts/bench_vision.py            # full: thousands of frames (~10-20 min)
    .venv/bin/python scripts/bench_vision.py --quick    # a smoke run (~1-2 min)
"""
from __future__ import annotations

import argparse
import dataclasses
import time
import zlib
from collections.abc import Iterator

import cv2
import numpy as np

import engine
from hardware.simtable import CameraPose, Hand, SceneEffects, SimTable
from vision.calibration import calibrate, glow_groups
from vision.cards import CardReader
from vision.reader import BoardReader
from vision.settle import SettleFilter

LED_COLOURS = [(0, 255, 0), (255, 0, 0), (0, 80, 255), (255, 200, 0), (255, 255, 255)]


def start_position(segments: int = 4, board: str = "standard") -> engine.Position:
    pos = engine.parse_position({"variant": "classic", "board": segments, "pieces": [["K"] * 4] * segments})
    return dataclasses.replace(pos, board=engine.load_board(board, segments))


def empty_of(pos: engine.Position) -> engine.Position:
    return dataclasses.replace(pos, pieces=tuple(() for _ in pos.pieces), black_dog=None)


def random_position(rng: np.random.Generator, segments: int = 4, board: str = "standard") -> engine.Position:
    """Any placement of 4 pieces per seat (legality does not matter to a camera)."""
    base = start_position(segments, board)
    if board == "royal":  # the royal edition's pieces carry their rank on the head
        base = dataclasses.replace(base, variant=engine.get_variant("royal"))
    free = list(range(segments * 16))
    rng.shuffle(free)
    pieces = []
    for _ in range(segments):
        locs: list[int] = []
        homes = list(rng.permutation(4))
        for _ in range(4):
            u = rng.random()
            if u < 0.3:
                locs.append(engine.KENNEL)
            elif u < 0.45 and homes:
                locs.append(engine.HOME + int(homes.pop()))
            else:
                locs.append(free.pop())
        pieces.append(tuple(sorted(locs)))
    dog = None
    disc = 0
    if board == "black":
        starts = {16 * s for s in range(segments)}
        dog = next(f for f in free if f not in starts)
        disc = int(rng.integers(4))
    return dataclasses.replace(base, pieces=tuple(pieces), black_dog=dog, disc=disc)


def setup(table: SimTable, board: str = "standard", glow: bool = True) -> BoardReader:
    start = start_position(table.segments, board)
    if board == "royal":  # royal pieces carry their rank marks in the start picture
        start = dataclasses.replace(start, variant=engine.get_variant("royal"))
    empty = table.render(empty_of(start), frame_index=0)
    if board == "black":  # the dog stands in the start picture so that its colour is learned
        start = dataclasses.replace(start, black_dog=5)
    lit_frames = None
    if glow and table.segments == 6:  # pale (white) pieces: learn the lit rings, group by group, per colour
        groups = glow_groups(table.segments)
        lit_frames = [(table.render(empty_of(start), lit={f: c for f in g}, frame_index=900 + k * len(groups) + i),
                       {f: c for f in g}) for k, c in enumerate(LED_COLOURS) for i, g in enumerate(groups)]
    cal = calibrate(empty, table.segments, board, table.render(start, frame_index=1), start.field_occupancy(),
                    lit_frames=lit_frames)
    return BoardReader(cal)


def score(reader: BoardReader, pos: engine.Position, labels: tuple[str, ...]) -> tuple[int, int, int]:
    truth = pos.field_occupancy()
    right = wrong = unknown = 0
    for f, lab in zip(reader.cal.field_ids, labels):
        t = truth.get(f, "empty")
        if lab == t:
            right += 1
        elif lab == "unknown":
            unknown += 1
        else:
            wrong += 1
    return right, wrong, unknown


CONDITIONS: dict[str, SceneEffects] = {
    "default": SceneEffects(),
    "clean": SceneEffects.clean(),
    "dim": SceneEffects(light_level=0.55),
    "bright": SceneEffects(light_level=1.3),
    "gradient": SceneEffects(light_gradient=0.5, vignette=0.35),
    "tint": SceneEffects(tint_rgb=(1.1, 1.0, 0.8)),
    "flicker": SceneEffects(light_flicker=0.08),
    "shadow": SceneEffects(shadow_strength=0.75),
    "noise": SceneEffects(noise_sigma=7.0),
    "blur": SceneEffects(blur_sigma=1.5),
    "jitter": SceneEffects(camera_jitter_deg=0.25, camera_jitter_mm=3.0, piece_jitter_mm=2.0),
    "glow": SceneEffects(glow_strength=1.0),
    "harsh": SceneEffects.harsh(),
}
POSES: dict[str, CameraPose] = {
    "tilt15": CameraPose(tilt_deg=15.0),
    "yaw6": CameraPose(yaw_deg=6.0),
    "low900": CameraPose(height_mm=900.0, focal_px=820.0),
}


def single_frames(frames: int, seed: int) -> None:
    print(f"\n## Single frames: per-field accuracy ({frames} frames per condition, 104 fields each)")
    print(f"{'condition':<18}{'fields':>9}{'correct':>10}{'wrong':>8}{'unknown':>9}{'covered!':>10}"
          f"{'unknown on LED-lit frames':>27}")
    total = [0, 0, 0, 0]
    cases: list[tuple[str, SimTable, str]] = [(n, SimTable(4, seed, effects=fx), "standard") for n, fx in CONDITIONS.items()]
    cases += [(n, SimTable(4, seed, pose=p), "standard") for n, p in POSES.items()]
    cases.append(("1080p", SimTable(4, seed, resolution=(1920, 1080), pose=CameraPose(focal_px=1500.0)), "standard"))
    cases.append(("black-disc", SimTable(4, seed), "black"))
    cases.append(("royal", SimTable(4, seed), "royal"))
    cases.append(("royal-harsh", SimTable(4, seed, effects=SceneEffects.harsh()), "royal"))
    cases.append(("6-segments", SimTable(6, seed, pose=CameraPose(height_mm=1500.0)), "standard"))
    cases.append(("6-seg-harsh", SimTable(6, seed, pose=CameraPose(height_mm=1500.0), effects=SceneEffects.harsh()),
                  "standard"))
    cases.append(("6-seg-no-glow-cal", SimTable(6, seed, pose=CameraPose(height_mm=1500.0)), "standard"))
    for name, table, board in cases:
        try:
            reader = setup(table, board, glow=not name.endswith("no-glow-cal"))
        except Exception as exc:  # report and go on: one failing setup must not hide the rest
            print(f"{name:<18}calibration failed: {exc}")
            continue
        rng = np.random.default_rng((seed, zlib.crc32(name.encode()) & 0xFFFF))
        r = w = u = cov = u_lit = 0
        for i in range(frames):
            pos = random_position(rng, table.segments, board)
            lit = None
            if name in ("glow", "harsh") or i % 3 == 0:
                fields = rng.choice(list(reader.cal.field_ids), 6, replace=False)
                lit = {str(f): LED_COLOURS[k % len(LED_COLOURS)] for k, f in enumerate(fields)}
            frame = table.render(pos, lit=lit, card=str(rng.choice(engine.ALL_CARDS)), frame_index=2 + i)
            reading = reader.read(frame, disc=pos.disc if board == "black" else None, lit=lit)
            a, b, c = score(reader, pos, reading.labels)
            r, w, u, cov = r + a, w + b, u + c, cov + int(reading.covered or reading.problem is not None)
            u_lit += c if lit else 0
        n = r + w + u
        total = [total[0] + n, total[1] + r, total[2] + w, total[3] + u]
        print(f"{name:<18}{n:>9}{100 * r / n:>9.3f}%{w:>8}{u:>9}{cov:>10}{u_lit:>27}")
    n = total[0]
    print(f"{'ALL':<18}{n:>9}{100 * total[1] / n:>9.3f}%{total[2]:>8}{total[3]:>9}")


def scripted_game(table: SimTable, reader: BoardReader, rng: np.random.Generator, moves: int, fps: float,
                  first_frame: int) -> Iterator[tuple[float, np.ndarray, engine.Position, bool, dict | None]]:
    """(t, frame, true position, hand in view, LEDs lit) for a game of `moves` moves, each made by a hand."""
    pos = random_position(rng, table.segments)
    t = 0.0
    k = first_frame
    dt = 1.0 / fps

    def frames(n: int, hand: Hand | None, p: engine.Position, lit: dict | None = None):
        nonlocal t, k
        for _ in range(n):
            yield t, table.render(p, hand=hand, frame_index=k, lit=lit), p, hand is not None, lit
            t += dt
            k += 1

    yield from frames(int(0.6 * fps), None, pos)
    for _ in range(moves):
        occ = pos.field_occupancy()
        track = [f for f in occ if f.startswith("T")]
        src = str(rng.choice(track)) if track else "T0"
        edge = str(rng.choice(["bottom", "left", "top", "right"]))
        skin = int(rng.integers(4))
        for reach in np.linspace(0.1, 0.45, max(2, int(0.25 * fps))):
            yield from frames(1, Hand(edge=edge, reach=float(reach), skin=skin, angle=float(rng.normal(0, 10))), pos)
        yield from frames(max(2, int(0.4 * fps)), Hand(edge=edge, target=src, skin=skin), pos)
        pos = random_step(rng, pos)
        # The hand rests on the new spot, still, for longer than the settle time: must not commit.
        yield from frames(max(2, int(0.5 * fps)), Hand(edge=edge, target=src, skin=skin, height_mm=30), pos)
        for reach in np.linspace(0.45, 0.1, max(2, int(0.25 * fps))):
            yield from frames(1, Hand(edge=edge, reach=float(reach), skin=skin), pos)
        lit = {f: (0, 255, 0) for f in list(pos.field_occupancy())[:3]} if rng.random() < 0.3 else None
        yield from frames(int(0.7 * fps), None, pos, lit)


def random_step(rng: np.random.Generator, pos: engine.Position) -> engine.Position:
    """Move one random piece of one seat to a random free track field (or back to the kennel)."""
    seat = int(rng.integers(len(pos.pieces)))
    locs = list(pos.pieces[seat] or ())
    used = {loc for p in pos.pieces for loc in (p or ()) if loc < engine.HOME}
    free = [f for f in range(pos.board.track_length) if f not in used]
    i = int(rng.integers(len(locs)))
    locs[i] = engine.KENNEL if rng.random() < 0.15 else int(rng.choice(free))
    pieces = list(pos.pieces)
    pieces[seat] = tuple(sorted(locs))
    return dataclasses.replace(pos, pieces=tuple(pieces))


def settle_games(games: int, moves: int, seed: int) -> None:
    print(f"\n## Settle filter on scripted games ({games} games x {moves} moves per 4-segment setup, hands move every"
          " piece; the reader is told which LEDs are lit, as the service does)")
    print(f"{'setup':<12}{'frames':>8}{'hand':>7}{'commits':>9}{'settled ok':>14}{'(LEDs off)':>14}"
          f"{'wrong board':>13}{'hand in view':>14}")
    fps = 15.0
    tot = np.zeros(9, int)
    setups = (("default", SimTable(4, seed)), ("harsh", SimTable(4, seed, effects=SceneEffects.harsh())),
              ("6-segments", SimTable(6, seed, pose=CameraPose(height_mm=1500.0))))
    for name, table in setups:
        reader = setup(table, "standard")
        row = np.zeros(9, int)  # frames, hand, commits, settled ok, settled n, ok unlit, n unlit, wrong, in view
        for g in range(games if name != "6-segments" else max(1, games // 4)):
            rng = np.random.default_rng((seed, 77, g, name == "harsh") if name != "6-segments" else (seed, 78, g))
            filt = SettleFilter()
            last_true = None
            last_lit = None
            quiet_since = None

            def judge() -> None:
                ok = filt.committed_board == last_true
                row[3] += ok
                row[4] += 1
                if not last_lit:
                    row[5] += ok
                    row[6] += 1

            for t, frame, pos, hand, lit in scripted_game(table, reader, rng, moves, fps, 10_000 * (g + 1)):
                row[0] += 1
                row[1] += hand
                status = filt.feed(reader.read(frame, lit=lit), t)
                truth = pos.field_occupancy()
                if status.committed:
                    row[2] += 1
                    row[7] += status.board != truth
                    row[8] += hand
                # A still, uncovered stretch of 0.6 s must end with the true board committed.
                if hand or truth != last_true:
                    if quiet_since is not None and last_true is not None and t - quiet_since >= 0.6:
                        judge()
                    quiet_since = None if hand else t
                elif quiet_since is None:
                    quiet_since = t
                last_true = truth
                last_lit = lit
            if quiet_since is not None and last_true is not None:
                judge()
        print(f"{name:<12}{row[0]:>8}{row[1]:>7}{row[2]:>9}{f'{row[3]}/{row[4]}':>14}{f'{row[5]}/{row[6]}':>14}"
              f"{row[7]:>13}{row[8]:>14}")
        tot += row
    print(f"{'ALL':<12}{tot[0]:>8}{tot[1]:>7}{tot[2]:>9}{f'{tot[3]}/{tot[4]}':>14}{f'{tot[5]}/{tot[6]}':>14}"
          f"{tot[7]:>13}{tot[8]:>14}")
    print("settled ok: still stretches of 0.6 s or more that ended with the true board committed; (LEDs off): those"
          " without LEDs lit; wrong board: commits that differ from the truth; hand in view: commits while a hand was"
          " over the board")


def covers(frames: int, seed: int) -> None:
    print(f"\n## Covers: single frames with a hand over the board, every skin tone ({frames} per tone and condition),"
          f" and frames without")
    print(f"{'condition':<16}{'hand frames':>12}{'missed':>8}{'  missed per skin':<20}{'no-hand frames':>16}{'flagged':>9}")
    cases: list[tuple[str, SimTable]] = [(n, SimTable(4, seed, effects=fx)) for n, fx in CONDITIONS.items()]
    cases += [(n, SimTable(4, seed, pose=p)) for n, p in POSES.items()]
    cases.append(("6-segments", SimTable(6, seed, pose=CameraPose(height_mm=1500.0))))
    cases.append(("6-seg-harsh", SimTable(6, seed, pose=CameraPose(height_mm=1500.0), effects=SceneEffects.harsh())))
    total_miss = total_hand = total_flag = total_free = 0
    for name, table in cases:
        reader = setup(table)
        rng = np.random.default_rng((seed, 91, zlib.crc32(name.encode()) & 0xFFFF))
        tones = len(table.look.skin_tones)
        missed = [0] * tones
        for skin in range(tones):
            for i in range(frames):
                pos = random_position(rng, table.segments)
                edge = ["bottom", "left", "top", "right"][i % 4]
                if i % 2:
                    hand = Hand(edge=edge, reach=float(rng.uniform(0.08, 0.5)), skin=skin, angle=float(rng.normal(0, 12)))
                else:
                    track = [f for f in pos.field_occupancy() if f.startswith("T")] or ["T0"]
                    hand = Hand(edge=edge, target=str(rng.choice(track)), skin=skin,
                                height_mm=float(rng.choice([30.0, 60.0])))
                lit = None
                if i % 3 == 0:
                    fields = rng.choice(list(reader.cal.field_ids), 6, replace=False)
                    lit = {str(f): LED_COLOURS[k % len(LED_COLOURS)] for k, f in enumerate(fields)}
                frame = table.render(pos, hand=hand, lit=lit, frame_index=20_000 + skin * frames + i)
                missed[skin] += not reader.read(frame, lit=lit).covered
        flagged = 0
        for i in range(frames):
            pos = random_position(rng, table.segments)
            lit = None
            if i % 2:
                fields = rng.choice(list(reader.cal.field_ids), 6, replace=False)
                lit = {str(f): LED_COLOURS[k % len(LED_COLOURS)] for k, f in enumerate(fields)}
            frame = table.render(pos, lit=lit, card=str(rng.choice(engine.ALL_CARDS)), frame_index=30_000 + i)
            flagged += reader.read(frame, lit=lit).covered
        total_miss += sum(missed)
        total_hand += tones * frames
        total_flag += flagged
        total_free += frames
        print(f"{name:<16}{tones * frames:>12}{sum(missed):>8}  {str(missed):<18}{frames:>16}{flagged:>9}")
    print(f"{'ALL':<16}{total_hand:>12}{total_miss:>8}{'':<20}{total_free:>16}{total_flag:>9}")


def cards(trials: int, seed: int) -> None:
    print(f"\n## Cards: enrol each of {len(engine.ALL_CARDS)} card types once, then {trials} plays per condition")
    for name, fx in (("default", SceneEffects()), ("harsh", SceneEffects.harsh())):
        table = SimTable(4, seed, effects=fx)
        reader = setup(table)
        start = start_position()
        cr = CardReader(reader.cal)
        cr.set_empty(table.render(empty_of(start), frame_index=0))
        for i, card in enumerate(engine.ALL_CARDS):
            frame = table.render(start, card=card, frame_index=50 + i)
            reader.measure(frame)
            cr.enrol(frame, card, reader.homography)
        rng = np.random.default_rng((seed, 5))
        ok = ask = wrong = 0
        for k in range(trials):
            card = str(rng.choice(engine.ALL_CARDS))
            frame = table.render(random_position(rng), card=card, frame_index=5000 + k,
                                 card_angle_deg=float(rng.choice([0.0, 180.0])))
            reader.measure(frame)
            r = cr.recognise(frame, reader.homography)
            ok += r.card == card
            ask += r.ask
            wrong += (r.card is not None and r.card != card) or not r.present
        print(f"{name:<10} correct {100 * ok / trials:6.2f}%  asked {100 * ask / trials:5.2f}%  wrong {wrong}")


def speed(frames: int, seed: int) -> None:
    cv2.setNumThreads(1)
    print(f"\n## Speed: board reading, one core (cv2.setNumThreads(1)), median of {frames} reads")
    try:
        import os

        print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: wall times include waiting for a core;"
              " CPU time is this thread's own)")
    except OSError:
        pass
    for res, focal in (((1280, 720), 1000.0), ((1920, 1080), 1500.0)):
        table = SimTable(4, seed, resolution=res, pose=CameraPose(focal_px=focal),
                         effects=SceneEffects(camera_jitter_deg=0.1, camera_jitter_mm=1.0))
        reader = setup(table)
        rng = np.random.default_rng(seed)
        pics = [table.render(random_position(rng), frame_index=100 + i) for i in range(8)]
        times, cpu = [], []
        for i in range(frames):
            t0, c0 = time.perf_counter(), time.thread_time()
            reader.read(pics[i % len(pics)])
            times.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
        cr = CardReader(reader.cal)
        cr.set_empty(pics[0])
        cr.templates["x"] = np.zeros((2 * 50 + 1, 36, 3), np.float32)
        ct = []
        for i in range(min(frames, 100)):
            t0 = time.perf_counter()
            cr.recognise(pics[i % len(pics)])
            ct.append(time.perf_counter() - t0)
        print(f"{res[0]}x{res[1]}: board {1000 * np.median(times):.2f} ms/frame wall (p95 {1000 * np.percentile(times, 95):.2f}), "
              f"{1000 * np.median(cpu):.2f} ms CPU; card zone {1000 * np.median(ct):.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small counts: a smoke run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=("fields", "covers", "settle", "cards", "speed"))
    args = ap.parse_args()
    q = args.quick
    t0 = time.perf_counter()
    if args.only in (None, "speed"):
        speed(100 if q else 500, args.seed)
    if args.only in (None, "fields"):
        single_frames(6 if q else 120, args.seed)
    if args.only in (None, "covers"):
        covers(3 if q else 40, args.seed)
    if args.only in (None, "settle"):
        settle_games(1 if q else 8, 4 if q else 12, args.seed)
    if args.only in (None, "cards"):
        cards(40 if q else 500, args.seed)
    print(f"\n(benchmark took {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
