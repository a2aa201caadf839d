"""The DOG rules engine: positions, legal plays, referee verdicts, whole games.

Pure: no I/O beyond reading its own packaged data files, no clock, no threads.

    import engine
    pos = engine.parse_position(obj)
    plays = engine.legal_moves(pos, "7", seat=0)
    plays[0].result.to_json()
    play = engine.parse_play(pos, "7: T3-T5, T20-H1", seat=0)
    verdict = engine.check(before, after, "7", seat=0)
"""
from engine.disc import turn_disc
from engine.errors import CardError, DataError, EngineError, NotationError, PositionError
from engine.geometry import BoardGeometry, load_geometry, parse_field_id
from engine.locations import HOME, KENNEL, is_home, is_track, loc_name
from engine.moves import Play, legal_moves
from engine.position import Position, parse_position
from engine.reading import parse_play
from engine.referee import Verdict, check
from engine.rulesdata import ALL_CARDS, Board, Variant, get_variant, load_board, load_variants

__all__ = [
    "ALL_CARDS", "Board", "BoardGeometry", "CardError", "DataError", "EngineError", "HOME", "KENNEL",
    "NotationError", "Play", "Position", "PositionError", "legal_moves", "Variant", "Verdict", "check", "get_variant", "is_home", "is_track", "load_board",
    "load_geometry", "load_variants", "loc_name", "parse_field_id", "parse_play", "parse_position", "turn_disc",
]
