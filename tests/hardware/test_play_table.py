"""The simulated table as a whole: actions change the picture and drive the simulated devices."""
from __future__ import annotations

import numpy as np

import engine
from companion.cli import main
from hardware.factory import open_devices, start_position
from hardware.selftest import run_self_test
from hardware.settings import HardwareSettings, TableSettings
from hardware.simtable import SceneEffects, SimTable
from hardware.simtable.look import load_look
from hardware.simtable.play import PlayTable, seat_edge, turn_disc

H, K = engine.HOME, engine.KENNEL


def sample(frame: np.ndarray, xy) -> np.ndarray:
    x, y = (int(round(v)) for v in xy)
    return frame[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).mean(axis=0)


def near(a: np.ndarray, b, tol: float = 70) -> bool:
    return float(np.linalg.norm(a - np.array(b, float))) < tol


def black_position(disc: int = 0) -> engine.Position:
    return engine.Position(engine.get_variant("classic"), engine.load_board("black", 4),
                           ((7, 20, K, K), (K, K, K, K), (K, K, K, K), (K, K, K, K)), None, 9, disc)


def test_seats_reach_in_from_their_own_side() -> None:
    assert [seat_edge(s, 4) for s in range(4)] == ["bottom", "left", "top", "right"]
    assert seat_edge(3, 6) == "top"


def test_turning_the_disc_carries_pieces_and_dog_and_counts_quarters() -> None:
    pos = black_position()
    after = turn_disc(pos, +1)
    assert after.pieces[0] == (20, 23, K, K) and after.black_dog == 25 and after.disc == 1
    back = turn_disc(after, -1)
    assert back.pieces == pos.pieces and back.black_dog == 9 and back.disc == 0


def test_move_piece_shows_a_hand_then_the_piece_on_its_new_field() -> None:
    pos = engine.parse_position({"variant": "classic", "pieces": [["T0", "K", "K", "K"], None, ["K"] * 4, None]})
    after = engine.parse_position({"variant": "classic", "pieces": [["T5", "K", "K", "K"], None, ["K"] * 4, None]})
    table = PlayTable(pos, SimTable(effects=SceneEffects.clean()), frames_per_move=2)
    look = load_look()
    skin = look.skin_tones[0]
    table.move_piece(after, "T0", "T5", seat=0)
    frames = [table.frame() for _ in range(table.pending_frames)]
    st = table.table
    assert near(sample(frames[1], st.pixel_of("T0")), skin, 60)  # the hand is on the piece
    final = table.frame()
    assert table.pending_frames == 0 and table.position is after
    assert near(sample(final, st.pixel_of("T5")), look.seat_bgr("red"))
    assert not near(sample(final, st.pixel_of("T0")), look.seat_bgr("red"), 90)


def test_play_card_puts_it_on_the_discard_zone() -> None:
    pos = start_position("classic", 4)
    table = PlayTable(pos, SimTable(effects=SceneEffects.clean()), frames_per_move=1)
    table.play_card("swap", seat=0)
    table.settle()
    frame = table.frame()
    c = table.table.pixel_of_mm(table.table.geometry.discard_centre)
    colour = load_look().cards["swap"].colour
    assert near(sample(frame, (c[0] - 15, c[1] + 25)), colour, 60)


def test_simulated_devices_work_together_and_self_test_passes() -> None:
    settings = HardwareSettings(table=TableSettings(edition="black"))
    with open_devices(settings, simulate=True) as dev:
        assert dev.problems == {}
        table = dev.table
        assert table.position.board.disc_fields
        # Turning the disc drives the encoder's mock pins through the frames of the turn.
        table.turn_disc(-1, seat=1)
        while table.pending_frames:
            table.frame()
        turns = dev.encoder.read(now=dev.encoder.clock() + 5)
        assert [t.direction for t in turns] == [-1] and table.position.disc == 3
        # LEDs shown by the service glow on the simulated table.
        dev.leds.show({"T5": (0, 255, 0)})
        assert table.leds.lit_fields(dev.leds.ledmap) == {"T5": (0, 128, 0)}
        table.press("hint")
        assert [e.name for e in dev.buttons.read() if e.kind == "press"] == ["hint"]
        checks = run_self_test(dev)
        assert [(c.device, c.ok) for c in checks] == [("leds", True), ("encoder", True), ("buttons", True),
                                                      ("camera", True)], checks


def test_hw_test_command_simulated_and_on_a_machine_without_hardware(tmp_path, capsys) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[table]\nseed = 1\n")
    assert main(["hw", "test", "--simulate", "--config", str(cfg), "--save-frame", str(tmp_path / "f.png")]) == 0
    out = capsys.readouterr().out
    assert "working: leds, encoder, buttons, camera" in out and (tmp_path / "f.png").exists()
    code = main(["hw", "test", "--config", str(cfg)])
    out = capsys.readouterr().out
    if "not a Raspberry Pi" in out:
        assert code == 1 and out.count("not available on this machine") == 4


def test_calibrate_encoder_command_on_the_simulated_table(capsys) -> None:
    assert main(["hw", "calibrate-encoder", "--simulate", "--quarters", "2"]) == 0
    assert "12 steps in 2 quarter turn(s): set encoder.steps_per_quarter = 6" in capsys.readouterr().out
