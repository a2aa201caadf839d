#!/usr/bin/env python3
"""Measure the table service's four figures: card seen -> LEDs lit, board settled -> verdict,
memory of the running service, start-up time (new game, and resuming a long journal).

    .venv/bin/python scripts/bench_service.py [--games 3] [--variant classic]
    .venv/bin/python scripts/bench_service.py --run     # `dogtable run` on the simulated devices

Latencies are measured in process through `Service.submit` with a recording LED writer,
over whole scripted games (illegal plays included); memory and start-up by running
`dogtable sim` as a subprocess and polling its web page.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import table as T  # noqa: E402
from companion.journal import Journal  # noqa: E402
from companion.lights import Lights  # noqa: E402
from companion.simulated.scripted import scripted_game  # noqa: E402
from companion.service import Service  # noqa: E402
from companion.settings import ServiceSettings, Settings  # noqa: E402


def _wait_for_page(url: str, limit_s: float = 30.0) -> None:
    """Until the service answers its health check (a bounded wait: a dead service fails)."""
    deadline = time.perf_counter() + limit_s
    while True:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=1) as r:
                r.read()
            return
        except OSError:
            if time.perf_counter() > deadline:
                raise SystemExit(f"the service at {url} did not answer within {limit_s:.0f} s")
            time.sleep(0.01)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def led_rings():
    """The LED rings `dogtable run` drives, on the recording strip (640 LEDs)."""
    from hardware.factory import open_devices
    from hardware.settings import HardwareSettings, LedSettings

    hw = replace(HardwareSettings().simulated(), leds=LedSettings(backend="simulated"))
    hw = replace(hw, encoder=replace(hw.encoder, backend="none"), buttons=replace(hw.buttons, backend="none"),
                 camera=replace(hw.camera, backend="none"))
    return open_devices(hw).leds


def latencies(variant: str, players: int, games: int, tmp: Path, rings=None) -> dict:
    card_ms: list[float] = []
    settle_ms: list[float] = []
    lit: list[float] = []
    settings = Settings(replace(ServiceSettings(), accept_flash_s=0.0))

    def write(roles: dict) -> None:
        if rings is not None:
            rings.show_roles(roles)  # the strip has its frame when this returns
        lit.append(time.perf_counter())

    for g in range(games):
        journal = Journal(tmp / f"bench-{variant}-{g}.sqlite")
        service = Service(settings, journal)
        lights = Lights(service, write)  # the rings follow the service's stream on their own thread
        service.open(T.Setup(variant, players, "highlight"))
        lights.subscription.wait_idle(10)
        for step, _ in scripted_game(variant, players, seed=100 + g):
            ev = step.event
            lit.clear()
            t0 = time.perf_counter()
            service.submit(ev)
            lights.subscription.wait_idle(10)  # until the rings were written (or had nothing to show)
            t1 = lit[0] if lit else time.perf_counter()
            if isinstance(ev, T.CardSeen):
                card_ms.append((t1 - t0) * 1000)
            elif isinstance(ev, T.BoardSettled) and step.expect in ("legal", "illegal"):
                settle_ms.append((t1 - t0) * 1000)
        lights.stop()
        service.stop()
        journal.close()
    return {
        "cards": len(card_ms), "boards": len(settle_ms),
        "card_to_leds_ms": {"median": round(statistics.median(card_ms), 2), "p95": round(pct(card_ms, 0.95), 2),
                            "max": round(max(card_ms), 2)},
        "settle_to_verdict_ms": {"median": round(statistics.median(settle_ms), 2),
                                 "p95": round(pct(settle_ms, 0.95), 2), "max": round(max(settle_ms), 2)},
    }


def start_sim(journal: Path, new: bool, extra: list[str]) -> tuple[subprocess.Popen, float, str]:
    cmd = [str(ROOT / ".venv" / "bin" / "dogtable"), "sim", "--port", "0", "--no-browser", "--journal", str(journal)]
    cmd += (["--new"] if new else []) + extra
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    url = ""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("open "):
            url = line.split()[1]
            break
    _wait_for_page(url)
    return proc, time.perf_counter() - t0, url


def rss_mb(pid: int) -> tuple[float, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    val = {k: int(v.split()[0]) / 1024 for k, v in (line.split(":", 1) for line in status.splitlines())
           if k in ("VmRSS", "VmHWM")}
    return round(val["VmRSS"], 1), round(val["VmHWM"], 1)


def service_process(tmp: Path, variant: str, play_s: float) -> dict:
    journal = tmp / "sim.sqlite"
    cfg = tmp / "fast.toml"
    cfg.write_text("[service]\nbot_delay_s = 0.01\n")
    proc, new_s, url = start_sim(journal, True, ["--variant", variant, "--bots", "0,1,2,3", "--config", str(cfg)])
    try:
        # the bots play fast through the real service (journal, LEDs, sim board) for a while
        time.sleep(play_s)
        with urllib.request.urlopen(url + "api/state", timeout=5) as r:
            seq = json.loads(r.read())["seq"]
        rss, hwm = rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    # resuming: a journal holding a long game that is not over yet
    long_journal = tmp / "long.sqlite"
    j = Journal(long_journal)
    service = Service(Settings(), j)
    service.open(T.Setup(variant, 4, "highlight"))
    events = [step.event for step, _ in scripted_game(variant, 4, seed=7)][:-5]
    for ev in events:
        service.submit(ev)
    j.close()
    proc, resume_s, url = start_sim(long_journal, False, ["--variant", variant])
    try:
        with urllib.request.urlopen(url + "api/state", timeout=5) as r:
            resumed_seq = json.loads(r.read())["seq"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return {"events_played_by_bots": seq, "journal_events": len(events), "rss_mb": rss, "peak_rss_mb": hwm, "startup_new_s": round(new_s, 2),
            "startup_resume_s": round(resume_s, 2), "resumed_at_event": resumed_seq}


RUN_CONFIG = """
[table]
edition = "{variant}"
[leds]
backend = "simulated"
[encoder]
backend = "simulated"
[buttons]
backend = "simulated"
[camera]
backend = "simulated"
[service]
calibration = "{cal}"
"""


def run_process(tmp: Path, variant: str, play_s: float) -> dict:
    """`dogtable run` with every device simulated: start-up to page served, memory while the camera reads."""
    import dataclasses

    import engine
    from companion.settings import load
    from hardware.factory import simulated_camera, start_position
    from vision.calibration import calibrate
    from vision.cards import CardReader
    from vision.reader import BoardReader

    cfg = tmp / "run.toml"
    cfg.write_text(RUN_CONFIG.format(variant=variant, cal=tmp / "cal.json"))
    hw = load(cfg).hardware
    render = simulated_camera(hw)
    start = start_position(variant, hw.table.segments)
    empty = dataclasses.replace(start, pieces=tuple(() for _ in start.pieces))
    cal = calibrate(render.render(empty, frame_index=0), hw.table.segments, start.board.kind,
                    render.render(start, frame_index=1), start.field_occupancy())
    reader, cards = BoardReader(cal), CardReader(cal)
    cards.set_empty(render.render(start, frame_index=2))
    for i, card in enumerate(sorted(engine.get_variant(variant).cards)):
        frame = render.render(start, card=card, frame_index=10 + i)
        reader.measure(frame)
        cards.enrol(frame, card, reader.homography)
    cards.save(tmp / "cards.json")
    dataclasses.replace(cal, cards_path=str(tmp / "cards.json")).save(tmp / "cal.json")
    cmd = [str(ROOT / ".venv" / "bin" / "dogtable"), "run", "--config", str(cfg), "--port", "0", "--new",
           "--journal", str(tmp / "run.sqlite")]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = devices = ""
    for line in proc.stdout:
        if line.startswith("dogtable run: web page "):
            url = line.split()[4]
        if line.startswith("devices:"):
            devices = line.strip()
            break
    _wait_for_page(url)
    startup = time.perf_counter() - t0
    try:
        time.sleep(play_s)  # the camera thread reads frames through vision all along
        with urllib.request.urlopen(url + "api/state", timeout=5) as r:
            phase = json.loads(r.read())["phase"]
        rss, hwm = rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return {"run_devices": devices, "run_phase_after_start": phase, "run_startup_s": round(startup, 2),
            "run_rss_mb": rss, "run_peak_rss_mb": hwm}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--play-s", type=float, default=20.0, help="seconds the bots play in the service process")
    ap.add_argument("--run", action="store_true",
                    help="measure `dogtable run` on the simulated devices (LED rings, camera through vision) instead")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(f"latencies over {args.games} scripted {args.variant} games ...", file=sys.stderr)
        lat = latencies(args.variant, args.players, args.games, tmp, led_rings() if args.run else None)
        if args.run:
            print("dogtable run process (simulated devices, camera through vision) ...", file=sys.stderr)
            proc = run_process(tmp, args.variant, args.play_s)
        else:
            print("service process (bots playing) ...", file=sys.stderr)
            proc = service_process(tmp, args.variant, args.play_s)
    out = {"variant": args.variant, "players": args.players, **lat, **proc,
           "targets": {"card_to_leds_ms": 50, "settle_to_verdict_ms": 100, "rss_mb": 200, "startup_s": 3}}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
