"""The simulated table: positions rendered as the overhead camera sees them, and a table to play on.

    from hardware.simtable import SimTable, CameraPose, SceneEffects, Hand
    table = SimTable(segments=4, seed=0)
    frame = table.render(position, lit={"T5": (0, 255, 0)}, card="7", hand=Hand(target="T5"))
"""
from hardware.simtable.hand import Hand
from hardware.simtable.pose import CameraPose
from hardware.simtable.render import SceneEffects, SimTable, piece_fields

__all__ = ["CameraPose", "Hand", "SceneEffects", "SimTable", "piece_fields"]
