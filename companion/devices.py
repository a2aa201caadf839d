"""The real table's devices wired to the service: what `dogtable run` adds to the web page.

`TableDevices` takes the `hardware.factory.Devices` opened from the config and turns them
into table events and light:

- LED rings show the roles per field (`companion.lights`) through `LedRings.show_roles`; a
  tick thread calls `update()` so that pulses and flashes animate, and lets the encoder
  snap a resting disc.
- disc encoder quarter turns -> `DiscTurned`.
- buttons: confirm -> the board as the camera sees it now (or "exchange done"), undo ->
  `Undo`, hint -> `AskHint`, mode -> the next mode.
- camera frames -> vision board reader (saved calibration) -> settle filter ->
  `BoardSettled`; the card on the pile -> `CardSeen` (unsure: asked on the web page).
- RFID tags from the microcontroller -> `CardSeen` through the card-tag map.

Every device is optional. A missing one is logged once and listed on the web page, and
the game goes on with what is left (the web page can enter cards and boards by hand).
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import engine
from companion import table as T
from companion.cardtags import CardTags
from companion.lights import Lights
from companion.service import Service
from companion.settings import Settings
from companion.settle_referee import SettleReferee
from companion.texts import both
from hardware.bridge import CardTag
from hardware.factory import open_devices
from hardware.settings import HardwareSettings

log = logging.getLogger(__name__)

TICK_S = 1 / 30  # LED animation and encoder settling
RETRY_S = 2.0  # a camera that failed is tried again this often
# A reading's hint (vision: "more light on the board") stays on the page until this many frames in a
# row have gone without it: a dim board gives it on most frames, not all, and the line must not flicker.
HINT_HOLD_FRAMES = 30
# Frames of a board at rest whose card readings are combined (vision.pile_cards: mean scores):
# a card lies still as long as the board does, and a few frames average the sensor's noise away.
PILE_FRAMES = 3
# A field that a frame with the LEDs blanked could not tell either is looked at again in a later
# blanked frame, at most once in this many frames: half a second at 30 fps, not a flicker.
REBLANK_FRAMES = 15
NEXT_MODE = {"referee": "highlight", "highlight": "training", "training": "referee"}
DEVICE_NAMES = ("leds", "encoder", "buttons", "camera", "bridge")


class TableDevices:
    def __init__(self, service: Service, devices: Any, settings: Settings,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.service = service
        self.devices = devices  # hardware.factory.Devices
        self.settings = settings
        self.clock = clock
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.problems: dict[str, str] = {}
        self.reader: Any = None  # vision.reader.BoardReader
        self.settle: Any = None  # vision.settle.SettleFilter
        self.stack: Any = None  # vision.still_stack.StillStack
        self.referee: SettleReferee | None = None  # what the game knows, for the filter
        self.cards: Any = None  # vision.pile_cards.PileCardReader (or the older vision.cards.CardReader)
        self.still: deque[Any] = deque(maxlen=PILE_FRAMES)  # the newest frames, for the pile once the board rests
        self.calibration: Any = None
        self.tags: Any = None  # companion.cardtags.CardTags
        self.last_status: Any = None  # vision.settle.SettleStatus of the newest frame
        self.pile: str | None = None  # the card the camera last recognised on the pile
        self.frames = 0
        self.blanked = 0  # frames taken with the LEDs blanked, to read pale pieces next to lit LEDs
        self._blank_next = False
        self._blanked_at = 0  # self.frames when the LEDs were last blanked
        self._dark: Any = None  # that frame's reading, while the board stays as it was
        self._dark_lit: Any = None
        self._said: set[str] = set()
        self.hint_keys: dict[str, str] = {}  # vision's hint codes -> companion.po keys (vision.own_colour)
        self._hint_since: dict[str, int] = {}  # hint code -> the last frame that gave it
        self.lights = Lights(service, self.show_roles)  # the rings follow the service's stream

    # --- wiring ---------------------------------------------------------------------
    def attach(self) -> None:
        """Connect every device that opened; report the others. Call after `Service.open`."""
        d = self.devices
        for name, why in d.problems.items():
            self._problem(name, f"{name} not available: {why}")
        configured = {"leds": d.settings.leds.backend, "encoder": d.settings.encoder.backend,
                      "buttons": d.settings.buttons.backend, "camera": d.settings.camera.backend}
        for name, backend in configured.items():
            if backend == "none" and name not in d.problems:
                self._problem(name, f"{name} not configured ({name}.backend = \"none\")", warn=False)
        if d.encoder is not None:
            d.encoder.when_quarter_turn = self._on_quarter_turn
        if d.buttons is not None:
            d.buttons.when_pressed = self._on_button
        if d.camera is not None:
            self._open_vision()
        self._open_card_tags()
        if d.bridge is not None:
            d.bridge.subscribe(self._on_bridge)
        self.service.set_devices_status(problems=dict(self.problems), working=self.working(), camera=None,
                                        ask_card=None, notice=None, hints=None)
        self.lights.refresh()

    def working(self) -> list[str]:
        d = self.devices
        out = [n for n in ("leds", "encoder", "buttons", "camera") if getattr(d, n) is not None]
        if "camera" in out and self.reader is None:
            out.remove("camera")
        if d.bridge is not None and self.tags is not None:
            out.append("rfid")
        return out

    def show_roles(self, roles: dict[str, str]) -> None:
        """The service's LED writer."""
        if self.devices.leds is not None:
            self.devices.leds.show_roles(roles)

    def _lights_now(self) -> dict[str, Any]:
        rings = self.devices.leds
        return {} if rings is None else dict(rings.lights)

    def lit_fields(self, lights: dict[str, Any] | None = None) -> dict[str, tuple[int, int, int] | None]:
        """Lit fields and their LED colour for vision; None where the light blinks or flashes
        (on and off between frames: vision cannot compare it with the calibration's lit look).
        `lights`: the rings' lights (field -> hardware.leds.Light), default as they are now."""
        out: dict[str, tuple[int, int, int] | None] = {}
        for f, light in (self._lights_now() if lights is None else lights).items():
            colour = getattr(light, "colour", light)
            steady = getattr(light, "pattern", "solid") in ("solid", "pulse")
            out[f] = tuple(colour) if steady else None  # type: ignore[assignment]
        return out

    def start(self) -> None:
        self._thread("device-tick", self._tick_loop)
        if self.reader is not None:
            self._thread("camera", self._camera_loop)

    def stop(self) -> None:
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=5)
        self.lights.stop()
        self.devices.close()

    def _thread(self, name: str, target: Callable[[], None]) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self.threads.append(t)

    # --- reporting ------------------------------------------------------------------
    def _problem(self, name: str, message: str, warn: bool = True) -> None:
        self.problems[name] = message
        (log.warning if warn else log.info)("%s", message)

    def _once(self, key: str, message: str) -> None:
        """Log a recurring condition (unknown tag, a disc on a board without one) once."""
        if key not in self._said:
            self._said.add(key)
            log.warning("%s", message)

    def _submit(self, event: T.Event) -> bool:
        try:
            self.service.submit(event)
        except (T.TableError, engine.EngineError) as exc:
            log.info("%s from %s not taken: %s", type(event).__name__, event.source, exc)
            self.service.set_devices_status(notice=str(exc))
            return False
        if isinstance(event, T.CardSeen):
            self.service.set_devices_status(ask_card=None, notice=None)
        return True

    # --- vision ---------------------------------------------------------------------
    def _open_vision(self) -> None:
        path = self.settings.calibration_path()
        how = (f"run `dogtable vision calibrate --camera --out {path}` first (with the service stopped); "
               "until then enter boards on the web page")
        if not Path(path).exists():
            self._problem("camera", f"camera not used: no calibration at {path}; {how}")
            return
        try:  # OpenCV may be missing on a table that reads no camera: the rest still runs
            from vision.calibration import load_calibration
            from vision.errors import VisionError
            from vision.own_colour import HINT_TEXT_KEYS
            from vision.pile_cards import load_table_card_reader
            from vision.reader import BoardReader
            from vision.settle import SettleFilter
            from vision.still_stack import StillStack
        except ImportError as exc:
            self._problem("camera", f"camera not used: the vision package cannot load ({exc})")
            return
        try:
            cal = load_calibration(path)
        except VisionError as exc:
            self._problem("camera", f"camera not used: {exc}")
            return
        pos = self.service.state.position
        if not cal.has_colours:
            self._problem("camera", f"camera not used: {path} has no learned colours; {how}")
            return
        if (cal.segments, cal.board_kind) != (pos.board.segments, pos.board.kind):
            self._problem("camera", f"camera not used: {path} is for a {cal.segments}-segment {cal.board_kind} board, "
                                    f"this game is on a {pos.board.segments}-segment {pos.board.kind} board; {how}")
            return
        self.calibration = cal
        self.reader = BoardReader(cal)
        self.stack = StillStack(self.reader)  # a still board is read from the mean of its frames: less noise
        self.hint_keys = dict(HINT_TEXT_KEYS)
        # the filter knows the game: a move with a few fields unread elsewhere still commits
        self.referee = SettleReferee(lambda: self.service.state)
        self.settle = SettleFilter(explains=self.referee.explains)
        if not cal.cards_path:
            self._problem("cards", "cards not recognised: no cards enrolled for this calibration "
                                   f"(run `dogtable vision enrol-cards --calibration {path}`); tap cards on the web page",
                          warn=False)
            return
        try:
            self.cards = load_table_card_reader(cal, cal.cards_path)
        except VisionError as exc:
            self._problem("cards", f"cards not recognised: {exc}; tap cards on the web page")

    def _camera_loop(self) -> None:
        cam = self.devices.camera
        period = 1.0 / max(1, self.devices.settings.camera.fps)
        failing = False
        while not self.stopping.is_set():
            started = self.clock()
            try:
                if self._blank_next:
                    self._read_dark(cam)
                frame = cam.read()
                self.process(frame, self.clock())
            except Exception as exc:  # an unplugged camera must not stop the referee
                if not failing:
                    log.warning("camera failed: %s (trying again every %.0f s)", exc, RETRY_S)
                    self.service.set_devices_status(camera={"kind": "failed", "message": f"camera failed: {exc}"})
                failing = True
                self.stopping.wait(RETRY_S)
                continue
            if failing:
                log.info("camera works again")
                failing = False
            # Real cameras block in read() at their frame rate; the simulated one would spin.
            self.stopping.wait(max(0.0, period - (self.clock() - started)))

    def process(self, frame: Any, t: float) -> None:
        """One camera frame: read it, feed the settle filter, submit what settled."""
        st = self.service.state
        w, h = self.calibration.resolution
        if frame.shape[1] != w or frame.shape[0] != h:
            raise ValueError(f"the camera gives {frame.shape[1]}x{frame.shape[0]} pictures but the calibration "
                             f"is for {w}x{h}: set camera.width/height or calibrate again")
        disc = None
        if self.devices.encoder is not None and st.variant.name == "black" and self.calibration.has_disc:
            disc = (st.position.disc + st.disc_delta) % 4
        lights = self._lights_now()
        lit = self.lit_fields(lights)
        reading = self.reader.read(frame, disc=disc, lit=lit)
        reading = self.stack.read(frame, reading, disc=disc, lit=lit)
        self.settle.forget(self.stack.doubted)
        reading = self._fill_from_dark(reading, lit, eye_only=[f for f, light in lights.items()
                                                               if getattr(light, "eye_only", False)])
        self._show_hints(reading.hints)
        self.referee.tell(self.settle)
        status = self.settle.feed(reading, t)
        if reading.covered:
            self.still.clear()  # a hand over the board may be laying a card
        else:
            self.still.append(frame)
        prev, self.last_status = self.last_status, status
        self.frames += 1
        if prev is None or prev.kind != status.kind or (status.kind != "settled" and prev.message != status.message):
            self.service.set_devices_status(camera={"kind": status.kind, "message": status.message})
        if status.kind != "settled":
            return
        if prev is None or prev.kind != "settled":
            # The board came to rest: look at the pile once (a card is laid with a hand, so
            # a new card always follows a cover), before the board it may go with.
            self._look_at_pile(frame, board_changed=status.committed)
        if status.committed and status.board is not None:
            self._submit(T.BoardSettled.of(status.board, "camera"))

    def _show_hints(self, hints: tuple[str, ...]) -> None:
        """What would help the camera (vision's reason codes, e.g. more light) as lines for the page, in
        every language; each kept for HINT_HOLD_FRAMES frames after the last frame that gave it."""
        before = sorted(self._hint_since)
        for h in hints:
            if h in self.hint_keys:
                self._hint_since[h] = self.frames
        for h in [h for h, seen in self._hint_since.items() if self.frames - seen > HINT_HOLD_FRAMES]:
            del self._hint_since[h]
        now = sorted(self._hint_since)
        if now != before:
            self.service.set_devices_status(hints=[both(self.hint_keys[h]) for h in now] or None)

    def _fill_from_dark(self, reading: Any, lit: dict, eye_only: Iterable[str] = ()) -> Any:
        """Unknown fields the lit LEDs made so (a dark piece in a ring of a seat's colour, white
        pieces next to lit rings) are read from a frame with the LEDs blanked, for as long as
        nothing moves. Fields lit for the eye only (a play of another table in its player's
        colour: a red ring makes a dark piece look red) are always read from that frame."""
        from vision.reader import fill_unknown, unread  # loaded with the camera's vision (_open_vision): optional

        reading = unread(reading, eye_only)
        if reading.covered or reading.problem or lit != self._dark_lit:
            self._dark = None  # a hand may have changed the board; new LEDs: look again
        if self._dark is not None and reading.unknown:
            filled = fill_unknown(reading, self._dark)
            if filled is None:
                self._dark = None  # the two frames disagree: the board changed
            elif not filled.unknown:
                return filled
            else:
                reading = filled
        # a field the blanked frame could not tell either: another look, but not every frame (flicker)
        again = self._dark is None or self.frames - self._blanked_at >= REBLANK_FRAMES
        if again and self.devices.leds is not None and self.reader.unknown_only_near_lit(reading, lit):
            self._blank_next = True
            self._dark_lit = lit
        return reading

    def _read_dark(self, cam: Any) -> None:
        """Blank the LEDs for a frame, read the board, light them again."""
        self._blank_next = False
        rings = self.devices.leds
        if rings is None or self.reader is None:
            return
        lit = self._dark_lit
        try:
            rings.show({})
            cam.read()  # a frame already on its way may still show the LEDs
            frame = cam.read()
        finally:
            self.lights.refresh()
        self.blanked += 1
        self._blanked_at = self.frames
        dark = self.reader.read(frame, lit=None)
        # kept though a field far from the LEDs is unknown in it: it may fill the fields that matter
        if not dark.covered and not dark.problem:
            self._dark = dark
            self._dark_lit = lit

    def _look_at_pile(self, frame: Any, board_changed: bool) -> None:
        if self.cards is None:
            return
        reading = self._read_pile(frame)
        if not reading.present:
            self.pile = None
            return
        if reading.ask:
            log.info("card on the pile unclear (looks like %s): asking on the web page", reading.runner_up)
            self.service.set_devices_status(ask_card={"looks_like": reading.runner_up})
            return
        st = self.service.state
        card = reading.card
        # The same card laid again: the pile looks the same, so count it when nothing is in
        # play, the board did not move and it is somebody's turn to play.
        again = card == self.pile and st.card is None and st.phase == "play" and not board_changed
        new = card != self.pile and card != st.card
        self.pile = card
        if new or again:
            self._submit(T.CardSeen(card, None, "camera"))

    def _read_pile(self, frame: Any) -> Any:
        """The card on the pile. The pile reader reads the discard zone at the camera's full resolution
        where the camera can crop it (`read_zone`: the Pi camera), else in the board's own pictures, the
        newest still ones combined; the older reader reads this frame."""
        # loaded with the camera's vision (_open_vision): optional
        from vision.pile_cards import PileCardReader, crop_homography, zone_box

        H = self.reader.homography
        if not isinstance(self.cards, PileCardReader):
            return self.cards.recognise(frame, H)
        box = zone_box(self.calibration, H, (frame.shape[1], frame.shape[0]))
        read_zone = getattr(self.devices.camera, "read_zone", None)
        crops = read_zone(box, PILE_FRAMES) if read_zone is not None else []
        if crops:
            readings = [self.cards.recognise(c, crop_homography(H, box, (c.shape[1], c.shape[0]))) for c in crops]
        else:
            readings = [self.cards.recognise(f, H) for f in (list(self.still) or [frame])]
        return self.cards.combine(readings)

    def confirm(self) -> None:
        """The confirm button: "I am done"."""
        st = self.service.state
        if st.phase == "exchange":
            self._submit(T.ExchangeDone("button"))
            return
        status = self.last_status
        if self.reader is None:
            self.service.set_devices_status(notice="confirm: no camera reads the board; enter it on the web page")
            return
        if status is None or status.kind != "settled" or status.board is None:
            message = status.message if status is not None else "no picture yet"
            self.service.set_devices_status(notice=f"confirm: the board cannot be read now ({message})")
            return
        self._submit(T.BoardSettled.of(status.board, "button"))

    # --- encoder, buttons, bridge ----------------------------------------------------
    def _on_quarter_turn(self, turn: Any) -> None:
        if self.service.state.variant.name != "black":
            self._once("disc", f"the disc encoder turned, but {self.service.state.variant.name} has no disc: ignored")
            return
        self._submit(T.DiscTurned(turn.direction, "encoder"))

    def _on_button(self, press: Any) -> None:
        name = press.name
        if name == "confirm":
            self.confirm()
        elif name == "undo":
            self._submit(T.Undo("button"))
        elif name == "hint":
            self._submit(T.AskHint("button"))
        elif name == "mode":
            self._submit(T.SetMode(NEXT_MODE[self.service.state.mode], "button"))

    def _open_card_tags(self) -> None:
        path = self.settings.service.card_tags
        if not path:
            return
        self.tags = CardTags.load(path)  # validated with the config already; errors are UserErrors
        if self.devices.bridge is None:
            self._problem("rfid", f"card tags {path} are set but the bridge did not open: RFID cards are not read")

    def _on_bridge(self, event: Any) -> None:
        if not isinstance(event, CardTag):
            return
        if self.tags is None:
            self._once("notags", f"a card tag ({event.uid_hex}) was scanned, but service.card_tags is not set")
            return
        card = self.tags.card_for(event.uid)
        if card is None:
            message = f"unknown card tag {event.uid_hex}: add it to {self.tags.source}"
            log.warning("%s", message)
            self.service.set_devices_status(notice=message)
            return
        self.pile = card  # the camera must not report the same card again
        self._submit(T.CardSeen(card, None, "rfid"))

    # --- the tick -------------------------------------------------------------------
    def _tick_loop(self) -> None:
        rings, enc = self.devices.leds, self.devices.encoder
        while not self.stopping.wait(TICK_S):
            try:
                if rings is not None:
                    rings.update()
                if enc is not None:
                    enc.poll()
            except Exception as exc:  # a broken strip must not stop the referee
                self._once("tick", f"LED/encoder update failed: {exc}")


def open_table_devices(settings: Settings, *, link: Any = None) -> Any:
    """The devices of `settings.hardware` (from the config); never raises for a missing device."""
    hw = settings.hardware if settings.hardware is not None else HardwareSettings()
    return open_devices(hw, link=link, bridge=bool(settings.service.card_tags))
