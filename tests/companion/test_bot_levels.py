"""Bot levels per seat on the simulated table ([service] bot_levels) and their config check."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import engine
from companion import table as T
from companion.config import ConfigError, load_config
from companion.sim import SimTable


def _state_with(pieces: list) -> T.TableState:
    st = T.new_state(T.Setup("classic", 4, mode="referee"))
    pos = engine.parse_position({"variant": "classic", "pieces": pieces})
    return T.apply(st, T.SetPosition(json.dumps(pos.to_json())))[0]


def test_a_seat_plays_at_the_level_the_settings_give_it() -> None:
    st = _state_with([["T10", "T40", "K", "K"], ["T15", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    st = dataclasses.replace(st, turn=0, hands=(("5",), (), (), ()))  # the table's hands: seat 0 holds a 5
    for level in ("beginner", "club", "strong"):
        sim = SimTable(st.position, bots=(0, 2), seed=4, levels=(level,))
        move = sim.bot_move(st)
        assert move.action == "play" and move.card == "5"
        if level != "beginner":  # the club evaluation takes the capture
            assert move.play.notation == "5: T10-T15"
    assert SimTable(st.position, bots=(0, 2)).levels == {}  # unlisted seats: greedy, as before


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
