"""Keyword search over FTS5, with the user's text made literal and its score made comparable.

FTS5 has its own query language (quotes, *, NEAR(), OR/AND/NOT, -, column:
filters). Memories are searched with plain words, so every word is quoted and
the words are OR-ed: an operator in the user's text is just a word, and a query
of many words still matches entries that hold only some of them.

Raw BM25 grows with the corpus (rare words score higher in a big one), so it is
divided by the best score the query could get: the sum of its words' IDF (or the
best match's score, where repeated words lift it above that). The result is the share
of the query's information an entry matches, in [0, 1], whatever the corpus size.
It is squared, so that matching half of a query is worth a quarter: one shared word
("code" in "which linter should I run on the code?") must not outweigh a clear match
in meaning. Stopwords are dropped first.

A run of Chinese, Japanese or Korean characters in the query is read as its bigrams,
matched in the side index of CJK bigrams (store/cjk.py), so a word is found inside
longer runs; they score with the other words the same way (BM25 over IDF).
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

import apsw

from ..store import cjk, remembered
from ..store.filters import VIEW_INDEX, EntryFilter

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32
# In a store of PRUNE_FROM entries or more, candidates come from the query's rarest
# words only: none held by more than COMMON_SHARE of the entries, and no more than
# MAX_RANKED entries ranked in all (BM25 costs about a microsecond per entry ranked).
# 4,000 rather than 8,000 halves the keyword search at 100k (7.2 -> 3.6 ms p50) and
# leaves SciFact where it was (nDCG@10 .720 -> .721; 2,000 costs .008).
PRUNE_FROM = 2000
COMMON_SHARE = 0.2
MAX_RANKED = 4000
# Of those, a word held by more than PULL_SHARE of the entries pulls none in (unless it
# is the rarest): it only adds to the scores of the entries the rarer words pulled, which
# are then the scores all the words give them (_pulled_bm25). A path's "py" or an
# error's "tests", held by 13% of a 10k store, were 9 in 10 of the entries ranked.
# Dev nDCG@10, conversations / SciFact: .533 / .738 pulling all, .533 / .738 at 0.1,
# .533 / .739 at 0.05; a budget of 1,000 entries pulled instead: .530 / .738.
PULL_SHARE = 0.05
DOC_COUNT_TTL = 30.0  # seconds; an IDF a few writes old ranks the same

STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there
    these they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours""".split()
)


def terms(text: str) -> list[str]:
    """The words of a query worth matching: lower-cased, deduplicated, stopwords dropped
    (unless nothing else is left, so a query of only stopwords still finds something)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    content = [w for w in words if w not in STOPWORDS]
    return (content or words)[:MAX_TERMS]


def quoted(term: str) -> str:
    return f'"{term}"'


# A query word and the index it is matched in: (word, True) for a CJK run.
Term = tuple[str, bool]
_TABLES = {False: "context_fts", True: "context_cjk"}
CJK_WIDEN = 4  # each CJK word's own best k x this are summed (_cjk_bm25)


def split_cjk(words: list[str]) -> list[Term]:
    """Each word's CJK runs apart from the rest ("api设计" is "api" and 设计), a run
    of two or more characters as its bigrams: CJK has no spaces between words, so a
    query run is often a phrase or a sentence ("数据库连接池的配置"), and its bigrams,
    OR-ed and weighted by IDF like words, score the share of it an entry holds
    (search engines' CJK analyzers do the same)."""
    out: list[Term] = []
    for w in words:
        pos = 0
        for m in cjk.CJK_RUN.finditer(w):
            if m.start() > pos:
                out.append((w[pos : m.start()], False))
            run = m.group(0)
            out.extend((b, True) for b in (cjk.bigrams(run)[:-1] or [run]))
            pos = m.end()
        if pos < len(w):
            out.append((w[pos:], False))
    return list(dict.fromkeys(out))[:MAX_TERMS]


def match_query(term: Term) -> str:
    word, is_cjk = term
    return cjk.query(word) if is_cjk else quoted(word)


def search(
    conn: apsw.Connection,
    counts: DocCounts,
    text: str,
    k: int,
    f: EntryFilter | None = None,
) -> list[tuple[int, float]]:
    """(rid, keyword score in [0, 1]) for the k best BM25 matches, among the entries the
    filter allows if it restricts anything (else every entry, deprecated ones too: the
    caller drops those, which is cheaper than joining the entries table)."""
    return search_words(conn, counts, split_cjk(terms(text)), k, f)


# What the BM25 searches of a query read, so the same searches give the same raw scores
# while the store's version holds (Remembered): the words that pull candidates, those
# that only score, each CJK word with the counts its scale comes from, k and the filter.
Searched = tuple[tuple[Term, ...], tuple[Term, ...], tuple[tuple[Term, int, int], ...], int, Any]
Hits = tuple[tuple[int, float], ...]
Remember = Callable[[Searched, Callable[[], Hits]], Hits]


def _run(searched: Searched, compute: Callable[[], Hits]) -> Hits:
    """The searches run, nothing remembered (`search`'s own)."""
    return compute()


def search_words(
    conn: apsw.Connection,
    counts: DocCounts,
    words: list[Term],
    k: int,
    f: EntryFilter | None = None,
    remember: Remember | None = None,
) -> list[tuple[int, float]]:
    """`search` of a query already split into its words (split_cjk(terms(text))).
    `remember`: where the raw BM25 hits of the searches it runs are kept, by what those
    searches read (`Searched`): only the scaling to [0, 1] reads the query's other words."""
    if not words:
        return []
    n = _store_size(conn)
    dfs = {w: counts.get(conn, *w) for w in words}
    ideal = max(sum(_idf(n, df) for df in dfs.values()), 1e-6)
    # BM25 scores every entry holding any query word, so a word found in a large share of
    # a big store costs a scan of that share (a third of a million rows at 1M) while
    # adding little (its IDF is low). Such words still count in `ideal`; they just do not
    # pull candidates in. Meaning finds those entries anyway.
    wanted: list[Term] = []
    ranked = 0
    for w, df in sorted(dfs.items(), key=lambda item: item[1]):
        if df == 0:
            continue
        if n >= PRUNE_FROM and (df > COMMON_SHARE * n or ranked + df > MAX_RANKED):
            break
        wanted.append(w)
        ranked += df
    if not wanted:
        return []
    totals: dict[int, float] = {}
    plain = [w for w in wanted if not w[1]]
    pulling = _pulling(plain, dfs, n) if n >= PRUNE_FROM else len(plain)
    pull, add, side = plain[:pulling], plain[pulling:], [w for w in wanted if w[1]]

    def searched() -> Hits:
        hits = _pulled_bm25(conn, pull, add, k, f) if plain else []
        return (*hits, *_cjk_bm25(conn, side, dfs, n, k, f))

    read = (tuple(pull), tuple(add), tuple((w, dfs[w], n) for w in side), k)
    hits = (remember or _run)((*read, f if f is not None and f.restricts else None), searched)
    for rid, score in hits:
        totals[rid] = totals.get(rid, 0.0) + score
    scored = sorted(totals.items(), key=lambda item: item[1], reverse=True)[:k]
    # BM25 saturates a word's weight at (k1 + 1) x its IDF, so an entry that repeats the
    # query's words can score above `ideal`. Clipping at 1 tied all such entries (two or
    # more in the BM25 top ten of 42 of SciFact's 300 queries); scaling by the best score
    # instead keeps their order and leaves the usual case, best <= ideal, unchanged.
    scale = max(ideal, scored[0][1]) if scored else ideal  # rank order: best first
    return [(rid, (s / scale) ** 2) for rid, s in scored]


class Remembered:
    """The last keyword searches' raw BM25 hits, by what the searches read (`Searched`),
    while the store's Version (store/writer.py) stays put: hooks search the same words
    again (a failing test's error run after run, a file's path in every session), and
    once the query's vector was remembered too (embedder/memo.py) this search was most
    of such a recall (14 of 24 ms for a failed command's, issue 29). Kept by the
    searches, not by the query's words: a word no entry holds (a test's number, a run's
    timing, "0.31s") searches nothing and only scales the scores, so an error that comes
    back with such a word changed runs no search again; at 100k that search was 4.98 of
    a failed command's 9.3 ms of request-thread CPU, level with the query's embedding
    running beside it (6.2), so the call waited on it. A write that changes anything a
    search reads moves the version, which drops them all; access counts do not (the
    results do not read them). `count` is that version as its owner reads it (the engine's
    `_unwritten`: a new count each time on a store another process may write)."""

    SIZE = 256

    def __init__(self, count: Callable[[], int]) -> None:
        self._known: remembered.Remembered[Hits]
        self._known = remembered.Remembered(count, self.SIZE)

    def search(
        self,
        conn: apsw.Connection,
        counts: DocCounts,
        text: str,
        k: int,
        f: EntryFilter | None = None,
    ) -> list[tuple[int, float]]:
        """`search`'s answer, its searches remembered."""
        return search_words(conn, counts, split_cjk(terms(text)), k, f, self._known.get)


def _pulling(words: list[Term], dfs: dict[Term, int], n: int) -> int:
    """How many of `words` (rarest first) pull candidates: those held by PULL_SHARE of
    the n entries or fewer, and the rarest whatever it holds."""
    return max(1, sum(1 for w in words if dfs[w] <= PULL_SHARE * n))


def _pulled_bm25(
    conn: apsw.Connection, pull: list[Term], score: list[Term], k: int, f: EntryFilter | None
) -> list[tuple[int, float]]:
    """(rid, BM25 score of all the words) of the k best entries holding a `pull` word:
    those holding a `score` word too and those holding none, each asked apart, so that
    FTS5 ranks only the entries the pulling words hold. bm25() is a sum over the query's
    phrases, each weighed by its IDF in the whole index, so either part scores an entry as
    the OR of every word would (an absent word adds 0)."""
    either = " OR ".join(match_query(w) for w in pull)
    if not score:
        return _bm25(conn, _TABLES[False], [either], k, f)
    others = " OR ".join(match_query(w) for w in score)
    matches = [f"({either}) AND ({others})", f"({either}) NOT ({others})"]
    return _bm25(conn, _TABLES[False], matches, k, f)


def _bm25(
    conn: apsw.Connection, table: str, matches: list[str], k: int, f: EntryFilter | None
) -> list[tuple[int, float]]:
    """(rid, BM25 score, higher better) of the k best matches in one index of any of
    `matches` (FTS5 queries no entry matches two of). One query joined to a filter is
    taken in FTS5's `ORDER BY rank` (alone: with a second key FTS5 no longer sorts): the
    join then reads entries only until k pass. Otherwise the score selected is sorted,
    by SQLite's top-k sort, ties by rid: FTS5's rank sorts every match before the LIMIT
    applies (an unfiltered query of 1,400 matches, 0.90 -> 0.62 ms of CPU). So is one
    query filtered by tags or metadata and more (a project's view, as every recall with a
    cwd has): few of its matches pass then, so reading in rank order until k pass read
    most of them, and a row read in rank order costs more than one sorted here. CPU p50
    at 100k (scripts/bench's store and filters), rank order against sorted here: the
    view and a tag 5.4 against 3.5-4.0 ms, the view alone 2.4 against 3.5, a tag alone
    3.1 against 4.6."""
    if f is None or not f.restricts:
        one = f"SELECT rowid AS rid, bm25({table}) AS s FROM {table} WHERE {table} MATCH ?"
        args: list[Any] = list(matches)
    else:
        # Through the narrow index when it holds every column the filter reads: SQLite
        # would take the rowid's row (the whole entry), three to six times the pages.
        entries = f"context_entries e INDEXED BY {VIEW_INDEX}" if f.covered else "context_entries e"
        one = (
            f"SELECT f.rowid AS rid, bm25({table}) AS s FROM {table} f "
            f"JOIN {entries} ON e.rid = f.rowid WHERE {table} MATCH ? AND {f.sql()}"
        )
        if len(matches) == 1 and (not f.sets or f.only_sets):
            cur = conn.execute(f"{one} ORDER BY rank LIMIT ?", (matches[0], *f.args, k))
            return [(int(rid), -float(score)) for rid, score in cur]
        args = [x for m in matches for x in (m, *f.args)]
    union = " UNION ALL ".join([one] * len(matches))
    cur = conn.execute(f"SELECT rid, s FROM ({union}) ORDER BY s, rid LIMIT ?", (*args, k))
    return [(int(rid), -float(score)) for rid, score in cur]


def _cjk_bm25(
    conn: apsw.Connection,
    words: list[Term],
    dfs: dict[Term, int],
    n: int,
    k: int,
    f: EntryFilter | None,
) -> list[tuple[int, float]]:
    """BM25 in the CJK side index, each word weighed by its rarity in the whole store.
    FTS5's bm25() takes a word's IDF from its own table, and the side index holds only
    the entries with CJK text: a pair most of those hold (two memories of three, in a
    store of English ones) weighs its floor there (1e-6), so 连接池's one real match
    scored ~1e-13 of an English word's and ranked under unrelated hits. Each word is
    asked alone (the side index is small; a query has few) and its score scaled from the
    side index's IDF to the store's; a word's score is its IDF times the part FTS5
    computes from its frequency and the entry's length, so the scaling is exact."""
    if not words:
        return []
    table = _TABLES[True]
    side = _store_size(conn, table)
    totals: dict[int, float] = {}
    for w in words:
        scale = _idf(n, dfs[w]) / _idf(side, dfs[w])
        # k x CJK_WIDEN each, so that an entry holding several of the words moderately
        # is still among the summed k best.
        for rid, score in _bm25(conn, table, [match_query(w)], k * CJK_WIDEN, f):
            totals[rid] = totals.get(rid, 0.0) + score * scale
    return list(totals.items())


def _store_size(conn: apsw.Connection, table: str = _TABLES[False]) -> int:
    """The entries a keyword index holds: FTS5's own row count, the first varint of its
    averages record (id 1 of its _data table), which bm25() reads too. O(1) like the
    largest rid it replaced, and exact: the rid was off by every deletion, so a store
    and its export imported elsewhere scored the same words differently."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return max(1, _varint(bytes(row[0])) if row and row[0] else 1)


def _varint(data: bytes) -> int:
    """SQLite's variable-length integer at the start of `data` (big-endian, 7 bits a
    byte while the high bit is set; a ninth byte gives all 8)."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return value


class DocCounts:
    """How many entries hold a word, remembered for DOC_COUNT_TTL seconds, and for as long
    after as the store's `version` stays the same: counting a common word reads its whole
    posting list, and queries repeat their words. Without the version an agent's prompts,
    minutes apart, had every word counted again (~0.3 ms of a recall's keyword search at
    10k, for the same counts: issue 30)."""

    MAX_WORDS = 20_000

    def __init__(self, version: Callable[[], Hashable] | None = None) -> None:
        """`version`: what moves whenever the indexed texts may have changed (the store's
        Version, store/writer.py); None, or a version of None: counts are kept for
        DOC_COUNT_TTL only."""
        self._version = version
        self._lock = threading.Lock()
        self._counts: dict[Term, tuple[int, float, Hashable]] = {}

    def get(self, conn: apsw.Connection, word: str, is_cjk: bool = False) -> int:
        now = time.monotonic()
        # Read before counting: a change committed meanwhile leaves the count marked
        # older than it is (counted again later), never newer.
        version = None if self._version is None else self._version()
        key = (word, is_cjk)
        with self._lock:
            hit = self._counts.get(key)
        if hit is not None and (
            now - hit[1] < DOC_COUNT_TTL or (version is not None and hit[2] == version)
        ):
            return hit[0]
        table = _TABLES[is_cjk]
        row = conn.execute(
            f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (match_query(key),)
        ).fetchone()
        df = int(row[0]) if row else 0
        with self._lock:
            if len(self._counts) >= self.MAX_WORDS:
                self._counts.clear()
            self._counts[key] = (df, now, version)
        return df


def _idf(n: int, df: int) -> float:
    """IDF as FTS5's bm25() computes it; a word no entry holds counts as the rarest.
    The counts are cached, so after deletions a word can seem held by more entries than
    the store has: it then counts as held by all."""
    n = max(n, df)
    return max(1e-6, math.log((n - df + 0.5) / (df + 0.5)))
