"""The referee's words as a subscriber of the service: written to the log, and flagged plays
said aloud with espeak-ng when `[service] speak` is on and espeak-ng is installed."""
from __future__ import annotations

import logging
import shutil
import subprocess

from companion.service import Service
from companion.stream import Subscription, Update

log = logging.getLogger(__name__)


class Announcer:
    def __init__(self, service: Service) -> None:
        self.service = service
        self.subscription: Subscription = service.subscribe("speech", self.on_update)

    def on_update(self, update: Update) -> None:
        lang = self.service.lang
        for eff in update.effects:
            # words for one seat alone (a card only its holder saw) are never said aloud
            if eff.kind in ("error", "say") and eff.text and eff.to is None:
                text = eff.text.get(lang, "")
                log.info("%s", text)
                if eff.kind == "error" and self.service.settings.service.speak:
                    speak(lang, text)

    def stop(self) -> None:
        self.subscription.close()


def speak(lang: str, text: str) -> None:
    exe = shutil.which("espeak-ng") or shutil.which("espeak")
    if exe:
        subprocess.Popen([exe, "-v", lang, text],  # espeak-ng names its voices en, de, fr, it, nl
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
