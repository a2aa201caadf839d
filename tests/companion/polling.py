"""Waiting on a running service from a test: poll with a deadline, so a fault fails instead of hanging."""
import time


def wait_for(pred, timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return bool(pred())
