"""Bot levels per seat on the simulated table ([service] bot_levels) and their config check."""
from __future__ import annotations

import dataclasses
import json
import logging
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

import engine
from companion import table as T
from companion.config import ConfigError, load_config
from companion.journal import Journal
from companion.service import Service
from companion.settings import ServiceSettings, Settings, WebSettings
from companion.simulated import players
from companion.simulated import table as sim_table
from companion.simulated.players import Bots
from companion.simulated.table import SimulatedTable
from polling import wait_for
from simulated_rig import close


def _state_with(pieces: list) -> T.TableState:
    st = T.new_state(T.Setup("classic", 4, mode="referee"))
    pos = engine.parse_position({"variant": "classic", "pieces": pieces})
    return T.apply(st, T.SetPosition(json.dumps(pos.to_json())))[0]


def test_a_seat_plays_at_the_level_the_settings_give_it() -> None:
    st = _state_with([["T10", "T40", "K", "K"], ["T15", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    st = dataclasses.replace(st, turn=0, hands=(("5",), (), (), ()))  # the table's hands: seat 0 holds a 5
    for level in ("beginner", "club", "strong"):
        move = Bots((0, 2), (level,), seed=4).move(st)
        assert move.action == "play" and move.card == "5"
        if level != "beginner":  # the club evaluation takes the capture
            assert move.play.notation == "5: T10-T15"
    assert Bots((0, 2)).levels == {}  # unlisted seats: greedy, as before


def test_unknown_or_too_many_levels_are_named_in_the_config_check(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[service]\nbots = [1]\nbot_levels = ["grandmaster"]\n')
    with pytest.raises(ConfigError) as err:
        load_config([bad])
    assert "service.bot_levels: must be a list of bot levels" in str(err.value.problems[0])
    bad.write_text('[service]\nbots = [1]\nbot_levels = ["strong", "club"]\n')
    with pytest.raises(ConfigError) as err:
        load_config([bad])
    assert "2 levels for 1 bot seats" in str(err.value.problems[0])
    good = tmp_path / "good.toml"
    good.write_text('[service]\nbots = [1, 3]\nbot_levels = ["strong", "beginner"]\n')
    cfg = load_config([good])
    assert cfg is not None


def _strong_table(tmp_path: Path, think_s: float = 2.5) -> SimulatedTable:
    service = replace(ServiceSettings(), bots=(0, 1, 2, 3), bot_levels=("strong", "greedy", "greedy", "greedy"),
                      bot_delay_s=0.0, accept_flash_s=0.0, bot_think_s=think_s)
    return _open(Settings(service, WebSettings(pin="1")), tmp_path)


def _open(settings: Settings, tmp_path: Path) -> SimulatedTable:
    s = settings.service
    table = SimulatedTable(Service(settings, Journal(tmp_path / "j.sqlite")), bots=s.bots, levels=s.bot_levels,
                           seed=5, think_s=s.bot_think_s)
    table.open(T.Setup("classic", 4, "highlight"))
    return table


def test_the_service_s_strong_seat_counts_cards_remembers_its_gift_and_looks_ahead(tmp_path: Path) -> None:
    sim = _strong_table(tmp_path)
    svc = sim.service
    asked_for: list[float] = []
    checks: list[int] = []

    def deadline_after(seconds: float):  # the service's clock, faked: never up, but every look counted
        asked_for.append(seconds)
        return lambda: bool(checks.append(1))

    sim.bots.deadline_after = deadline_after
    gifts: dict[int, str] = {}
    laid_down: Counter = Counter()  # the cards that left a hand this round, as the table shows them
    looked_ahead = 0
    for _ in range(400):
        before = svc.state
        if before.phase == "over" or before.round_no > 0:
            break
        if before.phase == "play" and before.turn == 0:
            view = T.seat_view(before, 0)
            assert view.hand == before.hands[0] and view.gift == gifts[0]  # the card it gave its partner
            assert Counter(view.seen) == laid_down
            assert dict(view.hand_sizes) == {s: len(before.hands[s]) for s in before.seats}
            checks.clear()
        assert sim.bot_step()
        st = svc.state
        gifts.update({s: c for s, c in st.gifts + st.given if c is not None})
        if before.phase == "play" and st.round_no == before.round_no:
            for s in st.seats:
                laid_down.update(Counter(before.hands[s]) - Counter(st.hands[s]))
        if before.phase == "play" and before.turn == 0 and checks:
            looked_ahead += 1  # the strong seat's look-ahead asked the service's deadline
    assert set(gifts) == {0, 1, 2, 3}
    assert asked_for and set(asked_for) == {2.5}
    assert looked_ahead >= 1
    close(sim)


def test_a_resumed_service_still_knows_the_gift_and_the_cards_laid_down(tmp_path: Path) -> None:
    table = _strong_table(tmp_path, think_s=0.05)
    svc = table.service
    while not (svc.state.phase == "play" and sum(svc.state.played) >= 5):
        assert table.bot_step()
    before = T.seat_view(svc.state, 0)
    assert before.gift is not None and len(before.seen) == 5
    close(table)
    again = _open(svc.settings, tmp_path)
    assert again.service.state.seq == svc.state.seq  # resumed, not a new game
    assert T.seat_view(again.service.state, 0) == before
    close(again)


def test_the_service_s_deadline_stops_the_strong_seat_s_search_and_it_still_plays(tmp_path: Path) -> None:
    table = _strong_table(tmp_path)
    svc = table.service
    checks: list[int] = []
    table.bots.deadline_after = lambda seconds: lambda: bool(checks.append(1)) or True  # time is up at once
    strong_plays = 0
    for _ in range(400):
        st = svc.state
        if st.phase == "over" or st.round_no > 1:
            break
        strong_turn = st.phase == "play" and st.turn == 0
        assert table.bot_step()
        if strong_turn and svc.state.verdict is not st.verdict and svc.state.verdict.play:
            strong_plays += 1
            assert svc.state.verdict.legal and svc.state.verdict.seat == 0
    assert strong_plays >= 3 and checks  # it asked, was told to stop, and played all the same
    close(table)


@pytest.mark.parametrize("value", ["0", "-1", "31", "nan", '"fast"'])
def test_a_bad_bot_think_time_is_one_clear_line_and_the_cli_exits_2(tmp_path: Path, value: str, capsys) -> None:
    from companion.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text(f"[service]\nbot_think_s = {value}\n")
    with pytest.raises(ConfigError) as err:
        load_config([bad])
    assert "service.bot_think_s" in str(err.value.problems[0])
    assert main(["config", "check", "--file", str(bad)]) == 2
    out = capsys.readouterr()
    lines = [line for line in (out.err + out.out).splitlines() if "bot_think_s" in line]
    assert len(lines) == 1 and "Traceback" not in out.err


class _Broken:
    """A bot whose search fails, as an engine bug would make it."""

    def __init__(self, *_a) -> None:
        pass

    def choose(self, *_a):
        raise IndexError("tuple index out of range")


def test_a_failing_bot_logs_once_and_its_seat_plays_on_one_level_simpler(monkeypatch, caplog) -> None:
    real = players.make_bot
    monkeypatch.setattr(players, "make_bot", lambda name, *a: _Broken() if name in ("strong", "club") else real(name, *a))
    st = _state_with([["T10", "T40", "K", "K"], ["T15", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    st = dataclasses.replace(st, turn=0, hands=(("5", "8"), (), (), ()))
    bots = Bots((0,), ("strong",), seed=4)
    with caplog.at_level(logging.ERROR, logger="companion.simulated.players"):
        for _ in range(3):
            move = bots.move(st)
            assert move.action == "play" and move.card in ("5", "8")
    assert bots.level(0) == "greedy"  # strong failed, then club: greedy plays on
    failures = [r.getMessage() for r in caplog.records]
    assert len(failures) == 2 and "bot strong failed" in failures[0] and "bot club failed" in failures[1]


def test_the_bots_loop_goes_on_after_a_bot_fails(tmp_path: Path, monkeypatch, caplog) -> None:
    monkeypatch.setattr(sim_table, "BOT_RETRY_S", 0.0)
    settings = Settings(replace(ServiceSettings(), bots=(0, 1, 2, 3), bot_delay_s=0.0, accept_flash_s=0.0),
                        WebSettings(pin="1"))
    table = _open(settings, tmp_path)
    calls: list[int] = []
    step = table.bot_step

    def flaky() -> bool:
        calls.append(1)
        if len(calls) <= 3:
            raise RuntimeError("a bot's evaluation failed")
        return step()

    table.bot_step = flaky
    with caplog.at_level(logging.ERROR, logger="companion.simulated.table"):
        table.start_bots()
        assert wait_for(lambda: table.service.state.phase == "play" and len(table.service.state.history) > 6)
    assert table.threads[0].is_alive()
    assert sum("a bot failed" in r.getMessage() for r in caplog.records) == 1  # the same failure, logged once
    close(table)


def _human_at_seat_0(tmp_path: Path, window: float) -> SimulatedTable:
    """Seats 1-3 are bots, Red (seat 0) a person; the exchange done; Red to play."""
    settings = Settings(replace(ServiceSettings(), bot_delay_s=0.0, accept_flash_s=0.0), WebSettings(pin="1"))
    table = SimulatedTable(Service(settings, Journal(tmp_path / "j.sqlite")), seed=5, undo_window_s=window)
    table.open(T.Setup("classic", 4, "highlight"))
    table.set_bots([0, 1, 2, 3])
    while table.service.state.phase == "exchange":
        assert table.bot_step()
    table.set_bots([1, 2, 3])
    return table


def _red_plays(table: SimulatedTable) -> None:
    st = table.service.state
    assert st.turn == 0
    card = next(c for c in st.hands[0] if engine.legal_moves(st.position, c, 0))
    table.submit(T.CardSeen(card, 0, "web"))
    table.stage_play(0)
    assert table.service.state.turn == 1


def test_the_bots_wait_the_undo_window_after_a_person_s_play_so_it_can_be_taken_back(tmp_path: Path) -> None:
    table = _human_at_seat_0(tmp_path, window=1000.0)
    assert table.view()["undo_window_s"] == 1000.0
    _red_plays(table)
    table.start_bots()  # Blue's bot waits: Red can still take the play back alone
    assert wait_for(lambda: table.undo_window_left() > 0)
    table.submit(T.Undo("web", seat=0))
    assert table.service.state.turn == 0 and table.service.state.history[-1].kind == "give"
    close(table)


def test_once_a_bot_played_after_a_person_their_own_undo_is_refused(tmp_path: Path) -> None:
    table = _human_at_seat_0(tmp_path, window=0.0)
    _red_plays(table)
    table.start_bots()
    assert wait_for(lambda: table.service.state.history[-1].seat != 0)  # Blue's bot played (or laid down)
    table.set_bots([])
    with table.lock:  # no bot acts between the look and the undo
        bot = table.service.state.history[-1]
        with pytest.raises(T.TableError, match="^(Blue|Green|Yellow) has .* since: only the host can take back more$"):
            table.submit(T.Undo("web", seat=0))
        assert table.service.state.history[-1] == bot  # the bot's action stands
    close(table)
