"""The MCU's side of the link, free of hardware: the firmware and the simulated MCU both
run this class, so what the tests exercise on a pseudo-terminal is what the Pico runs.

MicroPython rules apply as in protocol.py. Hardware (pixels, encoder, buttons, reader)
stays in main.py; it feeds this class inputs and takes bytes and pixel colours out.
"""
try:
    from firmware_bridge import protocol as P
except ImportError:  # on the MCU the modules sit side by side in the root folder
    import protocol as P

FIRMWARE_VERSION = (2, 0, 0)  # 2: protocol version 2
BOOT_POWER_ON = 0
BOOT_WATCHDOG = 1
BOOT_SOFT = 2


class Device:
    """Protocol state of one MCU: session, LED table, pending inputs, outgoing bytes.

    `ledmap` lists (first_pixel, pixel_count) per field index. Call `receive(bytes, now)`
    with what arrived, `tick(now)` often (every few ms), and write `take_output()`.
    """

    def __init__(self, ledmap, buttons=0, capabilities=None, boot_id=0, name="dogtable-pico",
                 now=0, reason=BOOT_POWER_ON, link=None):
        self.ledmap = [(int(a), int(b)) for a, b in ledmap]
        self.fields = len(self.ledmap)
        self.pixels = 0
        for first, count in self.ledmap:
            if first + count > self.pixels:
                self.pixels = first + count
        self.buttons = buttons
        if capabilities is None:
            capabilities = P.CAP_LEDS | P.CAP_ENCODER | (P.CAP_BUTTONS if buttons else 0)
        self.capabilities = capabilities
        self.boot_id = boot_id & 0xFFFF
        self.name = name
        self.started = now
        self.link = link if link is not None else P.Link()
        self.decoder = P.FrameDecoder()
        self.session = 0  # 0: none; the host must IDENTIFY first
        self.out = bytearray()
        self.staging = bytearray(4 * self.fields)  # pattern, r, g, b per field
        self.shown = bytearray(4 * self.fields)
        self.brightness = 255
        self.dirty = True
        self.commits = 0
        self.on_commit = None  # callback(bytes of `shown`), for a renderer or a test log
        self.on_deliver = None  # callback(type, seq, payload) for every delivered frame
        self.events = []  # (type, payload) waiting for window space, in order
        self.event_no = 0
        self.encoder_count = 0
        self.encoder_sent = 0
        self.encoder_acked = 0
        self.errors_sent = 0
        self.handler_errors = 0
        self.next_heartbeat = now
        # BOOT lets a host that is already talking to us notice the restart at once.
        self.out += P.encode_frame(P.MSG_BOOT, 0, 0, P.pack_boot(self.boot_id, reason))

    # --- inputs from hardware -------------------------------------------------------
    def set_encoder_count(self, count):
        self.encoder_count = count

    def button(self, index, pressed, now):
        self.event_no = (self.event_no + 1) & 0xFFFF
        self.events.append((P.MSG_BUTTON, P.pack_button(self.event_no, index, pressed, now - self.started)))

    def card(self, uid):
        self.event_no = (self.event_no + 1) & 0xFFFF
        self.events.append((P.MSG_CARD, P.pack_card(self.event_no, uid)))

    # --- bytes in -------------------------------------------------------------------
    def receive(self, data, now):
        for frame in self.decoder.feed(data):
            try:
                self.handle(frame, now)
            except Exception:  # a bug must cost one frame, not the firmware's main loop
                self.handler_errors += 1
                self._error(P.ERR_INTERNAL, frame[0], frame[1])
        old = self.decoder.last_legacy
        if old is not None:
            self.decoder.last_legacy = None
            self._answer_old_host(old)

    def _answer_old_host(self, frame):
        # A host of protocol version 1 cannot read our frames. Answer its IDENTIFY in its
        # own format, naming our version, so it tells its user to update (it reports
        # "MCU firmware speaks protocol v2") instead of timing out without a word.
        if frame[0] != P.MSG_IDENTIFY or len(frame[3]) < 3:
            return
        session = (frame[3][1] << 8) | frame[3][2]
        reply = P.pack_identify_reply(
            FIRMWARE_VERSION, self.capabilities, self.fields, self.pixels, self.buttons,
            session, self.boot_id, self.name)
        self.out += P.encode_v1(P.MSG_IDENTIFY_REPLY, reply)

    def _error(self, code, mtype, seq):
        self.errors_sent += 1
        payload = P.pack_error(code, mtype, seq, self.session)
        if self.session:
            self.out += self.link.control(P.MSG_ERROR, payload)
        else:
            self.out += P.encode_frame(P.MSG_ERROR, 0, 0, payload)

    def _drop_session(self):
        # Unacknowledged events go back to the front of the queue for the next session;
        # encoder motion is re-derived from the last count the host acknowledged.
        requeue = [e for e in self.link.reset() if e[0] in (P.MSG_BUTTON, P.MSG_CARD)]
        self.events = requeue + self.events
        self.encoder_sent = self.encoder_acked
        self.session = 0

    def handle(self, frame, now):
        mtype, seq, ack, payload = frame
        # The payload is checked before the link sees the frame: one that does not parse
        # is answered with ERROR BAD_PAYLOAD and neither delivered nor acknowledged, so
        # the host resends it (or reports the error) instead of losing it.
        try:
            value = P.parse_payload(mtype, payload)
        except P.ProtocolError:
            self._error(P.ERR_BAD_PAYLOAD, mtype, seq)
            return
        if mtype == P.MSG_IDENTIFY:
            version, session = value
            self._drop_session()
            if version != P.PROTOCOL_VERSION:
                self._error(P.ERR_PROTOCOL_VERSION, mtype, version)
            else:
                self.session = session or 1
            reply = P.pack_identify_reply(
                FIRMWARE_VERSION, self.capabilities, self.fields, self.pixels, self.buttons,
                session, self.boot_id, self.name)
            self.out += P.encode_frame(P.MSG_IDENTIFY_REPLY, 0, 0, reply)
            return
        if mtype in P.SESSION:
            return
        if not self.session:
            if mtype in P.RELIABLE:
                self._error(P.ERR_NO_SESSION, mtype, seq)
            return
        deliver, acked = self.link.on_frame(mtype, seq, ack, now, payload)
        for atype, apayload in acked:
            if atype == P.MSG_ENCODER:
                self.encoder_acked = P.unpack_encoder(apayload)[0]
        if deliver:
            if self.on_deliver is not None:
                self.on_deliver(mtype, seq, payload)
            self._dispatch(mtype, seq, value, now)

    def _dispatch(self, mtype, seq, value, now):
        """Act on a delivered frame; `value` is its payload as parse_payload gave it."""
        if mtype == P.MSG_PING:
            self.out += self.link.control(P.MSG_PONG, P.pack_pong(value, now - self.started))
        elif mtype == P.MSG_LED_SET:
            if not self.capabilities & P.CAP_LEDS:
                self._error(P.ERR_UNSUPPORTED, mtype, seq)
                return
            flags, entries = value
            for entry in entries:
                if entry[0] >= self.fields:
                    # Whole frame refused so the table never holds half a command.
                    self._error(P.ERR_FIELD_RANGE, mtype, seq)
                    return
            if flags & P.LED_FLAG_CLEAR:
                for i in range(len(self.staging)):
                    self.staging[i] = 0
            staging = self.staging
            for field, pattern, r, g, b in entries:
                at = 4 * field
                staging[at] = pattern
                staging[at + 1] = r
                staging[at + 2] = g
                staging[at + 3] = b
            if flags & P.LED_FLAG_COMMIT:
                self.shown[:] = self.staging
                self.commits += 1
                self.dirty = True
                if self.on_commit is not None:
                    self.on_commit(bytes(self.shown))
        elif mtype == P.MSG_LED_BRIGHTNESS:
            self.brightness = value
            self.dirty = True
        else:
            self._error(P.ERR_UNKNOWN_TYPE, mtype, seq)

    # --- time passes ----------------------------------------------------------------
    def tick(self, now):
        link = self.link
        if self.session and link.failed:
            self._drop_session()
            self._error(P.ERR_RETRY_LIMIT, 0, 0)
        for frame in link.poll(now):
            self.out += frame
        if self.session:
            while link.can_send():
                if self.encoder_count != self.encoder_sent:
                    delta = self.encoder_count - self.encoder_sent
                    self.encoder_sent = self.encoder_count
                    self.out += link.send(P.MSG_ENCODER, P.pack_encoder(self.encoder_count, delta), now)
                elif self.events:
                    mtype, payload = self.events.pop(0)
                    self.out += link.send(mtype, payload, now)
                else:
                    break
        if now >= self.next_heartbeat:
            self.next_heartbeat = now + P.HEARTBEAT_MS
            beat = P.pack_heartbeat(self.session, self.boot_id, now - self.started,
                                    self.decoder.corrupted, 1 if self.session else 0)
            if self.session:
                self.out += link.control(P.MSG_HEARTBEAT, beat)
            else:
                self.out += P.encode_frame(P.MSG_HEARTBEAT, 0, 0, beat)
        if self.session and link.owes_ack():
            self.out += link.ack()

    def take_output(self):
        out = bytes(self.out)
        self.out = bytearray()
        return out

    # --- pixels ---------------------------------------------------------------------
    def animated(self):
        shown = self.shown
        for i in range(0, len(shown), 4):
            if shown[i] > P.PATTERN_SOLID:
                return True
        return False

    def render(self, now, buf):
        """Fill `buf` (3 bytes per pixel, GRB as WS2812 wants) for time `now` in ms."""
        shown = self.shown
        scale = self.brightness
        t = now - self.started
        for field in range(self.fields):
            first, count = self.ledmap[field]
            at = 4 * field
            pattern = shown[at]
            r = shown[at + 1] * scale // 255
            g = shown[at + 2] * scale // 255
            b = shown[at + 3] * scale // 255
            level = 255
            if pattern == P.PATTERN_OFF:
                level = 0
            elif pattern == P.PATTERN_BLINK:
                level = 255 if t % 1000 < 500 else 0
            elif pattern == P.PATTERN_FLASH:
                level = 255 if t % 250 < 125 else 0
            elif pattern == P.PATTERN_PULSE:
                phase = t % 1500
                tri = phase if phase < 750 else 1500 - phase
                level = 25 + tri * 230 // 750
            if level != 255:
                r = r * level // 255
                g = g * level // 255
                b = b * level // 255
            if pattern == P.PATTERN_SPIN and count:
                head = (t % 1000) * count // 1000
                lit = max(1, count // 3)
                for k in range(count):
                    on = (k - head) % count < lit
                    p = 3 * (first + k)
                    buf[p] = g if on else 0
                    buf[p + 1] = r if on else 0
                    buf[p + 2] = b if on else 0
            else:
                for k in range(count):
                    p = 3 * (first + k)
                    buf[p] = g
                    buf[p + 1] = r
                    buf[p + 2] = b
        self.dirty = False
