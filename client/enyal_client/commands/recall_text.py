"""Recall's text output, as people read it: one place for both of `enyal recall`'s paths
(commands/memory.py through argparse, commands/lean_recall.py without it), so that the
two print the same bytes (tests/test_lean_recall.py).

It reads entries and hits as the JSON objects the daemon sends (dicts): the lean path
has no msgspec to decode them into the wire's Structs, and the full path hands it
msgspec.to_builtins of its Structs, the same objects. A field the wire leaves out when
it is not true (source_changed, source_missing, read_only, indexed_from) is read with
.get(). Imports nothing at run time but kinds.py, which every client loads (config.py):
the lean path counts every module."""

from __future__ import annotations

from enyal_protocol.kinds import written_by

TYPE_CHECKING = False  # typing's own constant would import typing, which this path avoids
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    Obj = Mapping[str, Any]

# How much of a memory the human recall output shows; --json and `get` show all of it.
SHOWN_CHARS = 240


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """One line of at most `limit` characters, saying how much was left out."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return f"{flat[: limit - 1]}… (+{len(flat) - limit + 1} chars)"


def scope_of(e: Obj) -> str:
    return str(e["scope_level"]) + (f" {e['scope_path']}" if e.get("scope_path") else "")


def source_note(e: Obj) -> str:
    """What recall, get and list say about the file an entry cites ('' when it is as it
    was): the daemon sends the flags only when true."""
    if e.get("source_missing") is True:
        return "source missing: the file it cites is gone"
    if e.get("source_changed") is True:
        what = (
            "re-index it"
            if e.get("read_only") is True
            else f"enyal confirm {e['id'][:8]} once checked"
        )
        return f"source changed since written ({what})"
    return ""


def provenance(e: Obj) -> str:
    """Where a memory came from, for recall's text ('' when nothing is known): the file
    it mirrors, or its source, and who wrote it (--json carries the same fields)."""
    parts = []
    source_type, source_ref = e.get("source_type"), e.get("source_ref")
    if e.get("read_only") is True:
        parts.append(f"indexed from {source_ref or e.get('indexed_from')}")
    elif source_type or source_ref:
        parts.append(f"source {source_type or '-'} {source_ref or ''}".rstrip())
    if e.get("written_by"):
        parts.append(f"written by {written_by(e['written_by'], e.get('metadata'))}")
    return "from: " + "; ".join(parts) if parts else ""


def hits_text(hits: Sequence[Obj], budget: Obj | None = None) -> str:
    if not hits and budget is None:
        return "no memories matched"
    out = []
    for i, h in enumerate(hits, 1):
        tags = f"  tags: {', '.join(h['tags'])}" if h.get("tags") else ""
        # Under a budget the daemon already cut what had to be cut: show what it packed.
        content = h["content"] if budget is not None else shown(h["content"])
        out.append(
            f"{i}. {content}\n"
            f"   {h['id']}  {h['content_type']}  [{scope_of(h)}]  score {h['score']:.3f} "
            f"(meaning {h['semantic']:.2f}, words {h['keyword']:.2f}, "
            f"recency {h['recency']:.2f}, confidence {h['effective_confidence']:.2f}){tags}"
            + (f"\n   superseded by {h.get('superseded_by')}" if h.get("is_superseded") else "")
            + ("\n   has conflicts (see enyal edges)" if h.get("has_conflicts") else "")
            + (f"\n   {origin}" if (origin := provenance(h)) else "")
            + (f"\n   {note}" if (note := source_note(h)) else "")
        )
    if budget is not None:
        out.append(budget_line(budget))
    return "\n".join(out)


def budget_line(b: Obj) -> str:
    line = f"{b['used_tokens']} of {b['budget_tokens']} tokens"
    if b.get("truncated"):
        line += f"; {b['truncated'][:8]} cut to fit"
    if b.get("omitted"):
        line += f"; left out {b['omitted']}: {' '.join(i[:8] for i in b['omitted_ids'])}"
    return line
