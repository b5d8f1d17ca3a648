"""The wire: every JSON-RPC method's params and result, as msgspec Structs.

This one module is the contract between the daemon and every client. The MCP
shim derives its tool schemas from these Structs (msgspec.json.schema), so a
bound or an enum is written once, here. It imports nothing heavier than msgspec.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

# Said in modules that import nothing (the command hook reads them without msgspec).
from .framing import MAX_BATCH_REQUESTS as MAX_BATCH_REQUESTS
from .framing import MAX_FRAME_BYTES as MAX_FRAME_BYTES
from .framing import PROTOCOL_VERSION as PROTOCOL_VERSION
from .kinds import CONTENT_TYPES as CONTENT_TYPES
from .kinds import MemoryType as MemoryType
from .shown import MAX_ABOUT

# What a memory is. task and log are written by their own methods (task_add, log_append),
# which give them what they need (a status, a date); remember and update take the rest.
ContentType = Literal["fact", "preference", "decision", "convention", "pattern", "task", "log"]
TaskStatus = Literal["open", "in_progress", "blocked", "done"]
ScopeLevel = Literal["global", "workspace", "project", "file"]
SourceType = Literal["conversation", "file", "commit", "manual"]
DedupMode = Literal["off", "reject", "merge", "store"]
WrittenBy = Literal["user", "agent", "import", "file", "repository"]

ALL_TYPES: tuple[ContentType, ...] = (*CONTENT_TYPES, "task", "log")
TASK_STATUSES: tuple[TaskStatus, ...] = ("open", "in_progress", "blocked", "done")
DueDate = Annotated[
    str,
    Meta(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", description="A due date, YYYY-MM-DD."),
]
SCOPE_LEVELS: tuple[ScopeLevel, ...] = ("global", "workspace", "project", "file")

Confidence = Annotated[float, Meta(ge=0.0, le=1.0)]
Importance = Annotated[
    int, Meta(ge=1, le=5, description="How much this matters, 1 (trivia) to 5 (critical).")
]
MAX_TTL_DAYS = 36_500  # a century: past that, a TTL is a typo (and 999999w overflows dates)
Ttl = Annotated[
    str,
    Meta(
        pattern=r"^(never|[0-9]{1,6}[smhdw])$",
        description=(
            "Time to live, e.g. 30m, 12h, 7d, 2w: up to 6 digits and a unit (s, m, h, d, w), "
            f"at most {MAX_TTL_DAYS} days (never: no expiry). It then expires."
        ),
    ),
]
Limit = Annotated[int, Meta(ge=1, le=100, description="Maximum number of results (1-100).")]
Tag = Annotated[str, Meta(min_length=1, max_length=64)]
MAX_TAGS = 32
Tags = Annotated[list[Tag], Meta(max_length=MAX_TAGS)]
EntryId = Annotated[str, Meta(min_length=1, max_length=64, description="An entry id.")]
SpaceName = Annotated[
    str,
    Meta(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$",
        description="A team hub's space: letters, digits, . _ -, at most 64.",
    ),
]
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
    importance: int = 3
    expires_at: str | None = None  # gone from recall and stats from then, and then deleted
    confirmed_at: str | None = None  # checked and still true: decay counts from here
    confirm_count: int = 0
    written_by: WrittenBy | None = None  # who wrote it: provenance, shown with every hit
    quarantined: bool = False  # reads as an instruction to the agent: out of default recall
    quarantine_reason: str | None = None
    status: TaskStatus | None = None  # a task's; null for every other type
    due: str | None = None  # a task's due date, YYYY-MM-DD
    # Set by recall, get, list and review, and sent only when true (UNSET is left out of
    # the JSON, so clients before them see nothing new): the file the memory cites
    # changed, or is gone, since it was written or confirmed.
    source_changed: bool | UnsetType = UNSET
    source_missing: bool | UnsetType = UNSET
    # A mirror of a chunk of an indexed file (`index`): update refuses it; edit the file.
    read_only: bool | UnsetType = UNSET
    indexed_from: str | UnsetType = UNSET
    # get only: the team hub's space it is shared into (hub.join), when it is.
    space: str | UnsetType = UNSET


class Hit(Entry, kw_only=True):
    """An entry as recall returns it: every field, the score and its parts."""

    score: float
    semantic: float
    keyword: float
    recency: float
    effective_confidence: float
    scope_weight: float = 1.0
    is_superseded: bool = False
    superseded_by: str | None = None
    has_conflicts: bool = False
    freshness_score: float = 1.0
    adjusted_score: float = 0.0
    # Its relevance (the better of meaning and words, as min_relevance reads it) is below
    # the level answers reach: a list of weak hits only means nothing stored fits.
    weak: bool = False


# --- the graph -----------------------------------------------------------------

EdgeType = Literal["relates_to", "supersedes", "depends_on", "conflicts_with"]
EDGE_TYPES: tuple[EdgeType, ...] = ("relates_to", "supersedes", "depends_on", "conflicts_with")
Direction = Literal["outgoing", "incoming", "both"]
IdList = Annotated[list[EntryId], Meta(max_length=64)]


class Edge(Struct, kw_only=True):
    id: str
    source_id: str
    target_id: str
    edge_type: EdgeType
    confidence: float
    created_at: str
    metadata: dict[str, Any]


class Related(Struct, kw_only=True):
    """Another entry found similar to one being written, and why it was reported."""

    id: str
    content: str
    similarity: float
    reason: str


# --- remember ----------------------------------------------------------------


class RememberParams(Params, kw_only=True):
    content: Annotated[
        str, Meta(min_length=1, description="The memory, as one self-contained statement.")
    ]
    content_type: Annotated[MemoryType, Meta(description="What kind of memory this is.")] = "fact"
    scope: Annotated[
        ScopeLevel,
        Meta(description="Where it applies. project/workspace paths default from cwd."),
    ] = "project"
    scope_path: Annotated[
        str | None, Meta(description="File or directory the scope refers to (not for global).")
    ] = None
    tags: Annotated[Tags, Meta(description="Labels to filter on later, e.g. 'testing'.")] = []
    source_type: Annotated[SourceType | None, Meta(description="Where it was learned.")] = None
    source_ref: Annotated[
        Annotated[str, Meta(max_length=1024)] | None,
        Meta(description="A pointer to the source: a file path, commit hash or URL."),
    ] = None
    metadata: Annotated[
        dict[str, Any], Meta(description="Free-form JSON object stored with the memory.")
    ] = {}
    confidence: Annotated[Confidence, Meta(description="How sure this is, 0 to 1.")] = 1.0
    importance: Importance = 3
    ttl: Ttl | None = None
    written_by: Annotated[
        WrittenBy | None,
        Meta(description="Who writes it; the CLI says user, the MCP shim agent."),
    ] = None
    dedup: Annotated[
        DedupMode,
        Meta(
            description=(
                "Semantic duplicate check: off (default), reject (return the similar entry), "
                "merge (update it with this content), store (store anyway, report similarity)."
            )
        ),
    ] = "off"
    dedup_threshold: Annotated[
        float,
        Meta(ge=0.0, le=1.0, description="Similarity from which an entry counts as a duplicate."),
    ] = 0.85
    relates_to: Annotated[
        IdList, Meta(description="Ids of entries this one relates to (relates_to edges).")
    ] = []
    supersedes: Annotated[
        IdList, Meta(description="Ids of entries this one replaces; they become superseded.")
    ] = []
    depends_on: Annotated[IdList, Meta(description="Ids of entries this one depends on.")] = []
    auto_link: Annotated[
        bool, Meta(description="Link to similar entries automatically (relates_to edges).")
    ] = False
    shared: Annotated[
        bool,
        Meta(
            description=(
                "Share it with the project: written to .enyal/<id>.md in the repository, "
                "for the team to commit (a project's or a file's memory only)."
            )
        ),
    ] = False
    space: Annotated[
        SpaceName | None,
        Meta(description="Share it through the team hub into this space (joined: hub.join)."),
    ] = None
    auto_link_threshold: Annotated[float, Meta(ge=0.0, le=1.0)] = 0.75
    detect_conflicts: Annotated[
        bool,
        Meta(
            description="Report similar entries this one seems to contradict (nothing is linked)."
        ),
    ] = False
    suggest_supersedes: Annotated[
        bool, Meta(description="Report similar entries this one may replace (nothing is linked).")
    ] = False
    cwd: Cwd = None


RememberAction = Literal["created", "existing", "rejected", "merged", "stored"]

Redacted = Annotated[
    dict[str, int],
    Meta(
        description=(
            "Secrets found in what was sent and replaced by [REDACTED:<kind>] before anything "
            "was stored or embedded: kind -> count. The values are never returned or kept."
        )
    ),
]


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
    edges: list[Edge] = []
    conflicts: list[Related] = []
    supersedes_candidates: list[Related] = []
    redacted: Redacted = {}


# --- recall --------------------------------------------------------------------


MinImportance = Annotated[int, Meta(ge=1, le=5, description="Only entries this important or more.")]
# The filters recall, list and consolidate share: said once, so their schemas agree.
OnlyScope = Annotated[
    ScopeLevel | None,
    Meta(description="Only this scope level; project/workspace mean the current ones."),
]
RecallScope = Annotated[
    Literal[ScopeLevel, "all"] | None,
    Meta(
        description=(
            "Only this scope level (project/workspace mean the current ones); 'all': every "
            "project's memories. Default: what is seen from cwd (its project, its workspace "
            "and global memories); without cwd, everything."
        )
    ),
]
OnlyScopePath = Annotated[
    str | None, Meta(description="Only entries stored under exactly this file or directory.")
]
OnlyType = Annotated[ContentType | None, Meta(description="Only this kind.")]
MinConfidence = Annotated[
    float, Meta(ge=0.0, le=1.0, description="Minimum effective (decayed) confidence.")
]
MinRelevance = Annotated[
    float,
    Meta(
        ge=0.0,
        le=1.0,
        description=(
            "Leave out results whose meaning (cosine) and words (share of the query "
            "matched) both score below this; 0 keeps all. The CLI sends recall.floor."
        ),
    ),
]
MinRelative = Annotated[
    float,
    Meta(
        ge=0.0,
        le=1.0,
        description=(
            "End the list where relevance ends: leave out results whose relevance (the better "
            "of meaning and words, as for min_relevance) is below this share of the best "
            "result's; 0 keeps all. The CLI, the hooks and the web view send recall.relative."
        ),
    ),
]


MAX_BUDGET_TOKENS = 100_000
BudgetTokens = Annotated[
    int,
    Meta(
        ge=1,
        le=MAX_BUDGET_TOKENS,
        description=(
            "Pack the best results into this many tokens of the model's tokenizer (content "
            "plus a fixed overhead per result); the last may be cut with a marker, the rest "
            "are left out and listed in `budget`."
        ),
    ),
]


class Budget(Struct, kw_only=True):
    """How a result list was packed into a token budget."""

    budget_tokens: int
    used_tokens: Annotated[int, Meta(description="Tokens of the results returned, overhead in.")]
    overhead_tokens: Annotated[int, Meta(description="Counted per result beside its content.")]
    truncated: Annotated[
        str | None, Meta(description="The id of the result cut to fit (enyal get ID for all).")
    ] = None
    omitted: Annotated[int, Meta(description="Results that did not fit.")] = 0
    omitted_ids: Annotated[list[str], Meta(description="Their ids, best first.")] = []


# Metadata equality: {"ticket": "ENG-12", "reviewed": true} keeps entries whose metadata
# holds each of these keys at exactly this scalar value.
Where = Annotated[
    dict[Annotated[str, Meta(min_length=1, max_length=128)], str | int | float | bool],
    Meta(max_length=16, description="Only entries whose metadata has these key = value pairs."),
]


# A client session's id as Claude Code and the other clients send it (`session_id`).
SessionId = Annotated[str, Meta(min_length=1, max_length=256)]
# A hook's recall for a client session (enyal_protocol/shown.py), in one round trip.
ForSession = Annotated[
    SessionId | None,
    Meta(
        description=(
            "A client session's id: the hits it was shown before (session_seen's keys, a "
            "memory's short id) are left out, and those returned are recorded as shown. "
            "Applied last, after the budget and lines_about."
        )
    ),
]
LinesAbout = Annotated[
    # No bound on a word: an error's words are what it printed (the frame bounds them).
    list[Annotated[str, Meta(min_length=1)]],
    Meta(
        max_length=MAX_ABOUT,
        description=(
            "Words (lowercase): a day's log hit is cut to its first 3 lines holding one, "
            "joined by ' / ', and left out if none does."
        ),
    ),
]
AskedAt = Annotated[
    str | None,
    Meta(
        description=(
            "ISO date or time the query is asked at (default: now). Recency and freshness "
            "are measured from it and memories created after it are left out: for "
            "replaying a dated conversation, so its hits are not counted as used. Unlike "
            "as_of, today's contents are searched."
        )
    ),
]


class RecallParams(Params, kw_only=True):
    query: Query
    limit: Limit = 10
    scope: RecallScope = None
    scope_path: OnlyScopePath = None
    content_type: OnlyType = None
    tags: Annotated[Tags, Meta(description="Only entries carrying all of these tags.")] = []
    where: Where = {}
    min_confidence: MinConfidence = 0.0
    include_deprecated: Annotated[
        bool, Meta(description="Also return forgotten (deprecated) entries.")
    ] = False
    include_quarantined: Annotated[
        bool, Meta(description="Also return quarantined entries (text aimed at the agent).")
    ] = False
    exclude_superseded: Annotated[
        bool, Meta(description="Leave out entries another entry supersedes.")
    ] = True
    include_done: Annotated[
        bool,
        Meta(description="Also return done tasks (content_type task returns them anyway)."),
    ] = False
    flag_conflicts: Annotated[
        bool, Meta(description="Mark entries with conflicts_with edges (and rank them lower).")
    ] = True
    freshness_boost: Annotated[
        float, Meta(ge=0.0, le=1.0, description="How much type-aware freshness moves the ranking.")
    ] = 0.1
    min_relevance: MinRelevance = 0.0
    min_relative: MinRelative = 0.0
    min_importance: MinImportance = 1
    as_of: Annotated[
        str | None,
        Meta(
            description=(
                "ISO date or time: answer with what was believed then (entries that existed and "
                "were neither superseded nor forgotten, with their content at that time)."
            )
        ),
    ] = None
    asked_at: AskedAt = None
    budget_tokens: BudgetTokens | None = None
    lines_about: LinesAbout = []
    session_id: ForSession = None
    drop_weak_only: Annotated[
        bool,
        Meta(
            description=(
                "Return no results when every result is weak (nothing stored fits the "
                "query): what the hooks send, to inject nothing rather than noise."
            )
        ),
    ] = False
    cwd: Cwd = None


class RecallResult(Struct, kw_only=True):
    results: list[Hit]
    budget: Budget | None = None  # with budget_tokens: how the results were packed


class RecallByScopeParams(Params, kw_only=True):
    query: Query
    file_path: Annotated[
        str,
        Meta(min_length=1, description="The file being worked on; scopes are resolved from it."),
    ]
    limit: Limit = 10
    content_type: OnlyType = None
    min_confidence: MinConfidence = 0.0
    min_relevance: MinRelevance = 0.0
    min_relative: MinRelative = 0.0
    min_importance: MinImportance = 1
    budget_tokens: BudgetTokens | None = None
    lines_about: LinesAbout = []
    session_id: ForSession = None
    cwd: Cwd = None


class RecallBatchParams(Params, kw_only=True):
    """Several queries under the same filters, embedded in one model batch."""

    queries: Annotated[list[Query], Meta(min_length=1, max_length=16)]
    limit: Limit = 10
    scope: RecallScope = None
    scope_path: str | None = None
    content_type: ContentType | None = None
    tags: Tags = []
    where: Where = {}
    min_confidence: MinConfidence = 0.0
    min_relevance: MinRelevance = 0.0
    min_relative: MinRelative = 0.0
    min_importance: MinImportance = 1
    asked_at: AskedAt = None
    cwd: Cwd = None


class RecallBatchResult(Struct, kw_only=True):
    results: list[RecallResult]  # one per query, in order


ListSort = Literal["updated", "created", "accessed", "importance"]


class ListParams(Params, kw_only=True):
    scope: OnlyScope = None
    scope_path: OnlyScopePath = None
    content_type: OnlyType = None
    tags: Tags = []
    where: Where = {}
    min_importance: MinImportance = 1
    created_after: Annotated[str | None, Meta(description="ISO date or time.")] = None
    created_before: str | None = None
    updated_after: str | None = None
    updated_before: str | None = None
    include_deprecated: bool = False
    include_quarantined: Annotated[
        bool, Meta(description="Also list quarantined entries (left out by default).")
    ] = False
    sort: ListSort = "updated"
    order: Literal["desc", "asc"] = "desc"
    limit: Annotated[int, Meta(ge=1, le=1000)] = 50
    cursor: Annotated[
        Annotated[str, Meta(max_length=512)] | None,
        Meta(description="`next` of the previous page."),
    ] = None
    cwd: Cwd = None


class ListResult(Struct, kw_only=True):
    entries: list[Entry]
    next: str | None  # pass as `cursor` for the next page; null on the last
    quarantined: int = 0  # entries the filter matches that were left out as quarantined


class ScopeRef(Struct, kw_only=True):
    level: ScopeLevel
    path: str | None
    weight: float


class RecallByScopeResult(Struct, kw_only=True):
    results: list[Hit]
    scopes: list[ScopeRef]
    budget: Budget | None = None


# --- single entries ------------------------------------------------------------


class GetParams(Params, kw_only=True):
    id: EntryId


class UpdateParams(Params, kw_only=True):
    id: EntryId
    content: Annotated[str | None, Meta(description="New content (re-embedded).")] = None
    content_type: Annotated[MemoryType | None, Meta(description="New kind.")] = None
    confidence: Annotated[Confidence | None, Meta(description="New confidence, 0 to 1.")] = None
    tags: Annotated[Tags | None, Meta(description="Replaces the tags.")] = None
    metadata: Annotated[dict[str, Any] | None, Meta(description="Replaces the metadata.")] = None
    importance: Importance | None = None
    ttl: Annotated[
        Ttl | None, Meta(description="A new time to live from now; never clears it.")
    ] = None
    written_by: Annotated[
        WrittenBy | None,
        Meta(
            description="Who edits it (the CLI says user, the MCP shim agent): new text is theirs."
        ),
    ] = None


class UpdateResult(Entry, kw_only=True):
    """The entry as updated."""

    redacted: Redacted = {}


class ForgetParams(Params, kw_only=True):
    id: EntryId
    hard: Annotated[
        bool,
        Meta(description="Delete for good (entry, vector, text index) instead of deprecating."),
    ] = False


class ForgetResult(Struct, kw_only=True, omit_defaults=True):
    id: str
    action: Literal["deprecated", "deleted"]
    changed: bool = True  # sent only when false: it was forgotten already, nothing changed


class RestoreParams(Params, kw_only=True):
    id: EntryId
    version: Annotated[
        Annotated[int, Meta(ge=1, le=2**31)] | None,
        Meta(
            description=(
                "Restore the content and fields of this earlier version (a new version is "
                "written). Without it, restore brings back a forgotten entry."
            )
        ),
    ] = None


class RestoreResult(Entry, kw_only=True):
    """The entry as restored; `changed` is false when it was not forgotten (and no version
    was given), or already held every field of the version given, so nothing changed
    and no version was written."""

    changed: bool = True


class ReleaseParams(Params, kw_only=True):
    id: EntryId


class ConfirmParams(Params, kw_only=True):
    id: EntryId
    confidence: Annotated[
        Confidence | None, Meta(description="Set the confidence too; by default it is kept.")
    ] = None


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
    total_edges: int = 0
    edges_by_type: dict[str, int] = {}
    connected_entries: int = 0


# --- import / export ---------------------------------------------------------------


class ImportParams(Params, kw_only=True):
    lines: Annotated[list[str], Meta(max_length=1000, description="JSONL lines, one entry each.")]
    first_line: Annotated[int, Meta(ge=1)] = 1


class ImportLine(Struct, kw_only=True):
    line: int
    status: Literal["stored", "existing", "failed", "read"]
    id: str | None = None
    error: str | None = None
    kind: Literal["entry", "edge", "header"] = "entry"
    redacted: Redacted = {}


class ImportResult(Struct, kw_only=True):
    stored: int
    existing: int
    failed: int
    lines: list[ImportLine]
    redacted: Annotated[Redacted, Meta(description="The batch's total, kind -> count.")] = {}


class ExportParams(Params, kw_only=True):
    after: Annotated[int, Meta(ge=0, description="Cursor from the previous page; 0 to start.")] = 0
    limit: Annotated[int, Meta(ge=1, le=1000)] = 500
    include_deprecated: bool = True
    kind: Literal["entries", "edges"] = "entries"
    versions: bool = False  # each entry with its version history


class ExportedEntry(Entry, kw_only=True, omit_defaults=True):
    # Always written, false too: an import checks the text of a line that does not say
    # (and quarantines it), so a released entry must say so to come back released.
    quarantined: bool
    versions: list[Version] | None = None


class ExportResult(Struct, kw_only=True, omit_defaults=True):
    entries: list[ExportedEntry]
    next: int | None
    # A page of kind "edges" always has it, [] included; an entries page leaves it out.
    edges: list[Edge] | None = None


EXPORT_FORMAT = 2  # 1: entries only, no header line; 2: header, entries with versions, edges


class ExportHeader(Struct, kw_only=True):
    """The first line of an export: what wrote it, so an import can tell."""

    enyal_export: int
    enyal_version: str
    model_id: str
    exported_at: str
    entries: int
    edges: int


class ImportEdge(Struct, kw_only=True, forbid_unknown_fields=True):
    """An edge line of an export: {"edge": {...}}."""

    edge: Edge


class BackupParams(Params, kw_only=True):
    path: Annotated[
        str,
        Meta(min_length=1, description="Where to write the copy; relative to cwd if relative."),
    ]
    overwrite: bool = False
    cwd: Cwd = None


class BackupResult(Struct, kw_only=True):
    path: str
    bytes: int
    entries: int
    seconds: float


# --- secrets already stored -------------------------------------------------------------


class ScanParams(Params, kw_only=True):
    fix: Annotated[
        bool,
        Meta(
            description=(
                "Redact what is found: the entry (content, tags, metadata, source_ref) and its "
                "history are rewritten, a version is added, the text index and the database "
                "file are purged of the old text."
            )
        ),
    ] = False
    limit: Annotated[int, Meta(ge=0, le=1000, description="How many affected entries to list.")] = (
        100
    )


ScanField = Literal["content", "tags", "metadata", "source_ref", "history", "analytics"]


class ScanHit(Struct, kw_only=True):
    id: str
    kinds: dict[str, int]
    fields: list[ScanField]


class ScanResult(Struct, kw_only=True):
    scanned: Annotated[int, Meta(description="Entries read (forgotten ones included).")]
    affected: Annotated[int, Meta(description="Entries holding at least one secret.")]
    fixed: Annotated[int, Meta(description="Entries redacted now (0 unless fix).")]
    kinds: Annotated[dict[str, int], Meta(description="Secrets found, kind -> count.")]
    queries: Annotated[
        int, Meta(description="Logged recall queries holding a secret (redacted with fix).")
    ] = 0
    entries: Annotated[list[ScanHit], Meta(description="Up to `limit` affected entries.")] = []


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
    importance: Importance = 3
    expires_at: str | None = None
    confirmed_at: str | None = None
    confirm_count: Annotated[int, Meta(ge=0)] = 0
    written_by: WrittenBy | None = None
    # None (not said): the text is checked, as on remember; an exported entry says.
    quarantined: bool | None = None
    quarantine_reason: str | None = None
    status: TaskStatus | None = None
    due: DueDate | None = None
    versions: list[Version] | None = None  # the history, as exported; else "created" now


# --- graph methods ---------------------------------------------------------------------

Depth = Annotated[int, Meta(ge=1, le=4, description="How many hops to follow (1-4).")]


class LinkParams(Params, kw_only=True):
    source_id: EntryId
    target_id: EntryId
    edge_type: Annotated[
        EdgeType,
        Meta(
            description=(
                "relates_to: related; supersedes: source replaces target; depends_on: source "
                "needs target; conflicts_with: they contradict."
            )
        ),
    ]
    confidence: Confidence = 1.0
    metadata: dict[str, Any] = {}


class UnlinkParams(Params, kw_only=True):
    source_id: EntryId
    target_id: EntryId
    edge_type: EdgeType


class EdgesParams(Params, kw_only=True):
    id: EntryId
    direction: Direction = "both"
    edge_type: EdgeType | None = None


class EdgesResult(Struct, kw_only=True):
    edges: list[Edge]


class TraverseParams(Params, kw_only=True):
    id: Annotated[EntryId | None, Meta(description="Start here; or give query instead.")] = None
    query: Annotated[
        Annotated[str, Meta(min_length=1, max_length=4096)] | None,
        Meta(description="Start from the entry that best matches this text."),
    ] = None
    direction: Direction = "outgoing"
    edge_types: Annotated[
        list[EdgeType], Meta(max_length=4, description="Follow only these edge types.")
    ] = []
    depth: Depth = 2


class TraverseNode(Struct, kw_only=True):
    entry: Entry
    depth: int
    via: Edge


class TraverseResult(Struct, kw_only=True):
    start: Entry
    nodes: list[TraverseNode]


class ImpactParams(Params, kw_only=True):
    id: EntryId
    depth: Depth = 4
    related_threshold: Annotated[
        float, Meta(ge=0.0, le=1.0, description="relates_to confidence that counts as strong.")
    ] = 0.8


class ImpactNode(Struct, kw_only=True):
    entry: Entry
    depth: int


class RelatedEntry(Struct, kw_only=True):
    entry: Entry
    confidence: float


class ImpactResult(Struct, kw_only=True):
    entry: Entry
    direct: list[Entry]
    transitive: list[ImpactNode]
    related: list[RelatedEntry]


# --- validity: history, health, review, analytics ------------------------------------------

ChangeType = Literal[
    "created",
    "updated",
    "forgotten",
    "restored",
    "reverted",
    "confirmed",
    "merged",
    "status",
    "released",
]


class Version(Struct, kw_only=True):
    version: int
    change_type: ChangeType
    changed_at: str
    content: str
    content_type: ContentType
    confidence: float
    tags: list[str]
    metadata: dict[str, Any]
    is_deprecated: bool
    # A 'merged' version: on the survivor, the ids merged into it; on each merged entry
    # (then deprecated), the survivor's id.
    merged_from: list[str] = []
    merged_into: str | None = None
    status: TaskStatus | None = None  # a task's status in this version
    importance: Importance | None = None  # null in versions written before it was kept


class HistoryParams(Params, kw_only=True):
    id: EntryId
    limit: Annotated[int, Meta(ge=1, le=1000)] = 100


class HistoryResult(Struct, kw_only=True):
    id: str
    versions: list[Version]
    supersedes: list[Entry]
    superseded_by: list[Entry]


class HealthParams(Params, kw_only=True):
    stale_days: Annotated[int, Meta(ge=1, le=36500)] = 180


class HealthIssues(Struct, kw_only=True):
    superseded_entries: list[str]
    conflicted_entries: list[str]
    stale_entries: list[str]
    orphan_entries: list[str]


class Health(Struct, kw_only=True):
    total_entries: int
    active_entries: int
    superseded_count: int
    conflicts_count: int
    stale_count: int
    orphan_count: int
    health_score: float
    issues: HealthIssues


ReviewKind = Literal["all", "stale", "orphan", "conflicted", "quarantined", "shared"]


class ReviewParams(Params, kw_only=True):
    kind: ReviewKind = "all"
    stale_days: Annotated[int, Meta(ge=1, le=36500)] = 180
    limit: Limit = 20


StaleReason = Literal["not_updated", "source_changed", "source_missing"]


class ReviewResult(Struct, kw_only=True):
    stale: list[Entry]
    orphan: list[Entry]
    conflicted: list[Entry]
    quarantined: list[Entry] = []
    shared: Annotated[
        list[SharedProblem],
        Meta(description="Shared files that could not be read, memories edited on two branches."),
    ] = []
    stale_reasons: Annotated[
        dict[str, list[StaleReason]],
        Meta(
            description=(
                "Why each stale entry is listed (by id): not updated for stale_days, or the "
                "file it cites changed or is gone."
            )
        ),
    ] = {}


EventType = Literal["recall", "update", "link", "impact", "access"]


class AnalyticsParams(Params, kw_only=True):
    entry_id: EntryId | None = None
    event_type: EventType | None = None
    days: Annotated[int, Meta(ge=1, le=36500)] = 30
    limit: Annotated[int, Meta(ge=1, le=1000)] = 100


class Event(Struct, kw_only=True):
    id: int
    entry_id: str
    event_type: EventType
    event_at: str
    query: str | None
    result_rank: int | None


class AnalyticsSummary(Struct, kw_only=True):
    total_events: int
    by_type: dict[str, int]
    by_entry: dict[str, int]


class AnalyticsResult(Struct, kw_only=True):
    events: list[Event]
    summary: AnalyticsSummary


# --- consolidation ------------------------------------------------------------------


class ConsolidateParams(Params, kw_only=True):
    """Merge near-duplicates and remove expired entries. A dry run (the default, so a
    caller must ask to change anything) reports exactly what a real run would do."""

    scope: OnlyScope = None
    scope_path: OnlyScopePath = None
    content_type: OnlyType = None
    threshold: Annotated[
        float,
        Meta(
            ge=0.80,
            le=0.999,
            description="Cosine similarity from which two memories of a scope are duplicates.",
        ),
    ] = 0.92
    dry_run: Annotated[
        bool, Meta(description="Report what would be merged and removed; change nothing.")
    ] = True
    limit: Annotated[int, Meta(ge=1, le=1000, description="At most this many clusters.")] = 100
    stale_below: Annotated[
        float,
        Meta(
            ge=0.0,
            le=1.0,
            description=(
                "Forget (restorably) active entries whose decayed confidence is below this and "
                "that nobody used for stale_days; 0 forgets nothing."
            ),
        ),
    ] = 0.1
    stale_days: Annotated[
        int, Meta(ge=1, le=36500, description="Days without an access or confirmation.")
    ] = 90
    cwd: Cwd = None


class Cluster(Struct, kw_only=True):
    survivor: str  # the entry kept
    merged: list[str]  # deprecated into it (`restore` brings each back)
    similarity_min: float  # the lowest similarity of a merged entry to the survivor


class ConsolidateResult(Struct, kw_only=True):
    dry_run: bool
    clusters: list[Cluster]
    merged: int  # entries merged into a survivor
    edges_repointed: int  # graph edges moved from merged entries to their survivor
    expired_removed: int  # expired entries deleted (a dry run counts them)
    stale_forgotten: list[str] = []  # decayed and unused: forgotten (`restore` brings back)


# --- tasks --------------------------------------------------------------------------


class TaskAddParams(Params, kw_only=True):
    content: Annotated[str, Meta(min_length=1, description="What is to be done.")]
    due: DueDate | None = None
    priority: Annotated[
        int,
        Meta(ge=1, le=5, description="1 (some day) to 5 (urgent); a task's importance."),
    ] = 3
    tags: Tags = []
    scope: Annotated[
        ScopeLevel, Meta(description="Where it belongs; project (the default) from cwd.")
    ] = "project"
    scope_path: Annotated[str | None, Meta(description="File or directory of the scope.")] = None
    metadata: dict[str, Any] = {}
    written_by: WrittenBy | None = None
    cwd: Cwd = None


class TaskListParams(Params, kw_only=True):
    status: Annotated[
        list[TaskStatus],
        Meta(max_length=4, description="Only these statuses; none given: every one but done."),
    ] = []
    scope: OnlyScope = None
    scope_path: OnlyScopePath = None
    tags: Tags = []
    limit: Annotated[int, Meta(ge=1, le=1000)] = 100
    cwd: Cwd = None


class TaskListResult(Struct, kw_only=True):
    tasks: list[Entry]  # in_progress, blocked, open, done; then priority, due date, age


class TaskUpdateParams(Params, kw_only=True):
    id: EntryId
    status: Annotated[TaskStatus, Meta(description="The task's new status.")]


class TaskUpdateResult(Entry, kw_only=True):
    """The task as it is now; `changed` is false when it already had that status."""

    previous: TaskStatus | None = None
    changed: bool = True


# --- the daily log ------------------------------------------------------------------


class LogAppendParams(Params, kw_only=True):
    text: Annotated[
        str, Meta(min_length=1, max_length=4096, description="One line for today's log.")
    ]
    written_by: WrittenBy | None = None
    cwd: Cwd = None


class LogAppendResult(Struct, kw_only=True):
    id: str  # the day's log entry
    date: str  # YYYY-MM-DD, the daemon's local date
    line: str  # as appended: "- HH:MM text", redacted
    redacted: Redacted = {}


# --- what a client session was already shown --------------------------------------------


class SessionSeenParams(Params, kw_only=True):
    """Keys (memory ids, `file:<path>`, …) a client session is about to be shown: the
    ones it was not shown yet come back, and are recorded as shown unless `record` is false."""

    session_id: Annotated[SessionId, Meta(description="The client's session id.")]
    keys: Annotated[
        list[Annotated[str, Meta(min_length=1, max_length=4096)]],
        Meta(max_length=1000, description="What is about to be shown: memory ids or names."),
    ]
    record: Annotated[bool, Meta(description="Record the new keys as shown (default).")] = True
    reset: Annotated[
        bool,
        Meta(description="First forget what it was shown (its context was compacted or cleared)."),
    ] = False


class SessionSeenResult(Struct, kw_only=True):
    new: list[str]  # the keys this session was not shown before, in the order given
    seen: list[str]  # the keys it already was


class LogShowParams(Params, kw_only=True):
    date: Annotated[
        Annotated[str, Meta(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")] | None,
        Meta(description="The day, YYYY-MM-DD; default today."),
    ] = None
    cwd: Cwd = None


class LogShowResult(Struct, kw_only=True):
    date: str
    project: str
    lines: list[str]  # "- HH:MM text", in the order written
    ids: list[str]  # the log entries they came from: the day's parts, oldest first
    quarantined: int = 0  # lines held back as reading like instructions (`review`)


# --- the session brief ----------------------------------------------------------------

BRIEF_BUDGET_TOKENS = 1500


class BriefParams(Params, kw_only=True):
    path: Annotated[
        str | None,
        Meta(description="A directory in the project to brief on; default: the working one."),
    ] = None
    budget_tokens: Annotated[
        int,
        Meta(
            ge=100,
            le=MAX_BUDGET_TOKENS,
            description="At most this many tokens of the model's tokenizer (default 1500).",
        ),
    ] = BRIEF_BUDGET_TOKENS
    record: Annotated[
        bool,
        Meta(description="Remember this brief, so the next one says what changed since."),
    ] = True
    session_id: Annotated[
        SessionId | None,
        Meta(
            description=(
                "A client session's id (a hook's): the memories this brief lists are recorded "
                "as shown to it (session_seen's keys), so a prompt or a file does not show "
                "them again; one round trip, not two."
            )
        ),
    ] = None
    reset: Annotated[
        bool,
        Meta(
            description=(
                "With session_id: the session's context was compacted or cleared, so what it "
                "was shown before is forgotten first."
            )
        ),
    ] = False
    cwd: Cwd = None


BriefSection = Literal["tasks", "knowledge", "changed", "review", "log"]


class BriefResult(Struct, kw_only=True):
    project: str
    markdown: Annotated[str, Meta(description="The brief, as Markdown an agent reads.")]
    budget_tokens: int
    used_tokens: int
    briefed_at: str
    since: Annotated[
        str | None, Meta(description="When the previous brief of this project was made.")
    ] = None
    shown: Annotated[dict[str, int], Meta(description="Items shown, by section.")] = {}
    omitted: Annotated[
        dict[str, int], Meta(description="Items left out for the budget, by section.")
    ] = {}


# --- live changes ---------------------------------------------------------------------
# A connection that subscribes is sent `changed` notifications after each write commits:
# which entry, what happened, its scope and type; never its content.

ChangeKind = Literal[
    "created", "updated", "forgotten", "restored", "deleted", "linked", "unlinked", "superseded"
]
CHANGED = "changed"  # the notification's method
RESYNC = "resync"  # sent instead of the changes a lagging subscriber's queue had to drop


class SubscribeParams(Params, kw_only=True):
    scope: OnlyScope = None
    scope_path: OnlyScopePath = None
    under: Annotated[
        str | None,
        Meta(
            description=(
                "Only entries stored at this folder or a path inside it (a project's own "
                "memories and its files'); relative to cwd."
            )
        ),
    ] = None
    content_types: Annotated[
        list[ContentType],
        Meta(max_length=len(ALL_TYPES), description="Only these kinds; empty: all."),
    ] = []
    cwd: Cwd = None


class SubscribeFilter(Struct, kw_only=True):
    """The filter as the daemon resolved it (paths absolute, project/workspace found)."""

    scope: ScopeLevel | None
    scope_path: str | None
    under: str | None
    content_types: list[ContentType]


class SubscribeResult(Struct, kw_only=True):
    subscription: str
    filter: SubscribeFilter
    queue: int  # changes held for a subscriber that lags before they are dropped (resync)


class UnsubscribeParams(Params, kw_only=True):
    subscription: Annotated[
        Annotated[str, Meta(max_length=64)] | None,
        Meta(description="Which one; null: every subscription of this connection."),
    ] = None


class UnsubscribeResult(Struct, kw_only=True):
    unsubscribed: list[str]


class Change(Struct, kw_only=True, omit_defaults=True):
    """The params of a `changed` notification."""

    subscription: str
    kind: ChangeKind
    id: str
    scope_level: ScopeLevel
    scope_path: str | None
    content_type: ContentType
    at: str
    edge_type: EdgeType | None = None  # linked, unlinked, superseded: which edge
    # updated: the type it had, when this change gave it another (a subscriber that asked
    # for that type hears of the entry leaving it)
    previous_type: ContentType | None = None


class Resync(Struct, kw_only=True):
    """The params of a `resync` notification: changes were dropped; read the state again."""

    subscription: str
    dropped: int


class Notification(Struct, kw_only=True):
    jsonrpc: str = "2.0"
    method: str
    params: Any


# --- indexing the files agents keep ----------------------------------------------------


class IndexParams(Params, kw_only=True):
    """Mirror Markdown files as memories, a chunk per section; again, only what changed."""

    paths: Annotated[
        list[Annotated[str, Meta(min_length=1, max_length=4096)]],
        Meta(
            min_length=1,
            max_length=64,
            description="Files or folders to index (relative to cwd); folders are walked.",
        ),
    ]
    globs: Annotated[
        list[Annotated[str, Meta(min_length=1, max_length=256)]],
        Meta(
            max_length=16,
            description="File name patterns to index in folders (default *.md and *.mdc).",
        ),
    ] = []
    content_type: Annotated[ContentType, Meta(description="The kind the chunks are stored as.")] = (
        "convention"
    )
    cwd: Cwd = None
    forget: Annotated[
        bool,
        Meta(
            description="Instead of indexing: stop watching these paths and forget their "
            "chunks (restorable)."
        ),
    ] = False
    auto_memory_of: Annotated[
        Annotated[str, Meta(min_length=1, max_length=4096)] | None,
        Meta(
            description="The paths hold Claude Code's auto memory of this project (a folder, "
            "relative to cwd): topic files' front matter gives each its type, MEMORY.md's "
            "pointer lines are left out, and the memories are stored in that project's scope.",
        ),
    ] = None


class IndexProblem(Struct, kw_only=True):
    path: str
    error: str


class IndexSkip(Struct, kw_only=True):
    path: str
    reason: str


class IndexGone(Struct, kw_only=True):
    path: str
    chunks_forgotten: int


class IndexResult(Struct, kw_only=True):
    files_seen: Annotated[int, Meta(description="Files found under the paths.")]
    files_skipped: Annotated[int, Meta(description="Files unchanged since last indexed.")]
    chunks_added: int
    chunks_updated: int
    chunks_unchanged: int
    chunks_forgotten: Annotated[
        int, Meta(description="Sections gone from their file, or of files gone: forgotten.")
    ]
    errors: Annotated[
        list[IndexProblem], Meta(description="Files that could not be indexed, and why.")
    ] = []
    skipped: Annotated[
        list[IndexSkip],
        Meta(
            description="What was not read, and why: links leading outside the path given, "
            "FIFOs, devices, /proc files."
        ),
    ] = []
    gone: Annotated[
        list[IndexGone],
        Meta(description="Paths given that no longer exist (or, with forget, given up)."),
    ] = []


# --- the daemon itself --------------------------------------------------------------


class StatusParams(Params, kw_only=True):
    pass


class ModelInfo(Struct, kw_only=True):
    id: str
    dim: int
    path: str
    sha256: str
    source: str
    # The file onnxruntime runs: the model's 8-bit build in the cache dir, or `path`
    # itself when there is none (ENYAL_MODEL_BUILD=source, or the build failed).
    runtime: str | None = None
    # The file onnxruntime runs longer texts on (docs/PROTOCOL.md, status): the model's
    # fp32 build in the cache dir, or `path` itself when there is none. None from an
    # older daemon.
    long_runtime: str | None = None


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
    redacts_secrets: Annotated[
        bool,
        Meta(description="Whether writes go through secret redaction (config secrets.redact)."),
    ] = True
    shared: Annotated[
        list[SharedRoot],
        Meta(description="The repositories whose .enyal/ is read and written (issue 27)."),
    ] = []


class ShutdownParams(Params, kw_only=True):
    pass


class ShutdownResult(Struct, kw_only=True):
    stopping: bool


# --- sharing a project's memory (.enyal/ in its repository) ------------------------------


class ShareParams(Params, kw_only=True):
    id: EntryId
    cwd: Annotated[
        str | None,
        Meta(description="The client's working directory: its checkout is written to first."),
    ] = None
    space: Annotated[
        SpaceName | None,
        Meta(description="Share it through the team hub into this space, not .enyal/."),
    ] = None


class UnshareParams(Params, kw_only=True):
    id: EntryId


class ShareResult(Struct, kw_only=True):
    id: str
    shared: bool  # whether it is shared now
    changed: bool  # false: it already was (share) or was not (unshare)
    file: str | None  # the file it is written to (.enyal/<id>.md), when shared


class ShareSyncParams(Params, kw_only=True):
    path: Annotated[
        str | None,
        Meta(description="A folder in the repository; default: the working one."),
    ] = None
    cwd: Cwd = None
    rule: Annotated[
        list[MemoryType] | None,
        Meta(
            description=(
                "Set the project's rule: memories of these types are shared as they are "
                "remembered ([] shares none by itself)."
            )
        ),
    ] = None


class SharedProblem(Struct, kw_only=True):
    """A file in .enyal/ that could not be read, or a memory that needs a look."""

    file: str
    reason: str
    id: str | None = None


class ShareSyncResult(Struct, kw_only=True):
    root: str
    rule: list[MemoryType]
    added: int
    updated: int
    forgotten: int
    unchanged: int
    written: int  # files (re)written from the database: a write that had failed, or new
    embedded: int = 0  # texts embedded: only those the store did not hold (changed text)
    problems: list[SharedProblem]
    # Items of this repository waiting for a person after the read (files that could
    # not be read, memories edited on two branches): what `review --kind shared` lists.
    review: int = 0


class SharedRoot(Struct, kw_only=True):
    root: str
    shared: int  # memories shared into it
    rule: list[MemoryType]
    problems: int
    # Texts embedded reading its `.enyal/` since the daemon started, whoever read it.
    embedded: int = 0


# --- the team hub (issue 28): this daemon as a replica of the spaces it joined ------------


class HubInitParams(Params, kw_only=True):
    url: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=4096,
            description=(
                "The hub's PostgreSQL URL, without a password (libpq finds it: ~/.pgpass, "
                "PGPASSWORD, a client certificate)."
            ),
        ),
    ]


class HubInitResult(Struct, kw_only=True):
    url: str  # as recorded (no password)
    schema_version: int
    device: str  # this home's device id


class HubJoinParams(Params, kw_only=True):
    space: SpaceName


class HubJoinResult(Struct, kw_only=True):
    space: str
    changed: bool  # false: a member already


class HubInviteParams(Params, kw_only=True):
    space: SpaceName
    role: Annotated[
        str,
        Meta(
            pattern=r"^[A-Za-z_][A-Za-z0-9_$-]{0,62}$",
            description="The teammate's PostgreSQL role.",
        ),
    ]


class HubInviteResult(Struct, kw_only=True):
    space: str
    role: str


class HubRuleParams(Params, kw_only=True):
    project: Annotated[
        str | None, Meta(description="A folder of the project; default: the working one.")
    ] = None
    cwd: Cwd = None
    space: SpaceName


class HubRuleResult(Struct, kw_only=True):
    project: str  # the project's key
    space: str


class HubUnruleParams(Params, kw_only=True):
    project: Annotated[
        str | None,
        Meta(
            description=(
                "The rule's project: a folder of it, or the rule as stored (`hub.status` "
                "rules, `/` too); default: the working one."
            )
        ),
    ] = None
    cwd: Cwd = None


class HubUnruleResult(Struct, kw_only=True):
    project: str  # the rule removed, as it was stored
    space: str  # the space it put the project's memories into


class HubStatusParams(Params, kw_only=True):
    pass


class HubSpace(Struct, kw_only=True):
    space: str
    memories: int  # of it, held here


class HubStatusResult(Struct, kw_only=True):
    configured: bool  # hub.init was run in this home
    url: str | None
    device: str | None
    clock: int  # this home's Lamport clock
    connected: bool  # the last round reached the hub
    spaces: list[HubSpace]
    rules: dict[str, str]  # project key -> space
    cursor: int  # the last hub log position applied here
    head: int | None  # the hub log's last position, when reached
    lag: int | None  # head - cursor
    outbox: int  # local changes not yet pushed
    conflicts: int  # memories edited concurrently, listed by review
    refused: int  # pulled changes refused or quarantined since the daemon started
    last_error: str | None
    last_error_at: str | None
    last_push: str | None
    last_pull: str | None
    # Times the worker thread woke since the daemon started (a wait's end, with or without
    # work): an idle replica wakes only for a local write, the hub's announcement or a poll.
    wakeups: int = 0
    # psycopg's build the hub link runs: "binary" or "c" (compiled), or "python" (pure
    # Python: a sync takes ~5x the CPU a row; `pip install 'psycopg[binary]'`). None until
    # the worker has made its link (no hub recorded, or the daemon just started).
    psycopg: str | None = None


# --- the method table: the one list both sides dispatch on ------------------------------


class Method(Struct, frozen=True):
    params: type[Params]
    result: Any
    summary: str
    # Safe to run twice: a client may resend it as it is when a reply is lost. Any other
    # request carries an `enyal_key`, which makes a resend answer the first run's result.
    idempotent: bool = False
    # Changes what is stored (or the daemon's state); a method without it only reads.
    writes: bool = True
    # May remove or overwrite what was stored (MCP's destructiveHint).
    destructive: bool = False
    # A second identical call changes nothing more (MCP's idempotentHint). Weaker than
    # `idempotent`, which also promises the same reply, so a resend needs no key.
    repeat_changes_nothing: bool = False
    # Deletes what has expired itself, inside its own transaction (and counts it), so the
    # daemon does not sweep before running it.
    sweeps_expiry: bool = False
    # Its result carries stored memories back, which an agent must read as data.
    returns_memories: bool = False


METHODS: dict[str, Method] = {
    "remember": Method(RememberParams, RememberResult, "Store a memory."),
    "recall": Method(
        RecallParams,
        RecallResult,
        "Hybrid search over memories.",
        idempotent=True,
        writes=False,
        returns_memories=True,
    ),
    "recall_by_scope": Method(
        RecallByScopeParams,
        RecallByScopeResult,
        "Search file -> project -> workspace -> global.",
        idempotent=True,
        writes=False,
        returns_memories=True,
    ),
    "recall_batch": Method(
        RecallBatchParams,
        RecallBatchResult,
        "Several queries at once, one model batch.",
        idempotent=True,
        writes=False,
        returns_memories=True,
    ),
    "list": Method(
        ListParams,
        ListResult,
        "Entries by filter and order, a page at a time.",
        idempotent=True,
        writes=False,
        returns_memories=True,
    ),
    "get": Method(
        GetParams, Entry, "One entry by id.", idempotent=True, writes=False, returns_memories=True
    ),
    "update": Method(
        UpdateParams,
        UpdateResult,
        "Change an entry.",
        destructive=True,
        repeat_changes_nothing=True,
    ),
    "forget": Method(
        ForgetParams,
        ForgetResult,
        "Deprecate (or hard-delete) an entry.",
        destructive=True,
        repeat_changes_nothing=True,
    ),
    "restore": Method(
        RestoreParams,
        RestoreResult,
        "Bring back a forgotten entry.",
        destructive=True,  # with `version` it replaces the content, as update does
    ),
    "confirm": Method(
        ConfirmParams, Entry, "Checked and still true: reset the decay clock, count it."
    ),
    "release": Method(ReleaseParams, Entry, "Let a quarantined entry back into recall."),
    "consolidate": Method(
        ConsolidateParams,
        ConsolidateResult,
        "Merge near-duplicates, remove expired entries.",
        destructive=True,
        sweeps_expiry=True,
    ),
    "stats": Method(StatsParams, Stats, "Counts and sizes.", idempotent=True, writes=False),
    "import": Method(ImportParams, ImportResult, "Store a batch of JSONL lines."),
    "export": Method(
        ExportParams, ExportResult, "Page through every entry.", idempotent=True, writes=False
    ),
    "backup": Method(BackupParams, BackupResult, "A consistent copy of the database, online."),
    "scan": Method(
        ScanParams,
        ScanResult,
        "Find (and with fix, redact) secrets already stored.",
        destructive=True,  # with fix it overwrites the secret in the stored text
    ),
    "link": Method(LinkParams, Edge, "Create an edge between two entries."),
    "unlink": Method(UnlinkParams, Edge, "Remove an edge.", destructive=True),
    "edges": Method(EdgesParams, EdgesResult, "An entry's edges.", idempotent=True, writes=False),
    "traverse": Method(
        TraverseParams,
        TraverseResult,
        "Walk the graph from an entry.",
        idempotent=True,
        writes=False,
    ),
    "impact": Method(
        ImpactParams, ImpactResult, "What depends on an entry.", idempotent=True, writes=False
    ),
    "history": Method(
        HistoryParams,
        HistoryResult,
        "Versions and supersession chain.",
        idempotent=True,
        writes=False,
    ),
    "health": Method(
        HealthParams, Health, "Graph health metrics and issue lists.", idempotent=True, writes=False
    ),
    "review": Method(
        ReviewParams, ReviewResult, "Entries that need a look.", idempotent=True, writes=False
    ),
    "analytics": Method(
        AnalyticsParams,
        AnalyticsResult,
        "Usage events and summaries.",
        idempotent=True,
        writes=False,
    ),
    "task_add": Method(TaskAddParams, RememberResult, "Add a task (status open)."),
    "task_list": Method(
        TaskListParams,
        TaskListResult,
        "Tasks by status, priority, due date.",
        idempotent=True,
        writes=False,
        returns_memories=True,
    ),
    "task_update": Method(
        TaskUpdateParams, TaskUpdateResult, "Change a task's status.", repeat_changes_nothing=True
    ),
    "log_append": Method(LogAppendParams, LogAppendResult, "Append a line to today's log."),
    "log_show": Method(
        LogShowParams,
        LogShowResult,
        "A day's log lines for the project.",
        idempotent=True,
        writes=False,
    ),
    "brief": Method(
        BriefParams,
        BriefResult,
        "What an agent should know starting here.",
        writes=True,  # it records that this brief was made
        repeat_changes_nothing=True,
    ),
    "session_seen": Method(
        SessionSeenParams, SessionSeenResult, "What a client session was not shown yet."
    ),
    "subscribe": Method(
        SubscribeParams, SubscribeResult, "Be sent `changed` notifications on this connection."
    ),
    "unsubscribe": Method(UnsubscribeParams, UnsubscribeResult, "Stop a subscription."),
    "index": Method(
        IndexParams, IndexResult, "Mirror Markdown files as memories.", repeat_changes_nothing=True
    ),
    "status": Method(
        StatusParams,
        Status,
        "The daemon's version, paths and model.",
        idempotent=True,
        writes=False,
    ),
    "share": Method(
        ShareParams,
        ShareResult,
        "Share a memory: write it to .enyal/ in its repository.",
        repeat_changes_nothing=True,
    ),
    "unshare": Method(
        UnshareParams,
        ShareResult,
        "Stop sharing a memory: its .enyal/ file goes, the memory stays.",
        repeat_changes_nothing=True,
    ),
    "share_sync": Method(
        ShareSyncParams,
        ShareSyncResult,
        "Read a repository's .enyal/ now (and set its rule).",
        repeat_changes_nothing=True,
    ),
    "hub.init": Method(
        HubInitParams,
        HubInitResult,
        "Record the team hub's URL for this home and create or migrate its schema.",
        repeat_changes_nothing=True,
    ),
    "hub.join": Method(
        HubJoinParams,
        HubJoinResult,
        "Join a space of the team hub: its memories replicate here.",
        repeat_changes_nothing=True,
    ),
    "hub.invite": Method(
        HubInviteParams,
        HubInviteResult,
        "Let a teammate's role join a space this home is a member of.",
        repeat_changes_nothing=True,
    ),
    "hub.rule": Method(
        HubRuleParams,
        HubRuleResult,
        "Set a project's rule: its memories join this space as they are written.",
        repeat_changes_nothing=True,
    ),
    "hub.unrule": Method(
        HubUnruleParams,
        HubUnruleResult,
        "Remove a project's rule: its memories no longer join a space as they are written.",
    ),
    "hub.status": Method(
        HubStatusParams,
        HubStatusResult,
        "The team hub as this daemon sees it: spaces, lag, outbox, last error.",
        idempotent=True,
        writes=False,
    ),
    "shutdown": Method(ShutdownParams, ShutdownResult, "Stop the daemon gracefully."),
}


# --- JSON-RPC 2.0 framing -------------------------------------------------------------

RequestId = int | str | None


class Expect(Struct, kw_only=True, frozen=True):
    """The release a client was built with: a daemon of another one refuses the request
    (VERSION_MISMATCH) instead of running it, so the version check costs no round trip."""

    version: str
    protocol: int
    # The database the client resolved for itself (absolute): a daemon serving another
    # one refuses too, rather than answer from another data dir sharing the socket.
    db: str | UnsetType = UNSET


class Request(Struct, kw_only=True, omit_defaults=True):
    jsonrpc: str
    method: str
    params: msgspec.Raw | UnsetType = UNSET
    id: RequestId | UnsetType = UNSET
    # An extension member (JSON-RPC 2.0 leaves other members to the application): a client
    # sends it on a connection's first request. Daemons before it ignore it.
    enyal_expect: Expect | UnsetType = UNSET
    # Another extension member: the client's name for this request, the same on a resend.
    # A daemon that has answered a request with this key answers the resend with the same
    # result rather than running it again (server/replies.py).
    enyal_key: Annotated[str, Meta(max_length=64)] | UnsetType = UNSET


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
STARTUP_FAILED = -32007  # the daemon could not start; in logs and exit codes, not on the wire
VERSION_MISMATCH = -32008
STORAGE_UNAVAILABLE = -32009
BAD_PATH = -32010  # a path the file system cannot hold or reach
BUSY = -32011  # another process holds the database's write lock; try again
HUB_UNAVAILABLE = -32012  # the team hub cannot be reached or refused us; local work goes on

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
    STARTUP_FAILED: "startup failed",
    VERSION_MISMATCH: "version mismatch",
    STORAGE_UNAVAILABLE: "storage unavailable",
    BAD_PATH: "bad path",
    BUSY: "busy",
    HUB_UNAVAILABLE: "hub unavailable",
}
