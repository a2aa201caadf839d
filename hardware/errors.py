"""The hardware layer's exceptions: one line each, naming the device or file and what to do."""


class HardwareError(Exception):
    """Base of every error raised by `hardware`."""


class DeviceUnavailable(HardwareError):
    """A backend that cannot run here (no Pi, library missing, device absent)."""


class DataFileError(HardwareError):
    """A hardware data file (LED map, scene look) that is missing or wrong."""
