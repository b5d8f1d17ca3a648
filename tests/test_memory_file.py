"""The shared file format (client/enyal_protocol/memory_file.py): what is written reads
back the same, and what is not a memory says why, never anything but FormatError."""

from __future__ import annotations

import pytest

from enyal_protocol import memory_file as mf

ID = "5b0f3c1e-8d3a-4c47-9a55-0d1f2e3a4b5c"


def sample(**fields: object) -> mf.MemoryFile:
    base: dict[str, object] = {
        "id": ID,
        "content": "Migrations are written with alembic.\n\n---\nNever by hand: # not a heading",
        "content_type": "convention",
        "path": "src/db/models.py",
        "tags": ["db", "team"],
        "importance": 4,
        "confidence": 0.75,
        "created": "2026-11-26T01:12:00.000000Z",
        "updated": "2026-11-26T02:00:00.000000Z",
        "version": 3,
        "supersedes": ["a1b2c3d4-0000-4000-8000-000000000000"],
        "relates_to": ["e5f6a7b8-0000-4000-8000-000000000000"],
        "written_by": "user",
    }
    base.update(fields)
    return mf.MemoryFile(**base)  # type: ignore[arg-type]


def test_what_is_written_reads_back_the_same() -> None:
    m = sample()
    text = mf.render(m)
    assert text.startswith("---\nenyal: 1\n")
    assert mf.parse(text, mf.file_name(ID)) == m
    bare = mf.MemoryFile(id=ID, content="x", created="2026-01-01", updated="2026-01-01")
    assert mf.parse(mf.render(bare)) == bare


def test_a_file_written_by_hand_in_yaml_style_reads() -> None:
    text = (
        f'---\nenyal: 1\nid: {ID}\ntype: decision\ntags: ["a"]\n'
        "created: 2026-11-26\nupdated: 2026-11-26\n---\n\nWe use Postgres.\n"
    )
    m = mf.parse(text, mf.file_name(ID))
    assert (m.content_type, m.content, m.tags, m.created) == (
        "decision",
        "We use Postgres.",
        ["a"],
        "2026-11-26",
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("We use Postgres.\n", "no front matter"),
        ("---\nenyal: 1\nid: x\n", "no closing '---'"),
        (f"---\nenyal: 1\nid: {ID}\ncolour: red\n---\n\nx\n", "unknown key 'colour'"),
        (f"---\nid: {ID}\n---\n\nx\n", "no 'enyal:' line"),
        (f"---\nenyal: 2\nid: {ID}\n---\n\nx\n", "format 2 by a newer Enyal"),
        (f"---\nenyal: 1\nid: {ID}\nimportance: high\n---\n\nx\n", "bad front matter"),
        (f"---\nenyal: 1\nid: {ID}\ncreated: 1\nupdated: 1\n---\n\n\n", "is empty"),
        ("---\nenyal: 1\nno colon here\n---\n\nx\n", "not 'key: value'"),
    ],
)
def test_what_is_not_a_memory_says_why(text: str, reason: str) -> None:
    with pytest.raises(mf.FormatError, match=reason.replace("(", r"\(")):
        mf.parse(text)


def test_a_file_must_hold_the_memory_its_name_says() -> None:
    with pytest.raises(mf.FormatError, match="named"):
        mf.parse(mf.render(sample()), "0000aaaa-other.md")
    assert mf.id_of("notes.txt") is None and mf.id_of("../x.md") is None
    assert mf.id_of(mf.file_name(ID)) == ID


def test_merge_conflict_markers_are_refused_and_split_into_both_sides() -> None:
    ours, theirs = sample(content="Use tox", version=4), sample(content="Use nox", version=4)
    a, b = mf.render(ours).split("\n"), mf.render(theirs).split("\n")
    merged = []
    for x, y in zip(a, b, strict=True):
        merged += [x] if x == y else ["<<<<<<< HEAD", x, "=======", y, ">>>>>>> theirs"]
    text = "\n".join(merged)
    with pytest.raises(mf.FormatError, match="merge-conflict markers"):
        mf.parse(text)
    sides = mf.sides(text)
    assert sides is not None
    assert [mf.parse(s).content for s in sides] == ["Use tox", "Use nox"]
    assert mf.sides(mf.render(ours)) is None
    assert mf.sides("<<<<<<< HEAD\nonly one side\n") is None  # an unfinished hunk


def test_a_bad_value_is_named_by_the_key_a_person_wrote() -> None:
    text = f'---\nenyal: 1\nid: "{ID}"\ntype: "bogus"\n---\n\nx\n'
    with pytest.raises(mf.FormatError) as caught:
        mf.parse(text)
    assert "`type`" in str(caught.value) and "content_type" not in str(caught.value)
