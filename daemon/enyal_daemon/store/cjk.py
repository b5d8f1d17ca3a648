"""Chinese, Japanese and Korean text as overlapping character pairs, for keyword search.

FTS5's unicode61 tokenizer splits on spaces and punctuation, and CJK text has none
between words: "数据库连接池配置" is one token, so a query for 连接池 (a substring of
it) finds nothing. The usual fix in search engines (Lucene's CJK analyzer) is to index
each run of CJK characters as its overlapping bigrams, 数据 据库 库连 连接 …, and to
search a word as its own bigrams: a word is found wherever it occurs inside a run,
whatever the segmentation.

The bigrams live in a side index (`context_cjk`, migration m012) filled by triggers
through the SQL function registered here, so the main index and its integrity check
are untouched and text with no CJK costs nothing: the triggers only run for content
that holds a CJK character (CJK_GLOB).
"""

from __future__ import annotations

import re

import apsw

# Han (with extension A and compatibility ideographs), hiragana, katakana (with the
# half-width forms) and Hangul syllables.
CJK_CHARS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\uff66-\uff9f\uac00-\ud7af"
)
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
# The same classes for SQLite's GLOB (which compares code points): a trigger's WHEN.
CJK_GLOB = f"*[{CJK_CHARS}]*"
SQL_FUNCTION = "enyal_cjk_bigrams"


def runs(text: str) -> list[str]:
    return CJK_RUN.findall(text)


def bigrams(run: str) -> list[str]:
    """The overlapping pairs of a run, then its last character alone, so that a
    one-character query finds the run's end as well as its other characters (each of
    which starts a pair). A run of one character is that character."""
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


def indexed_text(text: str) -> str:
    """What the side index holds for a text: the bigrams of each CJK run, a run per line."""
    return "\n".join(" ".join(bigrams(r)) for r in runs(text))


def query(word: str) -> str:
    """The FTS5 query for a CJK string: the phrase of its bigrams (consecutive, so a
    substring of a run; keyword search sends one bigram at a time), or for one
    character the pairs it starts and itself."""
    if len(word) == 1:
        return f'"{word}"*'
    return '"' + " ".join(word[i : i + 2] for i in range(len(word) - 1)) + '"'


def register(conn: apsw.Connection) -> None:
    """The SQL function the side index's triggers call; every connection gets it, so a
    write works on whichever one the daemon makes it through."""
    conn.create_scalar_function(SQL_FUNCTION, _sql_indexed_text, 1, deterministic=True)


def _sql_indexed_text(*args: apsw.SQLiteValue) -> str:
    text = args[0] if args else None
    return indexed_text(text) if isinstance(text, str) else ""
