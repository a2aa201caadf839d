"""The engine's exceptions: each message is one line a player or script author can act on."""


class EngineError(ValueError):
    """Base of every error the engine raises for bad input."""


class PositionError(EngineError):
    """A position that cannot be parsed or cannot exist on the board."""


class CardError(EngineError):
    """A card id that does not exist, or is not in the variant's deck."""


class DataError(EngineError):
    """A board, deck or edition file that is missing or wrong."""


class NotationError(EngineError):
    """A play's text that is not well formed, or names no legal play (engine.parse_play)."""
