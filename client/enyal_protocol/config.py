"""config.toml, and ENYAL_* environment variables over it, with where each value came from.

    [daemon]
    idle_timeout = 900      # ENYAL_IDLE_TIMEOUT; seconds, 0 = never
    log_level = "INFO"      # ENYAL_LOG_LEVEL
    max_connections = 256   # ENYAL_MAX_CONNECTIONS; more are refused (and fewer are served
                            # when the open-file limit leaves less room)
    [model]
    dir = "/opt/minilm"     # ENYAL_MODEL_DIR
    url = "https://…"       # ENYAL_MODEL_URL; where `enyal model fetch` downloads from
    [recall]
    floor = 0.2             # ENYAL_RECALL_FLOOR; `enyal recall` leaves out results whose
                            # meaning and words both score below it (--all keeps them)
    relative = 0.5          # ENYAL_RECALL_RELATIVE; and those less relevant than this share
                            # of the best result's: the list ends where relevance ends
    [secrets]
    redact = true           # ENYAL_REDACT_SECRETS; false stores credentials verbatim
    allow = ["AKIA…"]       # values never redacted (a key that is public on purpose)
    patterns = [            # more secret shapes: a regex, its kind, cheap keywords
      { kind = "acme-key", pattern = "acme_[0-9a-f]{32}", keywords = ["acme_"] },
    ]
    [decay]                 # half-life in days of each type's confidence (ENYAL_DECAY_FACT, …)
    fact = 30               # unset: the built-in one (fact 90, preference 180, decision 300,
                            # convention 450, pattern 225)
    [consolidate]
    every_hours = 24        # ENYAL_CONSOLIDATE_EVERY_HOURS; the daemon merges near-duplicates
                            # and removes expired entries this often; 0 (the default) = never
    [index]
    watch = true            # ENYAL_INDEX_WATCH; the daemon re-indexes what `enyal index` was
                            # given when files there change (default false)
    debounce = 3            # ENYAL_INDEX_DEBOUNCE; seconds without a further change first
    [hooks]                 # each `enyal hook EVENT` on (the default) or off (it prints {})
    pre_tool_use = false    # ENYAL_HOOKS_PRE_TOOL_USE; one key per event, in snake case

The file lives in the platform's config dir (or ENYAL_HOME). Precedence: the
environment, then the file, then the default. ENYAL_HOME and ENYAL_SOCKET stay
environment-only: a client needs them to find the config file and the daemon
before it has read anything, and every client (CLI, MCP shim, plugins) sees the
environment, whereas a key in a file is seen only by those that read it.
Light on purpose (tomllib only): clients read it before spawning a daemon.
"""

from __future__ import annotations

import os

from . import config_cache, str_paths
from .kinds import CONTENT_TYPES
from .lazy_re import LazyPattern
from .paths import Paths, Places, places

TYPE_CHECKING = False  # typing's own constant would import typing: records.py says why
if (
    TYPE_CHECKING
):  # collections.abc too: annotations alone, and the hook imports it for nothing else
    from collections.abc import Callable, Mapping, MutableMapping
    from typing import Any, BinaryIO, NamedTuple
else:
    from .records import NamedTuple

HUB_URL = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
# The client hook events `enyal hook EVENT` answers (Claude Code's, in kebab case); each
# is on unless config.toml's [hooks] turns it off.
HOOK_EVENTS = (
    "session-start",
    "prompt-submit",
    "pre-tool-use",
    "post-tool-use",
    "subagent-start",
    "pre-compact",
    "stop",
    "session-end",
    "instructions-loaded",
    "file-changed",
)


class ConfigError(Exception):
    """A config file or ENYAL_* variable that cannot be used; the message names which."""


def _seconds(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError("must be a number of seconds")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError("must be a number of seconds") from None
    if not 0 <= value < 10**9:
        raise ValueError("must be a number of seconds, 0 or more")
    return value


def _share(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError("must be a number from 0 to 1")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError("must be a number from 0 to 1") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError("must be a number from 0 to 1")
    return value


def _days(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError("must be a number of days, more than 0")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError("must be a number of days, more than 0") from None
    if not 0 < value <= 36_500:  # NaN fails this too
        raise ValueError("must be a number of days, more than 0 (at most 36500)")
    return value


def _hours(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError("must be a number of hours, 0 (never) or more")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError("must be a number of hours, 0 (never) or more") from None
    if not 0 <= value <= 8760:
        raise ValueError("must be a number of hours, 0 (never) to 8760")
    return value


def _debounce(raw: Any) -> float:
    value = _seconds(raw)
    if not 0.05 <= value <= 3600:
        raise ValueError("must be a number of seconds from 0.05 to 3600")
    return value


def _count(raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise ValueError("must be a whole number from 1 to 65536")
    try:
        value = int(raw)
    except ValueError:
        raise ValueError("must be a whole number from 1 to 65536") from None
    if not 1 <= value <= 65536:
        raise ValueError("must be a whole number from 1 to 65536")
    return value


def _port(raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int | str) or not str(raw).isdigit():
        raise ValueError("must be a TCP port, 1024 to 65535")
    value = int(raw)
    if not 1024 <= value <= 65535:
        raise ValueError("must be a TCP port, 1024 to 65535")
    return value


def _level(raw: Any) -> str:
    if not isinstance(raw, str) or raw.upper() not in LOG_LEVELS:
        raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
    return raw.upper()


def _path(raw: Any) -> str:
    if not isinstance(raw, str):
        raise ValueError("must be a path (a string)")
    return str_paths.pure(os.path.expanduser(raw)) if raw else ""  # str(Path.expanduser())


def _url(raw: Any) -> str:
    if not isinstance(raw, str) or not raw.startswith(("https://", "http://", "file://")):
        raise ValueError("must be an https://, http:// or file:// URL")
    return raw.rstrip("/")


def _flag(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in (
        "1",
        "true",
        "yes",
        "on",
        "0",
        "false",
        "no",
        "off",
    ):
        return raw.lower() in ("1", "true", "yes", "on")
    raise ValueError("must be true or false")


def _strings(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(x, str) and x for x in raw):
        raise ValueError("must be a list of non-empty strings")
    return tuple(raw)


# What a secret's kind may be called: it is shown in placeholders ([REDACTED:<kind>]).
SECRET_KIND = LazyPattern(r"[a-z0-9][a-z0-9-]{0,39}")


class SecretPattern(NamedTuple):  # not a dataclass: see paths.Paths
    kind: str
    pattern: str  # a regular expression; a group named `secret` marks the part to replace
    keywords: tuple[str, ...] = ()  # the rule runs only on text holding one (none: always)


def _patterns(raw: Any) -> tuple[SecretPattern, ...]:
    import re  # only a config that sets patterns needs it: not at a hook's start (lazy_re.py)

    if not isinstance(raw, list):
        raise ValueError("must be a list of { kind = …, pattern = …, keywords = […] }")
    out = []
    for i, item in enumerate(raw):
        where = f"pattern {i + 1}"
        if not isinstance(item, dict) or not {"kind", "pattern"} <= item.keys():
            raise ValueError(f"{where} must be a table with kind and pattern")
        if extra := set(item) - {"kind", "pattern", "keywords"}:
            raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        kind, pattern = item["kind"], item["pattern"]
        if not isinstance(kind, str) or not SECRET_KIND.fullmatch(kind):
            raise ValueError(f"{where}: kind must be lowercase letters, digits and '-'")
        if not isinstance(pattern, str) or not pattern:
            raise ValueError(f"{where}: pattern must be a regular expression")
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{where}: pattern does not compile: {exc}") from None
        if compiled.search(""):
            raise ValueError(f"{where}: pattern matches empty text")
        keywords = _strings(item.get("keywords", []))
        out.append(SecretPattern(kind, pattern, keywords))
    return tuple(out)


class Key(NamedTuple):
    name: str  # "section.key" as written in config.toml
    env: str  # "" when only the file can set it (a list has no sensible variable form)
    default: Any
    parse: Callable[[Any], Any]
    help: str


KEYS: tuple[Key, ...] = (
    Key(
        "daemon.idle_timeout",
        "ENYAL_IDLE_TIMEOUT",
        900.0,
        _seconds,
        "seconds a daemon started on demand (by a client or a service manager's socket) "
        "waits without a connection before it exits; 0 = never",
    ),
    Key("daemon.log_level", "ENYAL_LOG_LEVEL", "INFO", _level, "the daemon's log level"),
    Key(
        "daemon.max_connections",
        "ENYAL_MAX_CONNECTIONS",
        256,
        _count,
        "connections the daemon serves at once; more are refused with an error. Fewer "
        "when the open-file limit (ulimit -n) leaves less room beside the database's files",
    ),
    Key(
        "model.dir",
        "ENYAL_MODEL_DIR",
        "",
        _path,
        "a folder holding model.onnx and tokenizer.json, tried before any other source",
    ),
    Key("model.url", "ENYAL_MODEL_URL", HUB_URL, _url, "where `enyal model fetch` downloads"),
    Key(
        "recall.floor",
        "ENYAL_RECALL_FLOOR",
        0.2,
        _share,
        "recall leaves out results whose meaning (cosine) and words (share of the query's "
        "information matched) both score below this; 0 keeps everything",
    ),
    Key(
        "recall.relative",
        "ENYAL_RECALL_RELATIVE",
        # Measured on the memory set's dev half (docs/ARCHITECTURE.md, "Where a result
        # list ends"): 0.5% of the answers cut, a fifth of the wrong results.
        0.5,
        _share,
        "recall leaves out results less relevant than this share of the best one's (the "
        "list ends where relevance ends); 0 keeps everything",
    ),
    Key(
        "secrets.redact",
        "ENYAL_REDACT_SECRETS",
        True,
        _flag,
        "replace credentials by [REDACTED:<kind>] before anything is stored; false keeps "
        "them verbatim (`enyal doctor` warns)",
    ),
    Key("secrets.allow", "", (), _strings, "values never redacted, exactly as written"),
    Key(
        "secrets.patterns",
        "",
        (),
        _patterns,
        "more secret shapes, each { kind, pattern, keywords }, tried before the built-in ones",
    ),
    *(
        Key(
            f"decay.{content_type}",
            f"ENYAL_DECAY_{content_type.upper()}",
            None,
            _days,
            f"days in which a {content_type}'s confidence halves (unset: the built-in rate)",
        )
        for content_type in CONTENT_TYPES
    ),
    Key(
        "consolidate.every_hours",
        "ENYAL_CONSOLIDATE_EVERY_HOURS",
        0.0,
        _hours,
        "hours between the daemon's own consolidations (near-duplicates merged, expired "
        "entries removed), never during a burst of writes; 0 = never",
    ),
    Key(
        "index.watch",
        "ENYAL_INDEX_WATCH",
        False,
        _flag,
        "watch the files and folders `enyal index` was given and index them again when "
        "they change (polling their mtimes; off by default)",
    ),
    Key(
        "index.debounce",
        "ENYAL_INDEX_DEBOUNCE",
        3.0,
        _debounce,
        "seconds the watcher waits after a change, for the edits to stop, before indexing",
    ),
    *(
        Key(
            f"hooks.{event.replace('-', '_')}",
            f"ENYAL_HOOKS_{event.replace('-', '_').upper()}",
            True,
            _flag,
            f"`enyal hook {event}` answers; false: it prints {{}} and asks the daemon nothing",
        )
        for event in HOOK_EVENTS
    ),
    Key(
        "hooks.http",
        "ENYAL_HOOKS_HTTP",
        False,
        _flag,
        "the daemon answers Claude Code's http hooks on 127.0.0.1:[hooks] http_port "
        "(a bearer token from `enyal hooks token`); off: no port is opened",
    ),
    Key(
        "hooks.http_port",
        "ENYAL_HOOKS_HTTP_PORT",
        47390,
        _port,
        "the loopback port of the daemon's hook endpoint ([hooks] http = true)",
    ),
)


class Value(NamedTuple):
    key: Key
    value: Any
    source: str  # "default", "file", or "env"

    def describe_source(self, file: str) -> str:
        return {"default": "default", "file": str(file), "env": f"env {self.key.env}"}[self.source]


class Config(NamedTuple):
    file: str  # str(Paths.config_file): the command hook reads it without pathlib
    file_exists: bool
    values: dict[str, Value]

    def get(self, name: str) -> Any:
        return self.values[name].value

    @property
    def idle_timeout(self) -> float:
        return float(self.get("daemon.idle_timeout"))

    @property
    def log_level(self) -> str:
        return str(self.get("daemon.log_level"))

    @property
    def max_connections(self) -> int:
        return int(self.get("daemon.max_connections"))

    @property
    def model_dir(self) -> str:
        return str(self.get("model.dir"))

    @property
    def model_url(self) -> str:
        return str(self.get("model.url"))

    @property
    def min_relevance(self) -> float:
        return float(self.get("recall.floor"))

    @property
    def min_relative(self) -> float:
        return float(self.get("recall.relative"))

    def recall_floors(self, keep_all: bool = False) -> dict[str, float]:
        """Where a recall's list ends, as every client asks it (the CLI, the hooks, the
        web view): the floor drops what neither meaning nor words tie to the query, and
        the relative one ends the list where relevance ends; `keep_all` keeps both."""
        return {
            "min_relevance": 0.0 if keep_all else self.min_relevance,
            "min_relative": 0.0 if keep_all else self.min_relative,
        }

    @property
    def redact_secrets(self) -> bool:
        return bool(self.get("secrets.redact"))

    @property
    def secrets_allow(self) -> tuple[str, ...]:
        return tuple(self.get("secrets.allow"))

    @property
    def secret_patterns(self) -> tuple[SecretPattern, ...]:
        return tuple(self.get("secrets.patterns"))

    @property
    def half_lives(self) -> dict[str, float]:
        """Per content type, the half-life in days config.toml sets (types it leaves unset
        keep the daemon's built-in rate)."""
        out: dict[str, float] = {}
        for content_type in CONTENT_TYPES:
            days = self.get(f"decay.{content_type}")
            if days is not None:
                out[content_type] = float(days)
        return out

    @property
    def consolidate_every_hours(self) -> float:
        return float(self.get("consolidate.every_hours"))

    @property
    def index_watch(self) -> bool:
        return bool(self.get("index.watch"))

    @property
    def index_debounce(self) -> float:
        return float(self.get("index.debounce"))

    @property
    def hook_http(self) -> bool:
        return bool(self.get("hooks.http"))

    @property
    def hook_http_port(self) -> int:
        return int(self.get("hooks.http_port"))

    def hook_enabled(self, event: str) -> bool:
        """Whether `enyal hook EVENT` (kebab case, one of HOOK_EVENTS) is on."""
        return bool(self.get(f"hooks.{event.replace('-', '_')}"))


def _read_file(path: str, cache_dir: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        f = open(path, "rb")  # noqa: SIM115
        st = os.fstat(f.fileno())
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    with f:
        data = config_cache.cached(cache_dir, path, st)
        if data is None:
            data = _parsed(path, f)
            config_cache.keep(cache_dir, path, st, data)
    flat: dict[str, Any] = {}
    known = {k.name for k in KEYS}
    for section, body in data.items():
        if not isinstance(body, dict):
            raise ConfigError(f"{path}: {section!r} must be a [section]; see `enyal config show`")
        for key, value in body.items():
            name = f"{section}.{key}"
            if name not in known:
                raise ConfigError(
                    f"{path}: unknown key {name!r}; known keys: {', '.join(sorted(known))}"
                )
            flat[name] = value
    return flat


def _parsed(path: str, f: BinaryIO) -> dict[str, Any]:
    # Imported only when there is a file and the cache does not hold it: every CLI run,
    # command hook and MCP shim start reads the config first, and tomllib costs 43 M
    # instructions (config_cache.py).
    import tomllib

    try:
        return tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None


def load(paths: Paths | Places | None = None, environ: Mapping[str, str] | None = None) -> Config:
    # One copy of the environment, read by places and each key alike: os.environ decodes
    # every lookup and raises inside for a name it lacks (most ENYAL_* names), so the ~35
    # lookups of a load cost more than one pass over it (0.3 ms a call, on every hook).
    env = dict(os.environ if environ is None else environ)
    paths = paths or places(env)
    file = str(paths.config_file)
    from_file = _read_file(file, paths.cache_dir)
    values: dict[str, Value] = {}
    for key in KEYS:
        if key.env and env.get(key.env) not in (None, ""):
            raw, source, where = env[key.env], "env", key.env
        elif key.name in from_file:
            raw, source, where = from_file[key.name], "file", f"{file}: {key.name}"
        else:
            values[key.name] = Value(key, key.default, "default")
            continue
        try:
            values[key.name] = Value(key, key.parse(raw), source)
        except ValueError as exc:
            raise ConfigError(f"{where} {exc} (got {raw!r})") from None
    return Config(file, os.path.isfile(file), values)


# current()'s last answer: the environment it was for, where its config file was, that
# file's stamp then (None: no file), and the Config.
_last: tuple[dict[str, str], str, list[int] | None, Config] | None = None


def current() -> Config:
    """load() of this process's environment, the last answer again while the environment
    is the same and the config file's stat (config_cache.stamp: any write or replacement
    changes it) too. A long-lived process answering hook events (the daemon's HTTP
    endpoint, the MCP shim) read, checked and flattened the file on every event (~80 µs of
    CPU, 0.3-1.9 ms of a loaded machine's wall, issue 29); a switch turned off in
    config.toml still holds from the next event on."""
    global _last
    env = dict(os.environ)
    last = _last
    file = last[1] if last is not None and last[0] == env else str(places(env).config_file)
    try:
        stamp: list[int] | None = config_cache.stamp(os.stat(file))
    except OSError:
        stamp = None
    if last is not None and last[0] == env and last[2] == stamp:
        return last[3]
    cfg = load(None, env)
    _last = (env, file, stamp, cfg)
    return cfg


def export_env(cfg: Config, environ: MutableMapping[str, str] | None = None) -> None:
    """Put file-sourced values where the modules that read the environment look
    (e.g. model.dir -> ENYAL_MODEL_DIR for the model locator). The environment wins."""
    env = os.environ if environ is None else environ
    for v in cfg.values.values():
        if (
            v.key.env
            and v.source == "file"
            and isinstance(v.value, str | int | float)
            and v.value != ""
        ):
            env.setdefault(v.key.env, str(v.value))
