"""The service's settings: the checked [service] and [web] sections, the edition and the hardware.

`companion.config` reads, merges and checks the files; `load` takes the sections the service
needs from it, and `with_overrides` lets command-line options win. The two sections are
defined (and checked) in `companion.sections`; their names are importable from here as well,
so the service's modules take all their settings from one place.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.config import load_config
from companion.errors import UserError
from companion.sections import (
    PIN_RULE,
    RemoteSettings,
    ServiceSettings,
    WebSettings,
    check_service,
    check_web,
    pin_problem,
)

__all__ = ["PIN_RULE", "RemoteSettings", "ServiceSettings", "Settings", "WebSettings", "check_service", "check_web",
           "default_state_dir", "load", "pin_problem", "with_overrides"]


def default_state_dir() -> Path:
    # systemd's StateDirectory= sets STATE_DIRECTORY; a developer's machine uses XDG.
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "dogtable"


@dataclass(frozen=True)
class Settings:
    service: ServiceSettings = ServiceSettings()
    web: WebSettings = WebSettings()
    remote: RemoteSettings = RemoteSettings()
    edition: str = "classic"  # [table] edition of the shared config
    hardware: Any = None  # hardware.settings.HardwareSettings, when read from the config
    files: tuple[str, ...] = ()

    @property
    def variant(self) -> str:
        return self.edition

    def journal_path(self) -> Path:
        return Path(self.service.journal) if self.service.journal else default_state_dir() / "journal.sqlite"

    def calibration_path(self) -> Path:
        return Path(self.service.calibration) if self.service.calibration else default_state_dir() / "calibration.json"


def load(path: str | Path | None = None) -> Settings:
    """The shared config (companion.config) with this service's [service] and [web] sections."""
    if path is not None and not Path(path).is_file():
        raise UserError(f"config file {path} does not exist (give another --config, or leave it out)")
    cfg = load_config([Path(path)] if path is not None else None)
    service = cfg.section("service")
    table = cfg.section("table")
    return Settings(service, cfg.section("web"), cfg.section("remote"), table.edition, cfg.hardware, cfg.files)


def with_overrides(settings: Settings, service: dict[str, Any], web: dict[str, Any],
                   edition: str | None = None) -> Settings:
    """Command-line options win over the files (only options the user actually gave)."""
    return replace(settings,
                   service=replace(settings.service, **{k: v for k, v in service.items() if v is not None}),
                   web=replace(settings.web, **{k: v for k, v in web.items() if v is not None}),
                   edition=edition or settings.edition)
