"""Camera sources: a USB/V4L2 camera (OpenCV), the Pi camera (picamera2), a file, the simulated table.

Every source returns BGR uint8 frames from `read()`. Exposure and white balance are fixed
where the backend allows ("lock": let the automatics settle, then freeze them), because
vision compares field colours over minutes and a drifting auto-exposure moves them.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Protocol

import numpy as np

from hardware.errors import DeviceUnavailable, HardwareError
from hardware.machine import is_raspberry_pi

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class CameraSource(Protocol):
    name: str

    def read(self) -> np.ndarray: ...
    def close(self) -> None: ...


def _parse_manual(value: str, what: str) -> int | None:
    if value in ("auto", "lock"):
        return None
    try:
        return int(value)
    except ValueError:
        raise HardwareError(f"camera.{what} must be \"auto\", \"lock\" or a number, not {value!r}") from None


class OpenCvCamera:
    """A V4L2 camera through OpenCV (USB webcams; not CSI cameras on the libcamera stack)."""

    def __init__(self, device: str | int = "/dev/video0", width: int = 1280, height: int = 720, fps: int = 15,
                 exposure: str = "lock", white_balance: str = "lock", settle_s: float = 1.0) -> None:
        import cv2

        self.name = f"opencv {device}"
        dev: str | int = int(device) if isinstance(device, str) and device.isdigit() else device
        if isinstance(dev, str) and not Path(dev).exists():
            raise DeviceUnavailable(f"camera {dev}: no such device (is it plugged in? see `v4l2-ctl --list-devices`)")
        self.cap = cv2.VideoCapture(dev, cv2.CAP_V4L2)
        if not self.cap.isOpened():
            raise DeviceUnavailable(f"camera {dev}: cannot open it (busy, or not a V4L2 capture device)")
        self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.cap.set(cv2.CAP_PROP_FPS, fps)
        self._fix(exposure, white_balance, settle_s)

    def _fix(self, exposure: str, white_balance: str, settle_s: float) -> None:
        import cv2

        exp = _parse_manual(exposure, "exposure")
        wb = _parse_manual(white_balance, "white_balance")
        if "lock" in (exposure, white_balance):
            end = time.monotonic() + settle_s
            while time.monotonic() < end:
                self.cap.read()
        # V4L2 through OpenCV: auto exposure 3 = on, 1 = manual; exposure in units of 100 us.
        if exposure == "lock":
            exp_now = self.cap.get(cv2.CAP_PROP_EXPOSURE)
            self.cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
            self.cap.set(cv2.CAP_PROP_EXPOSURE, exp_now)
        elif exp is not None:
            self.cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
            self.cap.set(cv2.CAP_PROP_EXPOSURE, exp / 100)
        if white_balance == "lock":
            t = self.cap.get(cv2.CAP_PROP_WB_TEMPERATURE)
            self.cap.set(cv2.CAP_PROP_AUTO_WB, 0)
            if t > 0:
                self.cap.set(cv2.CAP_PROP_WB_TEMPERATURE, t)
        elif wb is not None:
            self.cap.set(cv2.CAP_PROP_AUTO_WB, 0)
            self.cap.set(cv2.CAP_PROP_WB_TEMPERATURE, wb)

    def read(self) -> np.ndarray:
        ok, frame = self.cap.read()
        if not ok or frame is None:
            raise HardwareError(f"{self.name}: no frame (camera unplugged?)")
        return frame

    def close(self) -> None:
        self.cap.release()


class PiCamera2Source:
    """The Pi camera (CSI) through picamera2; OpenCV cannot read it on the libcamera stack."""

    def __init__(self, width: int = 1280, height: int = 720, fps: int = 15, exposure: str = "lock",
                 white_balance: str = "lock", settle_s: float = 1.0, model: str | None = None) -> None:
        self.name = "picamera2"
        if not is_raspberry_pi(model):
            raise DeviceUnavailable("camera (picamera2): not available on this machine (not a Raspberry Pi); "
                                    "set camera.backend = \"simulated\", \"opencv\" or \"file\"")
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise DeviceUnavailable("camera (picamera2): the library is not installed; "
                                    "run: sudo apt install python3-picamera2") from None
        try:
            self.cam = Picamera2()
        except (RuntimeError, IndexError) as exc:
            raise DeviceUnavailable(f"camera (picamera2): no camera found ({exc}); check the ribbon cable") from None
        # "RGB888" is B, G, R in memory: exactly OpenCV's BGR.
        config = self.cam.create_video_configuration(
            main={"size": (width, height), "format": "RGB888"},
            controls={"FrameDurationLimits": (int(1e6 / fps), int(1e6 / fps))})
        self.config = config
        # the sensor's whole picture, for a crop at full resolution (`read_zone`)
        self.still_config = self.cam.create_still_configuration(main={"format": "RGB888"})
        self.locked: dict = {}
        self.cam.configure(config)
        self.cam.start()
        exp = _parse_manual(exposure, "exposure")
        wb = _parse_manual(white_balance, "white_balance")
        if "lock" in (exposure, white_balance):
            time.sleep(settle_s)
            meta = self.cam.capture_metadata()
            controls = {}
            if exposure == "lock":
                controls.update(AeEnable=False, ExposureTime=meta["ExposureTime"], AnalogueGain=meta["AnalogueGain"])
            if white_balance == "lock":
                controls.update(AwbEnable=False, ColourGains=meta["ColourGains"])
            self.cam.set_controls(controls)
            self.locked = controls
        if exp is not None:
            self.cam.set_controls({"AeEnable": False, "ExposureTime": exp})
        if wb is not None:
            self.cam.set_controls({"AwbEnable": False, "ColourGains": _gains_for_kelvin(wb)})

    def read(self) -> np.ndarray:
        return self.cam.capture_array("main")

    def read_zone(self, box: tuple[int, int, int, int], frames: int) -> list[np.ndarray]:
        """`frames` pictures of `box` (x0, y0, w, h: pixels of `read()`'s picture) at the sensor's full
        resolution: the camera switches to its still mode for them (a fraction of a second, once a
        board comes to rest), with the exposure and white balance the video mode was locked to."""
        video_crop = self.cam.capture_metadata()["ScalerCrop"]  # (x, y, w, h) of the sensor in read()'s picture
        vw, vh = self.config["main"]["size"]
        self.cam.switch_mode(self.still_config)
        try:
            if self.locked:
                self.cam.set_controls(self.locked)
            still_crop = self.cam.capture_metadata()["ScalerCrop"]
            sw, sh = self.still_config["main"]["size"]
            shots = [self.cam.capture_array("main") for _ in range(max(1, frames))]
        finally:
            self.cam.switch_mode(self.config)
            if self.locked:
                self.cam.set_controls(self.locked)
        # read()'s pixel -> sensor pixel -> the still picture's pixel; the crop covers `box` exactly
        x0, y0, w, h = box

        def still_px(u: float, v: float) -> tuple[int, int]:
            xs = video_crop[0] + u * video_crop[2] / vw
            ys = video_crop[1] + v * video_crop[3] / vh
            return (int(round((xs - still_crop[0]) * sw / still_crop[2])),
                    int(round((ys - still_crop[1]) * sh / still_crop[3])))

        (a, b), (c, d) = still_px(x0, y0), still_px(x0 + w, y0 + h)
        a, b, c, d = max(a, 0), max(b, 0), min(c, sw), min(d, sh)
        if c - a < w or d - b < h:  # the still mode sees less than the video mode here
            return []
        return [shot[b:d, a:c] for shot in shots]

    def close(self) -> None:
        self.cam.stop()
        self.cam.close()


def _gains_for_kelvin(k: int) -> tuple[float, float]:
    """Rough (red, blue) gains for a colour temperature: warm light needs less red gain."""
    t = min(max(k, 2500), 8000)
    return (round(1.2 + (t - 2500) / 5500 * 1.4, 2), round(2.6 - (t - 2500) / 5500 * 1.3, 2))


class FileSource:
    """An image (returned every time) or a video (looped)."""

    def __init__(self, path: str, width: int = 0, height: int = 0) -> None:
        import cv2

        self.name = f"file {path}"
        p = Path(path)
        if not p.exists():
            raise DeviceUnavailable(f"camera file {path}: no such file")
        self.size = (width, height) if width and height else None
        self.image: np.ndarray | None = None
        self.cap = None
        if p.suffix.lower() in IMAGE_SUFFIXES:
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise DeviceUnavailable(f"camera file {path}: OpenCV cannot read this image")
            self.image = img
        else:
            self.cap = cv2.VideoCapture(str(p))
            if not self.cap.isOpened():
                raise DeviceUnavailable(f"camera file {path}: OpenCV cannot open this video")

    def read(self) -> np.ndarray:
        import cv2

        if self.image is not None:
            frame = self.image.copy()
        else:
            ok, frame = self.cap.read()
            if not ok:
                self.cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, frame = self.cap.read()
                if not ok:
                    raise HardwareError(f"{self.name}: the video has no frames")
        if self.size and (frame.shape[1], frame.shape[0]) != self.size:
            frame = cv2.resize(frame, self.size, interpolation=cv2.INTER_AREA)
        return frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()


class SimTableCamera:
    """Frames from the simulated table (hardware.simtable.play.PlayTable)."""

    def __init__(self, table) -> None:
        self.name = "simulated table"
        self.table = table

    def read(self) -> np.ndarray:
        return self.table.frame()

    def close(self) -> None:
        pass
