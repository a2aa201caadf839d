"""Errors a camera setup can meet; each message names the problem and what to do next."""
from __future__ import annotations


class VisionError(Exception):
    """Base class: the message is one line a user can act on."""


class CalibrationError(VisionError):
    """The frame cannot be calibrated (markers missing, board not found, image unreadable)."""


class CalibrationFileError(VisionError):
    """A saved calibration file is missing, malformed or from another version."""


class CardError(VisionError):
    """Card enrolment or recognition cannot proceed (no card in the zone, no templates)."""
