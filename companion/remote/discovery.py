"""Home Assistant MQTT discovery: a table as one device with four sensors.

Pure functions returning `(topic, payload, retain)` for the table's link to publish. Home
Assistant reads a retained config per entity on `homeassistant/sensor/<node>/<object>/config`
(its discovery topic: component `sensor`, node `<table>`) and the values of all four
from one retained JSON on `dogtable/v1/tables/<table>/ha`, each sensor picking its field with a
`value_template`. An empty retained config removes an entity (`discovery_removal`).

The sensors: whose turn (a colour name), the last verdict's words, the table's presence
(online / paused / offline, an enum sensor), and the game it plays in. All but presence are
"unavailable" while the table is not online (availability follows the presence topic, whose
will says paused), so a home screen never shows a stale turn as if it were live; presence
itself stays available, or nobody would see the word "paused".
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from engine.messages import colour_name

DISCOVERY_PREFIX = "homeassistant"  # Home Assistant's default discovery prefix
ROOT = "dogtable/v1"
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}\Z")
STATE_MAX = 255  # Home Assistant refuses a sensor state longer than this
PRESENCE_OPTIONS = ("online", "paused", "offline")
# object id (also the field of the ha topic's JSON holding its value) -> (entity name, icon)
SENSORS = {
    "turn": ("Whose turn", "mdi:account-arrow-right"),
    "verdict": ("Last verdict", "mdi:gavel"),
    "presence": ("Presence", "mdi:lan-connect"),
    "game": ("Game", "mdi:cards-playing"),
}

Message = tuple[str, bytes, bool]


def _check(table: str) -> str:
    if not NAME.match(table):
        raise ValueError(f"{table!r} is not a table name ([a-z0-9][a-z0-9-]{{0,31}})")
    return table


def ha_topic(table: str) -> str:
    """Where the table publishes its sensors' values (one retained JSON)."""
    return f"{ROOT}/tables/{_check(table)}/ha"


def config_topic(table: str, sensor: str) -> str:
    # the table's name is a whole topic level: the broker's access list gives each table its own (%u)
    return f"{DISCOVERY_PREFIX}/sensor/{_check(table)}/{sensor}/config"


def discovery_messages(table: str, *, sw_version: str | None = None,
                       configuration_url: str | None = None) -> list[Message]:
    """The retained discovery configs of the table's four sensors (publish at every connect)."""
    node = f"dogtable_{_check(table)}"
    device: dict[str, Any] = {"identifiers": [node], "name": f"dogtable {table}", "manufacturer": "dogtable",
                              "model": "DOG table companion"}
    if sw_version:
        device["sw_version"] = sw_version
    if configuration_url:
        device["configuration_url"] = configuration_url  # the table's own page, one click from the device
    origin: dict[str, Any] = {"name": "dogtable"}
    if sw_version:
        origin["sw_version"] = sw_version
    out = []
    for sensor, (name, icon) in SENSORS.items():
        config: dict[str, Any] = {
            "name": name, "unique_id": f"{node}_{sensor}", "state_topic": ha_topic(table),
            "value_template": f"{{{{ value_json.{sensor} }}}}", "icon": icon, "device": device, "origin": origin,
        }
        if sensor == "presence":
            config["device_class"] = "enum"
            config["options"] = list(PRESENCE_OPTIONS)
        else:
            config["availability"] = [{
                "topic": f"{ROOT}/tables/{table}/presence",
                "value_template": "{{ 'online' if value_json.state == 'online' else 'offline' }}",
            }]
        out.append((config_topic(table, sensor), json.dumps(config, separators=(",", ":")).encode(), True))
    return out


def discovery_removal(table: str) -> list[Message]:
    """Empty retained configs: Home Assistant removes the table's entities (a table retired)."""
    return [(config_topic(table, sensor), b"", True) for sensor in SENSORS]


def _turn(state: Mapping[str, Any], lang: str) -> str:
    colours = {s["seat"]: s["colour"] for s in state["seats"]}
    phase = state["phase"]
    if phase == "over" and state.get("winner"):
        return "over: " + " & ".join(colour_name(colours[w], lang) for w in state["winner"])
    if phase in ("setup", "exchange"):
        return phase
    return colour_name(colours[state["turn"]], lang)


def ha_state_message(table: str, state: Mapping[str, Any] | None, *, presence: str, game: str | None,
                     lang: str = "en") -> Message:
    """The values of the table's sensors: `state` is `companion.table.state_to_json(state,
    viewer=None)` (None: no game), `presence` one of PRESENCE_OPTIONS, words in `lang`."""
    if presence not in PRESENCE_OPTIONS:
        raise ValueError(f"presence must be one of {', '.join(PRESENCE_OPTIONS)}, not {presence!r}")
    verdict = state.get("verdict") if state is not None else None
    words = (verdict["reason"].get(lang) or verdict["reason"].get("en", "")) if verdict else ""
    values = {
        "turn": _turn(state, lang) if state is not None else "none",
        "verdict": words[:STATE_MAX],
        "presence": presence,
        "game": game or "none",
    }
    return ha_topic(table), json.dumps(values, ensure_ascii=False, separators=(",", ":")).encode(), True
