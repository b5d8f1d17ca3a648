"""What every tool starts from: the paths, and config.toml exported to the environment
(model.dir reaches the model locator as ENYAL_MODEL_DIR, as in the daemon)."""

from __future__ import annotations

from enyal_protocol.config import Config, export_env, load
from enyal_protocol.paths import Paths, resolve


def configured() -> tuple[Paths, Config]:
    """Raises ConfigError, which the tool reports as its error."""
    paths = resolve()
    cfg = load(paths)
    export_env(cfg)
    return paths, cfg
