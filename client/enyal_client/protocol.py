"""The wire: every JSON-RPC method's params and result, as msgspec Structs.

This one module is the contract between the daemon and every client. The MCP
shim derives its tool schemas from these Structs (msgspec.json.schema), so a
bound or an enum is written once, here. It imports nothing heavier than msgspec.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

PROTOCOL_VERSION = 1

ContentType = Literal["fact", "preference", "decision", "convention", "pattern"]
ScopeLevel = Literal["global", "workspace", "project", "file"]
SourceType = Literal["conversation", "file", "commit", "manual"]
DedupMode = Literal["off", "reject", "merge", "store"]

CONTENT_TYPES: tuple[ContentType, ...] = ("fact", "preference", "decision", "convention", "pattern")
SCOPE_LEVELS: tuple[ScopeLevel, ...] = ("global", "workspace", "project", "file")

Confidence = Annotated[float, Meta(ge=0.0, le=1.0)]
Limit = Annotated[int, Meta(ge=1, le=100, description="Maximum number of results (1-100).")]
Tag = Annotated[str, Meta(min_length=1, max_length=64)]
Tags = Annotated[list[Tag], Meta(max_length=32)]
EntryId = Annotated[str, Meta(min_length=1, max_length=64, description="An entry id.")]
Query = Annotated[
    str, Meta(min_length=1, max_length=4096, description="What to look for, in plain words.")
]
Cwd = Annotated[
    str | None,
    Meta(description="The client's working directory; the project scope is resolved from it."),
]


class Params(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Base of every method's params: unknown fields are an error, not a silent no-op."""


# --- entries ---------------------------------------------------------------


class Entry(Struct, kw_only=True):
    id: str
    content: str
    content_type: ContentType
    scope_level: ScopeLevel
    scope_path: str | None
    confidence: float
    created_at: str
    updated_at: str
    accessed_at: str | None
    access_count: int
    source_type: SourceType | None
    source_ref: str | None
    tags: list[str]
    metadata: dict[str, Any]
    is_deprecated: bool
    content_hash: str


class Hit(Entry, kw_only=True):
    """An entry as recall returns it: every field, the score and its parts."""

    score: float
    semantic: float
    keyword: float
    recency: float
    effective_confidence: float
    scope_weight: float = 1.0


# --- remember ----------------------------------------------------------------


class RememberParams(Params, kw_only=True):
    content: Annotated[
        str, Meta(min_length=1, description="The memory, as one self-contained statement.")
    ]
    content_type: Annotated[ContentType, Meta(description="What kind of memory this is.")] = "fact"
    scope: Annotated[
        ScopeLevel,
        Meta(description="Where it applies. project/workspace paths default from cwd."),
    ] = "project"
    scope_path: Annotated[
        str | None, Meta(description="File or directory the scope refers to (not for global).")
    ] = None
    tags: Tags = []
    source_type: SourceType | None = None
    source_ref: Annotated[str, Meta(max_length=1024)] | None = None
    metadata: dict[str, Any] = {}
    confidence: Confidence = 1.0
    dedup: Annotated[
        DedupMode,
        Meta(
            description=(
                "Semantic duplicate check: off (default), reject (return the similar entry), "
                "merge (update it with this content), store (store anyway, report similarity)."
            )
        ),
    ] = "off"
    dedup_threshold: Annotated[float, Meta(ge=0.0, le=1.0)] = 0.85
    cwd: Cwd = None


RememberAction = Literal["created", "existing", "rejected", "merged", "stored"]


class RememberResult(Struct, kw_only=True):
    id: str
    action: Annotated[
        RememberAction,
        Meta(
            description=(
                "created: new entry; existing: identical content already stored in this scope; "
                "rejected/merged/stored: the semantic dedup decision."
            )
        ),
    ]
    similarity: float | None = None
    duplicate_of: str | None = None
    entry: Entry


# --- recall --------------------------------------------------------------------


class RecallParams(Params, kw_only=True):
    query: Query
    limit: Limit = 10
    scope: ScopeLevel | None = None
    scope_path: str | None = None
    content_type: ContentType | None = None
    tags: Annotated[Tags, Meta(description="Only entries carrying all of these tags.")] = []
    min_confidence: Annotated[
        float, Meta(ge=0.0, le=1.0, description="Minimum effective (decayed) confidence.")
    ] = 0.3
    include_deprecated: bool = False
    cwd: Cwd = None


class RecallResult(Struct, kw_only=True):
    results: list[Hit]


class RecallByScopeParams(Params, kw_only=True):
    query: Query
    file_path: Annotated[
        str,
        Meta(min_length=1, description="The file being worked on; scopes are resolved from it."),
    ]
    limit: Limit = 10
    content_type: ContentType | None = None
    min_confidence: Annotated[float, Meta(ge=0.0, le=1.0)] = 0.3
    cwd: Cwd = None


class ScopeRef(Struct, kw_only=True):
    level: ScopeLevel
    path: str | None
    weight: float


class RecallByScopeResult(Struct, kw_only=True):
    results: list[Hit]
    scopes: list[ScopeRef]


# --- single entries ------------------------------------------------------------


class GetParams(Params, kw_only=True):
    id: EntryId


class UpdateParams(Params, kw_only=True):
    id: EntryId
    content: Annotated[str | None, Meta(description="New content (re-embedded).")] = None
    content_type: ContentType | None = None
    confidence: Confidence | None = None
    tags: Annotated[Tags | None, Meta(description="Replaces the tags.")] = None
    metadata: Annotated[dict[str, Any] | None, Meta(description="Replaces the metadata.")] = None


class ForgetParams(Params, kw_only=True):
    id: EntryId
    hard: Annotated[
        bool,
        Meta(description="Delete for good (entry, vector, text index) instead of deprecating."),
    ] = False


class ForgetResult(Struct, kw_only=True):
    id: str
    action: Literal["deprecated", "deleted"]


class RestoreParams(Params, kw_only=True):
    id: EntryId


# --- stats -----------------------------------------------------------------------


class StatsParams(Params, kw_only=True):
    pass


class Stats(Struct, kw_only=True):
    total: int
    active: int
    deprecated: int
    by_type: dict[str, int]
    by_scope: dict[str, int]
    confidence: dict[str, int]
    db_bytes: int
    oldest: str | None
    newest: str | None


# --- import / export ---------------------------------------------------------------


class ImportParams(Params, kw_only=True):
    lines: Annotated[list[str], Meta(max_length=1000, description="JSONL lines, one entry each.")]
    first_line: Annotated[int, Meta(ge=1)] = 1


class ImportLine(Struct, kw_only=True):
    line: int
    status: Literal["stored", "existing", "failed"]
    id: str | None = None
    error: str | None = None


class ImportResult(Struct, kw_only=True):
    stored: int
    existing: int
    failed: int
    lines: list[ImportLine]


class ExportParams(Params, kw_only=True):
    after: Annotated[int, Meta(ge=0, description="Cursor from the previous page; 0 to start.")] = 0
    limit: Annotated[int, Meta(ge=1, le=1000)] = 500
    include_deprecated: bool = True


class ExportResult(Struct, kw_only=True):
    entries: list[Entry]
    next: int | None


class ImportEntry(Struct, kw_only=True, forbid_unknown_fields=True):
    """One JSONL line of an import: an exported Entry, or just the fields a person writes."""

    content: Annotated[str, Meta(min_length=1)]
    id: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    content_type: ContentType = "fact"
    scope_level: ScopeLevel = "global"
    scope_path: str | None = None
    confidence: Confidence = 1.0
    created_at: str | None = None
    updated_at: str | None = None
    accessed_at: str | None = None
    access_count: Annotated[int, Meta(ge=0)] = 0
    source_type: SourceType | None = None
    source_ref: str | None = None
    tags: Tags = []
    metadata: dict[str, Any] = {}
    is_deprecated: bool = False
    content_hash: str | None = None


# --- the daemon itself --------------------------------------------------------------


class StatusParams(Params, kw_only=True):
    pass


class ModelInfo(Struct, kw_only=True):
    id: str
    dim: int
    path: str
    sha256: str
    source: str


class Status(Struct, kw_only=True):
    version: str
    protocol: int
    pid: int
    uptime_s: float
    home: str
    db_path: str
    socket: str
    entries: int
    model: ModelInfo
    sqlite_version: str
    sqlite_vec_version: str


class ShutdownParams(Params, kw_only=True):
    pass


class ShutdownResult(Struct, kw_only=True):
    stopping: bool


# --- the method table: the one list both sides dispatch on ------------------------------


class Method(Struct, frozen=True):
    params: type[Params]
    result: Any
    summary: str


METHODS: dict[str, Method] = {
    "remember": Method(RememberParams, RememberResult, "Store a memory."),
    "recall": Method(RecallParams, RecallResult, "Hybrid search over memories."),
    "recall_by_scope": Method(
        RecallByScopeParams, RecallByScopeResult, "Search file -> project -> workspace -> global."
    ),
    "get": Method(GetParams, Entry, "One entry by id."),
    "update": Method(UpdateParams, Entry, "Change an entry."),
    "forget": Method(ForgetParams, ForgetResult, "Deprecate (or hard-delete) an entry."),
    "restore": Method(RestoreParams, Entry, "Bring back a forgotten entry."),
    "stats": Method(StatsParams, Stats, "Counts and sizes."),
    "import": Method(ImportParams, ImportResult, "Store a batch of JSONL lines."),
    "export": Method(ExportParams, ExportResult, "Page through every entry."),
    "status": Method(StatusParams, Status, "The daemon's version, paths and model."),
    "shutdown": Method(ShutdownParams, ShutdownResult, "Stop the daemon gracefully."),
}


# --- JSON-RPC 2.0 framing -------------------------------------------------------------

RequestId = int | str | None


class Request(Struct, kw_only=True, omit_defaults=True):
    jsonrpc: str
    method: str
    params: msgspec.Raw | UnsetType = UNSET
    id: RequestId | UnsetType = UNSET


class ErrorObject(Struct, kw_only=True, omit_defaults=True):
    code: int
    message: str
    data: Any = None


class Response(Struct, kw_only=True):
    """jsonrpc and id are always sent (id null when unknown); result/error only when set."""

    jsonrpc: str = "2.0"
    id: RequestId = None
    result: msgspec.Raw | UnsetType = UNSET
    error: ErrorObject | UnsetType = UNSET


# Error codes. The daemon raises a small hierarchy (enyal_daemon.errors) and maps it
# to these once; clients map them to exit codes and messages once.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NOT_FOUND = -32001
INVALID_VALUE = -32002
TOO_LARGE = -32003
MODEL_UNAVAILABLE = -32004
CONFLICT = -32005
SHUTTING_DOWN = -32006

ERROR_NAMES: dict[int, str] = {
    PARSE_ERROR: "parse error",
    INVALID_REQUEST: "invalid request",
    METHOD_NOT_FOUND: "method not found",
    INVALID_PARAMS: "invalid params",
    INTERNAL_ERROR: "internal error",
    NOT_FOUND: "not found",
    INVALID_VALUE: "invalid value",
    TOO_LARGE: "too large",
    MODEL_UNAVAILABLE: "model unavailable",
    CONFLICT: "conflict",
    SHUTTING_DOWN: "shutting down",
}

MAX_FRAME_BYTES = 1024 * 1024
