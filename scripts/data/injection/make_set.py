#!/usr/bin/env python3
"""Write labelled.jsonl, the injection classifier's labelled set, from the lists here.

    scripts/data/injection/make_set.py

Each row: text, label ("attack" or "benign"), kind, source, group, split, and for an
attack hidden in a carrier its payload (training labels the carrier's passages by it).
The split is fixed before any training, by group (a payload and every carrier it was
put in; a quoted file's lines; a composed action's phrasings; any other single text):
the first byte of the SHA-256 of the group's name, even for dev and odd for held-out,
so about half of each kind goes each way, no payload or file is on both sides, and
adding texts never moves one already in the set. Train
and tune on "dev" only; "heldout" is scored once, at the end.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import eighth_batch as eighth  # noqa: E402
import fifth_batch as fifth  # noqa: E402
import fourth_batch as fourth  # noqa: E402
import seventh_batch as seventh  # noqa: E402
import sixth_batch as sixth  # noqa: E402
from attacks import ATTACKS, HIDDEN_PAYLOADS, MULTILINGUAL  # noqa: E402
from benign import BENIGN, CARRIERS, FILLERS  # noqa: E402
from composed import attacks as composed_attacks  # noqa: E402
from composed import benign as composed_benign  # noqa: E402
from conventions import CONVENTIONS  # noqa: E402
from more_attacks import MORE_ATTACKS, MORE_HIDDEN, MORE_MULTILINGUAL  # noqa: E402
from more_benign import MORE_BENIGN, MORE_FILLERS  # noqa: E402
from third_batch import THIRD_ATTACKS, THIRD_BENIGN  # noqa: E402

MEMORIES = HERE.parent / "agent_memories.jsonl"
OUT = HERE / "labelled.jsonl"
MEMORY_EVERY = 3  # one ordinary memory in three: enough easy negatives, not a flood


def _row(text: str, label: str, kind: str, source: str, group: str, **extra: str) -> dict[str, Any]:
    return {"text": text, "label": label, "kind": kind, "source": source, "group": group, **extra}


def _carried(i: int, x: str) -> list[tuple[str, str]]:
    """The slot text put into two carriers, chosen by its index: (carrier kind, text)."""
    out = []
    for k in (i, i + 5):
        kind, template = CARRIERS[k % len(CARRIERS)]
        out.append((kind, template.replace("{x}", x)))
    return out


def rows() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, (kind, source, text) in enumerate(ATTACKS):
        out.append(_row(text, "attack", kind, source, f"attack-{i}"))
    for i, payload in enumerate(HIDDEN_PAYLOADS):
        for carrier, text in _carried(i, payload):
            out.append(
                _row(text, "attack", "hidden", f"own ({carrier})", f"hidden-{i}", payload=payload)
            )
    for i, (lang, text) in enumerate(MULTILINGUAL):
        out.append(_row(text, "attack", "multilingual", f"own ({lang})", f"ml-{i}"))
    for kind, i, text in composed_attacks():
        out.append(_row(text, "attack", "composed", f"own ({kind})", f"composed-{i}"))
    for i, text in composed_benign():
        out.append(_row(text, "benign", "composed-convention", "own", f"composed-benign-{i}"))
    for source, text in CONVENTIONS:
        out.append(_row(text, "benign", "convention", source, source))
    for i, (kind, text) in enumerate(BENIGN):
        out.append(_row(text, "benign", kind, "own", f"benign-{i}"))
    for i, filler in enumerate(FILLERS):
        for carrier, text in _carried(i, filler):
            out.append(_row(text, "benign", "carrier", f"own ({carrier})", f"filler-{i}"))
    out += _second_batch()
    out += _third_batch()
    out += _fourth_batch()
    out += _fifth_batch()
    out += _sixth_batch()
    out += _seventh_batch()
    out += _eighth_batch()
    memories = [json.loads(line) for line in MEMORIES.read_text(encoding="utf-8").splitlines()]
    for m in memories[::MEMORY_EVERY]:
        out.append(
            _row(m["content"], "benign", "memory", "scripts/data/agent_memories.jsonl", m["id"])
        )
    return out


def _second_batch() -> list[dict[str, Any]]:
    """more_attacks.py and more_benign.py: a text a group (a hidden payload or filler
    with its two carriers), named apart from the first batch's so no group moves."""
    out: list[dict[str, Any]] = []
    for i, (kind, text) in enumerate(MORE_ATTACKS):
        out.append(_row(text, "attack", kind, "own", f"more-attack-{i}"))
    for i, payload in enumerate(MORE_HIDDEN):
        for carrier, text in _carried(i + 3, payload):
            group = f"more-hidden-{i}"
            out.append(_row(text, "attack", "hidden", f"own ({carrier})", group, payload=payload))
    for i, (lang, text) in enumerate(MORE_MULTILINGUAL):
        out.append(_row(text, "attack", "multilingual", f"own ({lang})", f"more-ml-{i}"))
    for i, (kind, text) in enumerate(MORE_BENIGN):
        out.append(_row(text, "benign", kind, "own", f"more-benign-{i}"))
    for i, filler in enumerate(MORE_FILLERS):
        for carrier, text in _carried(i + 3, filler):
            out.append(_row(text, "benign", "carrier", f"own ({carrier})", f"more-filler-{i}"))
    return out


def _third_batch() -> list[dict[str, Any]]:
    """third_batch.py: one group a text, named apart from the earlier batches'."""
    out = [
        _row(text, "attack", kind, "own", f"third-attack-{i}")
        for i, (kind, text) in enumerate(THIRD_ATTACKS)
    ]
    out += [
        _row(text, "benign", kind, "own", f"third-benign-{i}")
        for i, (kind, text) in enumerate(THIRD_BENIGN)
    ]
    return out


def _own_batch(
    name: str,
    batch: int,
    attacks: list[tuple[str, str]],
    carriers: list[tuple[str, str]],
    second: int,
    hidden: list[str],
    fillers: list[str],
    benign: list[tuple[str, str]],
) -> list[dict[str, Any]]:
    """A batch of our own writing: a text a group; a hidden payload or a filler in two of
    the batch's own carriers (the i-th and the (i + second)-th, so a carrier's text says
    nothing of its label), both one group. Each row says its batch, so its held-out
    figures can be told from the older rows' (which earlier rounds saw scored)."""
    out = [
        _row(text, "attack", kind, "own", f"{name}-attack-{i}")
        for i, (kind, text) in enumerate(attacks)
    ]

    def carried(i: int, x: str) -> list[tuple[str, str]]:
        picked = (carriers[i % len(carriers)], carriers[(i + second) % len(carriers)])
        return [(kind, template.replace("{x}", x)) for kind, template in picked]

    for i, payload in enumerate(hidden):
        for carrier, text in carried(i, payload):
            group = f"{name}-hidden-{i}"
            out.append(_row(text, "attack", "hidden", f"own ({carrier})", group, payload=payload))
    for i, filler in enumerate(fillers):
        for carrier, text in carried(i + 3, filler):
            out.append(_row(text, "benign", "carrier", f"own ({carrier})", f"{name}-filler-{i}"))
    out += [
        _row(text, "benign", kind, "own", f"{name}-benign-{i}")
        for i, (kind, text) in enumerate(benign)
    ]
    for r in out:
        r["batch"] = batch
    return out


def _fourth_batch() -> list[dict[str, Any]]:
    """fourth_batch.py: its own writing (_own_batch), then a quoted file's lines one group
    and a pallms line one group, all batch 4."""
    out = _own_batch(
        "fourth",
        4,
        fourth.FOURTH_ATTACKS,
        fourth.FOURTH_CARRIERS,
        7,
        fourth.FOURTH_HIDDEN,
        fourth.FOURTH_FILLERS,
        fourth.FOURTH_BENIGN,
    )
    quoted = [
        _row(text, "benign", "convention", src, src) for src, text in fourth.QUOTED_CONVENTIONS
    ]
    actions = fourth.PALLMS_ACTIONS
    for i, (kind, line) in enumerate(zip(fourth.PALLMS_KINDS, fourth.PALLMS_LINES, strict=True)):
        text = line.replace("{NEW_INSTRUCTION}", actions[i % len(actions)])
        quoted.append(_row(text, "attack", kind, fourth.PALLMS, f"pallms-{i}"))
    for r in quoted:
        r["batch"] = 4
    return out + quoted


def _fifth_batch() -> list[dict[str, Any]]:
    """fifth_batch.py: its own writing (_own_batch), batch 5."""
    return _own_batch(
        "fifth",
        5,
        fifth.FIFTH_ATTACKS,
        fifth.FIFTH_CARRIERS,
        5,
        fifth.FIFTH_HIDDEN,
        fifth.FIFTH_FILLERS,
        fifth.FIFTH_BENIGN,
    )


def _sixth_batch() -> list[dict[str, Any]]:
    """sixth_batch.py: its own writing (_own_batch), batch 6, every row dev (DEV_ONLY)."""
    return _own_batch(
        "sixth",
        6,
        sixth.SIXTH_ATTACKS,
        sixth.SIXTH_CARRIERS,
        2,
        sixth.SIXTH_HIDDEN,
        sixth.SIXTH_FILLERS,
        sixth.SIXTH_BENIGN,
    )


def _seventh_batch() -> list[dict[str, Any]]:
    """seventh_batch.py: its own writing (_own_batch), batch 7, every row held out
    (FRESH_HELDOUT)."""
    return _own_batch(
        "seventh",
        7,
        list(seventh.SEVENTH_ATTACKS),
        list(seventh.SEVENTH_CARRIERS),
        3,
        list(seventh.SEVENTH_HIDDEN),
        list(seventh.SEVENTH_FILLERS),
        list(seventh.SEVENTH_BENIGN),
    )


def _eighth_batch() -> list[dict[str, Any]]:
    """eighth_batch.py: its own writing (_own_batch), batch 8, every row held out
    (FRESH_HELDOUT): round ten's fresh check, the seventh having been scored once."""
    return _own_batch(
        "eighth",
        8,
        list(eighth.EIGHTH_ATTACKS),
        list(eighth.EIGHTH_CARRIERS),
        3,
        list(eighth.EIGHTH_HIDDEN),
        list(eighth.EIGHTH_FILLERS),
        list(eighth.EIGHTH_BENIGN),
    )


# Batches written to train on only: their rows are dev whatever their group's hash, so
# the held-out half stays the rows earlier rounds measured (its figures compare).
DEV_ONLY = frozenset({6})
# Batches written to be held out whole: a fresh check, because earlier rounds scored the
# old held-out half several times (round nine; scored once, at the end of a round). The
# eighth is round ten's: the seventh was scored at the end of round nine.
FRESH_HELDOUT = frozenset({7, 8})


def split(all_rows: list[dict[str, Any]]) -> None:
    """Each group to the half the SHA-256 of its name picks: fixed for a group whatever
    else is added to the set (a DEV_ONLY batch's rows to dev, a FRESH_HELDOUT batch's
    to the held-out half)."""
    for r in all_rows:
        if r.get("batch") in DEV_ONLY:
            r["split"] = "dev"
            continue
        if r.get("batch") in FRESH_HELDOUT:
            r["split"] = "heldout"
            continue
        digest = hashlib.sha256(r["group"].encode()).digest()
        r["split"] = "dev" if digest[0] % 2 == 0 else "heldout"


def main() -> None:
    all_rows = rows()
    texts = [r["text"] for r in all_rows]
    assert len(set(texts)) == len(texts), "a text is in the set twice"
    split(all_rows)
    with OUT.open("w", encoding="utf-8") as f:
        for r in all_rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    for r in all_rows:
        counts[(r["label"], r["kind"], r["split"])] += 1
    for key in sorted(counts):
        print(*key, counts[key])
    print(len(all_rows), "rows ->", OUT)


if __name__ == "__main__":
    main()
