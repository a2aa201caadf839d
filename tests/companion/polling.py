"""Waiting on a running service from a test without depending on the machine's speed.

`wait_for` polls a condition with a generous deadline, so that a fault fails instead of
hanging (never a timing assert: a busy machine only makes it wait longer).

`SteppedTable` replaces the service's camera and LED-animation threads by steps on a fake
clock: on a busy machine the threads' frames come late, a pulsing ring is caught at a
brightness far from the last frame's, and the board never reads as still. Stepped, each
frame is one 30 fps frame of table time, whatever the machine does.
"""
import time


def wait_for(pred, timeout: float = 60.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return bool(pred())


class SteppedTable:
    """Stop a started `TableDevices`' threads; step its camera loop frame by frame on a fake clock."""

    FPS = 30

    def __init__(self, td) -> None:
        td.stopping.set()  # the wall-clock threads stop; the service and the devices stay open
        for t in td.threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in td.threads), "the device threads did not stop"
        td.threads.clear()
        self.td = td
        self.now = time.monotonic()  # not before any frame the threads already fed
        td.clock = lambda: self.now
        if td.devices.leds is not None:
            td.devices.leds.clock = lambda: self.now

    def step(self) -> None:
        """One pass of `TableDevices._camera_loop`, at the next frame's time."""
        td = self.td
        self.now += 1 / self.FPS
        if td.devices.leds is not None:
            td.devices.leds.update(self.now)
        if td._blank_next:
            td._read_dark(td.devices.camera)
        td.process(td.devices.camera.read(), self.now)

    def steps(self, n: int) -> None:
        for _ in range(n):
            self.step()

    def until(self, pred, frames: int = 300) -> bool:
        """Step until pred() holds; False after `frames` frames (10 s of table time)."""
        for _ in range(frames):
            if pred():
                return True
            self.step()
        return bool(pred())
