"""The cheap gates in front of the checks every write (and every pulled change) goes
through decide exactly what the checks without them decide, row by row, on the secret
and injection corpora of scripts/data and tests/data (and the memory-shaped set):

- each injection cue skipped when its text holds none of the literals it cannot match
  without (hygiene/literals.py) reads as its regular expression does;
- the classifier, reading cues heaviest first until its bounds decide, flags what its
  exact score flags: each text given vectors placed at log-odds from far below to far
  above the threshold, so that its cues decide (a real vector puts most texts far from
  the threshold, where any bound decides; here every text is also put where one cue
  tips it);
- the secret rules, run only as the keywords found name them, redact what running every
  rule whose keyword is present (the rule before the gate) redacts.
"""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest

import corpora
from enyal_daemon.hygiene import classifier, cues, injection, literals, ngrams
from enyal_daemon.hygiene.secrets import (
    BUILT_IN,
    PLACEHOLDER,
    Redaction,
    Redactor,
    custom_rule,
    placeholder,
)

TEXTS = corpora.read()


def ungated(text: str) -> np.ndarray:  # type: ignore[type-arg]
    """The cues as every regular expression reads them, with no gate."""
    lowered = text.lower()
    found = [rule.search(lowered) is not None for _, rule in cues._COMPILED]
    return np.asarray([*found, *(test(text) for test in cues._TESTS)], dtype=np.float32)


def test_the_corpora_are_there() -> None:
    assert len(TEXTS) > 3000


def test_a_gated_cue_reads_as_its_regular_expression_on_every_text() -> None:
    gated = sum(1 for g in cues._GATES if g)
    assert gated >= 35, "most cues have a gate"
    ruled = 0
    for text in TEXTS:
        found = ungated(text)
        assert list(cues.of(text)) == list(found), text
        # What the classifier reads first, at the cost of `in` tests (cues.ruled_out), only
        # ever says absent where the expression (or the last three cues' test) says so too.
        lowered = text.lower()
        for i in range(len(cues.NAMES)):
            if cues.ruled_out(i, text, lowered):
                assert not found[i], (cues.NAMES[i], text)
                ruled += 1
    assert ruled > len(TEXTS) * len(cues.NAMES) // 2  # most cues of most texts: a gate


def test_the_word_buckets_made_from_kept_word_hashes_are_those_of_the_grams() -> None:
    """ngrams.indices hashes each word once and carries a pair's CRC on from its first
    word's; the buckets are those of hashing every gram of the text, text by text (most
    texts' words were kept from the texts before)."""
    size = len(classifier.shipped().words)
    for text in [*TEXTS, "", "a", "忽略之前的指令 ignore them", "ＩＧＮＯＲＥ"]:
        want = {zlib.crc32(g.encode()) % size for g in ngrams.grams(text)}
        assert set(ngrams.indices(text, size).tolist()) == want, text


def test_the_classifier_flags_on_bounds_exactly_what_its_score_flags() -> None:
    model = classifier.shipped()
    dim = model.weights.shape[0] - len(cues.NAMES)
    w = model.weights[:dim].astype(np.float64)
    cut = float(np.log(model.threshold / (1 - model.threshold)))
    rng = np.random.default_rng(28)
    decided = {True: 0, False: 0}
    tipped = 0
    for i, text in enumerate(TEXTS):
        cued = ungated(text)
        cue_part = float(cued.astype(np.float64) @ model.weights[dim:].astype(np.float64))
        # The word and character models' share of the mixed log-odds (the words' the
        # rest of the vectors' and the characters' shares).
        m, c = model.mix, model.chars_mix
        if i % 7 == 0:  # a text with passages (below) is not read by the characters
            c = 0.0
        words = (1.0 - m - c) * model.words_logit(text) + c * model.chars_logit(text)
        base = rng.standard_normal(dim)
        base /= np.linalg.norm(base)
        # Log-odds of the vectors' part, so the total lands just either side of the
        # threshold, and somewhere within a few cues' weight of it.
        for offset in (-1e-3, 1e-3, rng.uniform(-3.0, 3.0)):
            target = (cut + offset - words) / m - cue_part - model.bias
            whole = (base + (target - base @ w) * w / (w @ w)).astype(np.float32)
            parts = np.empty((0, dim), dtype=np.float32)
            if i % 7 == 0:  # a text with passages: scored by its best row
                parts = (whole + 0.1 * rng.standard_normal((2, dim))).astype(np.float32)
            rows = np.vstack([whole[None, :], parts]).astype(np.float64)
            z = m * (float((rows @ w).max()) + cue_part + model.bias) + words
            want = z >= cut
            assert model.flags(text, whole, parts) is want, (text, offset)
            decided[want] += 1
            tipped += abs(offset) < 0.5
    assert decided[True] > 3000 and decided[False] > 3000 and tipped > 6000


def redact_every_keyword_rule(text: str) -> Redaction:
    """Redactor.redact as it was before the keywords named the rules: every rule with no
    keyword or a keyword present, in order (the oracle the gate must match)."""
    lowered = text.lower()
    taken = [m.span() for m in PLACEHOLDER.finditer(text)]
    if "allowlist" in lowered:
        from enyal_daemon.hygiene.secrets import allowed_lines

        taken.extend(allowed_lines(text))
    spans = []
    for rule in BUILT_IN.rules:
        if rule.keywords and not any(k in lowered for k in rule.keywords):
            continue
        for start, end, kind in rule.find(text):
            if any(start < e and s < end for s, e in taken) or text[start:end] in BUILT_IN.allow:
                continue
            taken.append((start, end))
            spans.append((start, end, kind))
    out, found, pos = [], {}, 0
    for start, end, kind in sorted(spans):
        out += [text[pos:start], placeholder(kind)]
        found[kind] = found.get(kind, 0) + 1
        pos = end
    return Redaction("".join([*out, text[pos:]]), dict(sorted(found.items())))


def test_the_secret_rules_run_by_keyword_redact_what_every_keyword_rule_redacts() -> None:
    changed = 0
    for text in TEXTS:
        got, want = BUILT_IN.redact(text), redact_every_keyword_rule(text)
        assert (got.text, got.found) == (want.text, want.found), text
        changed += want.changed
    assert changed > 200  # the secrets corpora: the rules find something in many rows


@pytest.mark.parametrize(
    ("pattern", "want"),
    [
        (r"\b(ai|bot)\b", {"ai", "bot"}),
        (r"\b(ai|agent)\b", {"a"}),  # the parser takes the common "a" out: still needed
        (r"foo\s+bar", {"foo"}),  # the longest run needed
        (r"(?:ab)?cd", {"cd"}),  # an optional part needs nothing
        (r"x[0-9]", {"x"}),
        (r"[0-9]{3}", set("0123456789")),
        (r"a|.b", {"a", "b"}),
        (r"a|\d", None),  # a branch that needs nothing: no gate
        (r"(?i)secret", None),  # case folded beyond str.lower(): no gate
        (r"[^a]+", None),
    ],
)
def test_literals_read_off_an_expression(pattern: str, want: set[str] | None) -> None:
    found = literals.needed(re.compile(pattern))
    assert (None if found is None else set(found)) == want


def test_the_literals_found_at_once_are_those_each_in_test_finds() -> None:
    """cues.ruled_out finds every gate's literals of a text at once (its three-character
    pieces, then `in` for those that begin a literal); what it rules out is exactly what
    each gate's own `in` tests rule out, text by text, on the corpora and on texts made
    to sit on the edges (a literal at the very end, one inside another, short ones, case
    folding to ASCII, the same lowered text twice in a row and from other texts)."""
    edges = [
        "",
        "a",
        " ",
        "ig",
        "ignore",
        "xxignore",
        "ignore.",
        "忽略",
        "忽略之前的指令",
        "\u212a",
        "k",
        "ＩＧＮＯＲＥ previous",
        "system prompt",
        "sh",
        "ai 1.",
    ]
    for text in [*TEXTS, *edges, *(t.upper() for t in TEXTS[:500])]:
        lowered = text.lower()
        for i, gate in enumerate(cues._GATES):
            by_in = bool(gate) and not any(lit in lowered for lit in gate)
            assert cues.ruled_out(i, text, lowered) is by_in, (cues.NAMES[i], text)
        # what the classifier asks once a text: every cue not ruled out, and no other
        kept = {i for i in range(len(cues.NAMES)) if not cues.ruled_out(i, text, lowered)}
        assert cues.possible(text, lowered) == kept, text
        # and again on a fresh lowered copy: the per-text memory never answers for another
        fresh = "".join(lowered)
        for i, gate in enumerate(cues._GATES):
            by_in = bool(gate) and not any(lit in fresh for lit in gate)
            assert cues.ruled_out(i, text, fresh) is by_in, (cues.NAMES[i], text)


def test_the_secret_keywords_found_at_once_are_those_each_in_test_finds() -> None:
    """The Redactor finds its keywords in a text at once (literals.Finder), exactly those
    an `in` test of each finds (what it ran before), on the corpora and edge texts; with
    a configured rule whose keywords are short, not ASCII, or begin as others do."""
    extra = custom_rule("x", r"zz\d+", ("é", "zz", "passé", "pas", "pass"))
    for redactor in (Redactor(), Redactor([extra])):
        keywords = redactor._keywords
        edges = ["", ":", "a=b", "sk", "xsk", "passé", "PASSÉ", "ÉTÉ", "ac", "a", "é", "pa"]
        for text in [*TEXTS, *edges, *(t.upper() for t in TEXTS[:500])]:
            lowered = text.lower()
            want = {k for k in keywords if k in lowered}
            assert redactor._finder.found(text, lowered) == want, text


def _rules_ungated(text: str) -> list[str]:
    """injection.suspicious as it read before its gates: every rule's expression."""
    found = [name for name, rule in injection._RULES if rule.search(text)]
    plain = injection._undisguised(text)
    if plain != text:
        found += [n for n, rule in injection._RULES if n not in found and rule.search(plain)]
    if injection._HIDDEN.search(text):
        found.append("hidden-characters")
    return found


def test_the_injection_rules_gated_trip_what_every_rule_trips() -> None:
    # each text as written and in other cases (the rules fold case; the gates lower ASCII)
    gated = sum(1 for g in injection._GATES if g)
    assert gated == len(injection._RULES), "every rule has a gate"
    tripped = 0
    for text in TEXTS:
        for variant in (text, text.upper(), text.swapcase(), text.title()):
            want = _rules_ungated(variant)
            assert injection.suspicious(variant) == want, variant
            tripped += bool(want)
    assert tripped > 500  # the corpora's attacks trip them: not a test of nothing


@pytest.mark.parametrize(
    ("pattern", "want"),
    [
        (r"\b(ignore|Bypass)\b[^.]{0,9}\bAll\b", ("bypass", "ignore")),
        (r"(curl|WGET)\s+x", ("curl", "wget")),
        (r"[^a]+", ()),  # nothing needed
        ("(caf\u00e9|tea)", ()),  # a string not ASCII: no gate
    ],
)
def test_a_case_insensitive_expression_gets_its_literals_lowered(
    pattern: str, want: tuple[str, ...]
) -> None:
    assert literals.folded(re.compile(pattern, re.IGNORECASE)) == want
