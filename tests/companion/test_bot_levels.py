"""Bot levels per seat on the simulated table ([service] bot_levels) and their config check."""
from __future__ import annotations

import dataclasses
import json
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
from companion.simulated.players import Bots
from companion.simulated.table import SimulatedTable
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
