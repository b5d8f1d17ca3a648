"""The secret patterns: one `Rule` per credential format, most specific first.

Shapes were learnt from the providers' own documentation of their token formats and
from the public rule sets of gitleaks, detect-secrets, trufflehog and GitHub secret
scanning; the expressions are written here, not copied. Each rule names:

- `kind`: the placeholder's word (`[REDACTED:<kind>]`) and the key of the counts a
  caller sees. Several formats may share a kind (all classic GitHub tokens are
  `github-token`): the kind says what leaked, the rule `name` which shape found it.
- `keywords`: lowercase substrings, one of which must occur in the text for the rule
  to run at all (gitleaks' trick). Most memories mention no credential, so most rules
  are skipped after a cheap `in` test: ~0.2 ms for a 500-character note that says
  "token", "secret" and "auth", a few tens of µs for one that names no credential.
- `group`: the part of the match that is the secret; the rest (a key name, a scheme,
  a user name, a header) is context and is kept.
- `accept`: an optional check of the match that returns the kind to report, or None
  to let the text be (placeholders such as `${DB_PASSWORD}`, code such as
  `token=None`, hashes next to the word "token").

Order matters: when two rules claim overlapping text the earlier one wins, so a
`ghp_…` after `GITHUB_TOKEN=` is reported as `github-token`, not as a `token`
assignment, and the generic rules come last.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from enyal_protocol.config import SECRET_KIND

Accept = Callable[[re.Match[str]], str | None]
Finder = Callable[[str], Iterator[tuple[int, int, str]]]

# A kind is what goes between `[REDACTED:` and `]`; keeping it to this alphabet is what
# lets the placeholder be recognised again (idempotence) and never look like a secret.
# config.toml's own patterns are checked against the same (enyal_protocol.config).
KIND = SECRET_KIND


@dataclass(frozen=True, slots=True)
class Rule:
    """One secret format. Build custom ones with `custom_rule`."""

    kind: str
    pattern: re.Pattern[str] | None
    keywords: tuple[str, ...] = ()
    group: int | str = 0
    accept: Accept | None = None
    name: str = ""
    # A rule whose logic does not fit one expression finds its own spans.
    finder: Finder | None = None

    def applies(self, lowered: str) -> bool:
        return not self.keywords or any(k in lowered for k in self.keywords)

    def find(self, text: str) -> Iterator[tuple[int, int, str]]:
        """(start, end, kind) of each secret in `text` (the secret part only)."""
        if self.finder is not None:
            yield from self.finder(text)
            return
        assert self.pattern is not None
        for m in self.pattern.finditer(text):
            kind = self.kind if self.accept is None else self.accept(m)
            if kind is None:
                continue
            start, end = m.span(self.group)
            if end > start:
                yield start, end, kind


def custom_rule(kind: str, pattern: str, keywords: tuple[str, ...] = ()) -> Rule:
    """A rule from configuration (`config.toml`): `pattern` is a regular expression; if
    it has a group named `secret` only that part is replaced, else the whole match.
    Compile these once (at config load), not per write."""
    if not KIND.fullmatch(kind):
        raise ValueError(f"secret kind {kind!r}: use lowercase letters, digits and '-'")
    compiled = re.compile(pattern)
    group: int | str = "secret" if "secret" in compiled.groupindex else 0
    return Rule(kind, compiled, tuple(k.lower() for k in keywords), group, name=f"custom:{kind}")


# --- what is not a secret ---------------------------------------------------------------

# Values people write where a secret would go in documentation, templates and code.
_PLACEHOLDER_WORDS = frozenset(
    "none null nil undefined true false yes no str string bytes int integer bool optional "
    "secretstr password passwd passphrase pwd secret secrets token tokens key apikey api_key "
    "changeme change_me changeit required optional hidden masked redacted empty example "
    "sample placeholder dummy fake test testing todo tbd fixme foo bar baz value env "
    "environment default notset unset n/a na foobar".split()
)
_PLACEHOLDER = re.compile(
    r"""
    ^(?:
        [${].*                    # $TOKEN ${DB_PASSWORD} $(cat f) {{ x }} {pw}
      | %[A-Za-z_]\w*%|%\(\w+\)s   # %API_KEY% %(password)s (not %40…: URL-encoded)
      | <[^<>]*>                  # <your-token>
      | \[[^\[\]]*\]              # [token]
      | [xX*•·.#_-]+              # xxxx, ********
      | \#[0-9a-fA-F]{3,8}        # a colour (Pygments' "Token: '#d0d0d0'")
      | .*(?:\.\.\.|…)|.*\*{3}.*  # sk-..., hf_***, hf_jwt_…: elided
      | .*\b(?:os\.environ|os\.getenv|getenv|process\.env|ENV\[|env\(|secrets\.).*
      | .*(?:your|YOUR|Your)[_ -]?\w*.*  # YOUR_API_KEY, your-token
      | .*EXAMPLE.*               # AWS's documented examples (AKIA…EXAMPLE)
    )$""",
    re.VERBOSE,
)


_FILLER_RUN = re.compile(r"(.)\1{7}")


def is_placeholder(value: str) -> bool:
    """Does `value` stand for a secret rather than being one?"""
    v = value.strip().strip("\"'`")
    if not v:
        return True
    if v.lower() in _PLACEHOLDER_WORDS or _PLACEHOLDER.match(v):
        return True
    # One or two distinct characters (aaaa…, 0000…, abab…) or a long run of one
    # (ghp_xxxxxxxx…) is filler, not key material: a random key almost never has one.
    return len(set(v)) <= 2 or _FILLER_RUN.search(v) is not None


def entropy(s: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


# Pieces of an identifier, split left to right without backtracking across pieces: one
# expression with nested repetition (words of digits or letters, repeated) backtracks
# exponentially on a long digit run such as a Slack token's.
_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[_.\-/=]|.")


_TWO_LETTER_WORDS = frozenset(
    "By Id Io Of To On In At Is As Or Up Do If No My We Be Go Ok Ui Db Os Fs Ip Ex Re Un Co".split()
)


_WORD_PIECE = re.compile(r"[A-Z][a-z]{2,}|\d{2,}")


def _between_words(pieces: list[str], i: int) -> bool:
    """A capitalised two-letter piece with a word on each side (…ActiveDeGroote2016): a
    name's particle. Random text seldom puts one between two real-looking words."""
    return (
        0 < i < len(pieces) - 1
        and _WORD_PIECE.fullmatch(pieces[i - 1]) is not None
        and _WORD_PIECE.fullmatch(pieces[i + 1]) is not None
    )


def wordish(s: str) -> bool:
    """CamelCase, snake_case or kebab-case made of words, numbers and acronyms
    (OAuth2ClientCredentialsProvider, refresh-token-rotation-v2). A random key almost
    always has an isolated lowercase letter between other characters; this has none."""
    pieces = _PIECE.findall(s)
    for i, p in enumerate(pieces):
        if p[-1].islower():
            # A lone lowercase letter ("Kx", "q") is what random text is made of; allow it
            # only before a number of 2+ digits (Ed25519, v12), as a version's "v" (TLSv1)
            # and in the two-letter words CamelCase is full of (ByHandle, SynchronousIo).
            lower = len(p) - (1 if p[0].isupper() else 0)
            before_number = i + 1 < len(pieces) and pieces[i + 1].isdigit()
            if (
                lower < 2
                and not (before_number and (len(pieces[i + 1]) >= 2 or p[-1] == "v"))
                and p not in _TWO_LETTER_WORDS
                and not (len(p) == 2 and p[0].isupper() and _between_words(pieces, i))
            ):
                return False
        elif not (p.isupper() or p.isdigit() or p in "_.-/="):
            return False
    return True


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_NAME_SPLIT = re.compile(r"[-_./:@+^#]+")
# A piece of a model, package or host name: a word, a number, or a short tag (L6, v2,
# 8B, 141b, A35b).
_NAME_PIECE = re.compile(
    r"\d+|[A-Za-z0-9]{1,3}|[A-Z]?[a-z]+\d{1,3}|\d+[A-Za-z]{1,4}|[A-Z]\d+[a-z]?|\d+x\d+[a-z]?"
)
# A lowercase slug with separators ("iccv-2023-64f9a55bb3115b4f513ec026"): ids in paths.
_SLUG = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)+")
# A path segment without capitals (s390x, msa_x2, iccv-2023-64f9a55b…): base64 keys that
# hold '/' have capitals.
_LOWER_SEGMENT = re.compile(r"[a-z0-9_.~=-]*")
# An alphabet written out ("ABC…xyz0123456789-._~"), never a key.
_SEQUENCE = re.compile(r"(?i)abcdef|qrstuv|uvwxyz|012345|123456|456789")


# A lowercase snake_case identifier of short pieces (_float8_e4m3fn_dtype); a random
# lowercase key has long runs between its separators, if it has any.
_SNAKE = re.compile(r"_?[a-z][a-z0-9]{0,11}(?:_[a-z0-9]{1,12})+_?")


def _is_code_ref(s: str) -> bool:
    """A dotted chain of identifiers (TestVFS.xCurrentTime1, torch.float8_e4m3fnuz);
    not a token whose parts are random (dp.st.prd.QAL4dhEOz4O4…)."""
    parts = re.split(r"[.#]", s)
    return len(parts) > 1 and all(
        re.fullmatch(r"[A-Za-z_]\w*", p) and (wordish(p) or len(p) <= 3 or _SNAKE.fullmatch(p))
        for p in parts
    )


def _is_name(s: str) -> bool:
    """Words and short tags joined by - _ . / : @ + (all-MiniLM-L6-v2, Llama-3.1-8B), or
    mostly words (test_sce_NCd1d2d3d4d5_mean_weight): splitting a random key at its
    separators does not give three-letter words, let alone mostly."""
    pieces = [p for p in _NAME_SPLIT.split(s) if p]
    if all(_NAME_PIECE.fullmatch(p) or wordish(p) for p in pieces):
        return True
    words = sum(len(p) >= 3 and p.isalpha() and wordish(p) for p in pieces)
    return len(pieces) >= 3 and 3 * words >= 2 * len(pieces)


_PATH_SEGMENT = re.compile(r"[A-Za-z_.~=-]*\d{0,2}[A-Za-z_.~=-]*|\d+")


def _decodes_to_prose(s: str, *, spaced: bool = True) -> bool:
    """Base64 of ordinary text ("aGVsbG8gd29ybGQ=") is an encoding, not a key. With
    `spaced` false, any printable text counts (GitHub's node ids, "010:Repository12…")."""
    try:
        raw = base64.b64decode(s + "=" * (-len(s) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(raw) < 8:
        return False
    printable = sum(32 <= b < 127 for b in raw)
    return printable / len(raw) > 0.95 and (b" " in raw or not spaced)


def looks_random(s: str) -> bool:
    """Could `s` be key material rather than a word, identifier, path, id or version?"""
    if len(s) < 20 or is_placeholder(s):
        return False
    if not (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
        return False
    if _UUID.fullmatch(s) or wordish(s):
        return False
    if "/" in s and all(
        _PATH_SEGMENT.fullmatch(p) or _LOWER_SEGMENT.fullmatch(p) or _is_name(p)
        for p in s.split("/")
    ):
        return False  # a path, or owner/name-slug-64f9a55bb3115b4f (a hub's ids)
    if _is_name(s) or _is_code_ref(s) or _SNAKE.fullmatch(s) or _SEQUENCE.search(s):
        return False
    if _decodes_to_prose(s):
        return False
    # Hex carries at most 4 bits a character, other alphabets up to ~6; thresholds sit
    # below what random keys of 20+ characters reach and above words and identifiers.
    return entropy(s) >= (3.0 if _HEX.fullmatch(s) else 3.5)


# --- rule builders ----------------------------------------------------------------------

# Token boundaries: a secret does not start or end in the middle of a longer token.
_B = r"(?<![A-Za-z0-9_-])"
_E = r"(?![A-Za-z0-9_-])"


def _token(name: str, kind: str, body: str, *keywords: str, flags: int = 0) -> Rule:
    """A format recognised by its own shape, usually a fixed prefix."""

    def accept(m: re.Match[str]) -> str | None:
        return None if is_placeholder(m.group(0)) else kind

    return Rule(kind, re.compile(_B + body + _E, flags), keywords, 0, accept, name)


def _near(name: str, kind: str, context: str, secret: str, *keywords: str) -> Rule:
    """A format that is only a secret next to a word naming it (an AWS secret key is
    40 base64 characters, a Heroku key a UUID): `context`, then within the same line
    the `secret`."""
    pattern = re.compile(
        rf"(?i:{context})[^\n]{{0,30}}?(?<![A-Za-z0-9/+_-])(?P<s>{secret})(?![A-Za-z0-9/+_=-])"
    )

    def accept(m: re.Match[str]) -> str | None:
        return None if is_placeholder(m.group("s")) else kind

    return Rule(kind, pattern, keywords, "s", accept, name)


def _keyed(name: str, kind: str, pattern: str, *keywords: str, flags: int = 0) -> Rule:
    """A secret in a group named `s` after a fixed context (URL, header, parameter)."""

    def accept(m: re.Match[str]) -> str | None:
        return None if is_placeholder(m.group("s")) else kind

    return Rule(kind, re.compile(pattern, flags), keywords, "s", accept, name)


# --- private keys -----------------------------------------------------------------------

_PRIVATE_KEY_TYPES = (
    ("private-key-rsa", "RSA PRIVATE KEY"),
    ("private-key-ec", "EC PRIVATE KEY"),
    ("private-key-dsa", "DSA PRIVATE KEY"),
    ("private-key-openssh", "OPENSSH PRIVATE KEY"),
    ("private-key-pkcs8-encrypted", "ENCRYPTED PRIVATE KEY"),
    ("private-key-pkcs8", "PRIVATE KEY"),
    ("private-key-pgp", "PGP PRIVATE KEY BLOCK"),
)


def _private_key(name: str, label: str) -> Rule:
    # The whole block goes, armour lines included. `\\n` lets a block written into JSON
    # (one line, escaped newlines) match as well. A block cut short (a memory quoting
    # only its start) is taken up to the last base64 line.
    pattern = re.compile(
        rf"-----BEGIN {label}-----"
        rf"(?:[\s\S]{{0,20000}}?-----END {label}-----"
        r"|(?:(?:\s|\\n)*(?:[A-Za-z0-9+/=]{16,}|[A-Za-z-]+: [^\n\\]*))+)"
    )
    return Rule("private-key", pattern, ("private key",), 0, None, name)


# --- connection strings, URLs, headers --------------------------------------------------


def _url_password() -> Rule:
    # scheme://user:password@host — any scheme (postgres, mysql, mongodb+srv, redis, amqp,
    # http(s), ftp, smtp …). The user name may be empty (redis://:pw@host). A password
    # cannot hold '/', '@' or whitespace unencoded, which also keeps host:port/path@x out.
    pattern = re.compile(
        r"(?i)\b[a-z][a-z0-9+.-]{1,30}://[^\s:/@'\"<>\[\]]*:(?P<s>[^\s@/'\"<>\[\]]+)@[\w.\[\]-]"
    )

    def accept(m: re.Match[str]) -> str | None:
        s = m.group("s")
        return None if is_placeholder(s) or s.lower() in {"pass", "pw"} else "url-password"

    return Rule("url-password", pattern, ("://",), "s", accept, "url-password")


# --- key = value assignments ------------------------------------------------------------

_ASSIGN_KIND = {
    "password": "password",
    "passwd": "password",
    "passphrase": "password",
    "pwd": "password",
    "secret": "secret",
    "token": "token",
}
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (?P<kw>password|passwd|passphrase|pwd|secret|token
          |api[_ -]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key)
    (?![\w])                                  # the key ends at the word: not max_tokens
    ["']?\s*(?P<op>:=|=>|=|:)(?!=)\s*          # = : := =>, not == or ===
    (?:"(?P<dq>[^"\n]{1,300})"
      |'(?P<sq>[^'\n]{1,300})'
      |(?P<bare>[^\s'"`,;<>)\]}]{1,300}))
    """
)
# Code, not a value: attribute access, calls, subscripts, type annotations.
_CODE_REF = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|.*[(\[].*|\w+\s*\|\s*\w+")
_SECRETISH_WORD = re.compile(r"(?i)pass|secret|token|key|cred")


def _key_before(text: str, start: int) -> str:
    """The whole key a keyword ends: DB_PASSWORD for PASSWORD, --password for password."""
    i = start
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_.-"):
        i -= 1
    return text[i:start]


def assignment_kind(key: str) -> str:
    k = key.lower().replace(" ", "_").replace("-", "_")
    for word, kind in _ASSIGN_KIND.items():
        if k.endswith(word) and not k.endswith(("_key", "apikey")):
            return kind
    return "api-key" if "api" in k or "access" in k else "secret"


def value_is_secret(key: str, value: str, *, quoted: bool, colon: bool = False) -> bool:
    """Is `value`, written against a secret-ish `key`, the secret itself?"""
    v = value.strip()
    if len(v) < 4 or is_placeholder(v):
        return False
    if v.isdigit() and len(v) < 8:  # lengths, ports, counts: password_len: 12
        return False
    if any(c.isspace() for c in v):
        # A passphrase may have spaces; a token, key or secret never does, and quoted
        # prose next to the word "token" is common in notes.
        return quoted and assignment_kind(key) == "password"
    if _decodes_to_prose(v):
        return False
    if wordish(v) and not any(c.isdigit() for c in v) and _SECRETISH_WORD.search(v):
        # my-secret, my_token, "X-Access-Token", challengePassword: a name for a secret
        return False
    if quoted:
        return True
    if _CODE_REF.fullmatch(v) or _SECRETISH_WORD.search(v):
        # self.password, settings.DB_PASSWORD, get_token(), token=token_value: code
        return False
    if re.fullmatch(r"[A-Za-z_]+", v) and not key.isupper():
        # A bare word against a lower-case key is a variable in code (password=pw,
        # use_auth_token=auth); env files spell keys in capitals (DB_PASSWORD=letmein).
        return False
    if re.fullmatch(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+", v):
        return False  # a constant: TOKEN = DEFAULT_TOKEN, FRAMES_PER_TOKEN = HOP_LENGTH
    if colon:
        # `password: x` is also how prose and type annotations read ("Token: expired",
        # "password: str"): take only values that do not look like a plain word.
        has_digit = any(c.isdigit() for c in v)
        return len(v) >= 6 and (has_digit or (bool(re.search(r"\W", v)) and not wordish(v)))
    return True


def _assignments(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _ASSIGNMENT.finditer(text):
        key = _key_before(text, m.start("kw")) + m.group("kw")
        if key.lower() == "pwd":  # the shell's working directory, not a password
            continue
        if "public" in key.lower():  # publicKeyToken, public_key: public by design
            continue
        group = "dq" if m.group("dq") is not None else "sq" if m.group("sq") else "bare"
        value = m.group(group)
        if not value_is_secret(
            key, value, quoted=group != "bare", colon=m.group("op") == ":" and group == "bare"
        ):
            continue
        yield m.start(group), m.end(group), assignment_kind(key)


# --- high-entropy strings next to a secret-ish word -------------------------------------

_KEYWORD = re.compile(
    r"(?i)\b(?:api[ _-]?keys?|secrets?|secret[ _-]?keys?|tokens?|passwords?|passwd|"
    r"credentials?|auth|bearer|access[ _-]?keys?|private[ _-]?keys?|client[ _-]?secret|"
    r"keys?|identity|pat)\b"
)
# Tokens public by design: an SSH public key's blob (a length prefix, base64 "AAAA"),
# Stripe's publishable keys, age recipients, hashes spelled with their algorithm.
_PUBLIC_PREFIXES = ("AAAA", "pk_live_", "pk_test_", "sha1-", "sha256-", "sha512-", "age1")
_CANDIDATE = re.compile(r"(?<![\w+/=.-])[A-Za-z0-9][A-Za-z0-9+/_.=-]{19,}")
# Hashes are named as such; a hex string after "commit" is a revision, not a key.
_HASH_CONTEXT = re.compile(r"(?i)sha\d*|commit|digest|hash|checksum|integrity|rev\b|revision")
_TIGHT = re.compile(r"""[\s"'`:=>(-]*(?:(?:is|was|are|of|to|value|set to)\b[\s"'`:=]*)?""")
_WINDOW = 40


def _high_entropy(text: str) -> Iterator[tuple[int, int, str]]:
    for kw in _KEYWORD.finditer(text):
        end = text.find("\n", kw.end())
        window_end = min(kw.end() + _WINDOW, len(text) if end < 0 else end)
        for c in _CANDIDATE.finditer(text, kw.end(), len(text)):
            if c.start() > window_end:
                break
            s = c.group(0).rstrip(".")  # a sentence's full stop is not part of the key
            gap = text[kw.end() : c.start()]
            before = text[max(0, c.start() - 8) : c.start()]
            if _HASH_CONTEXT.search(gap) or _HASH_CONTEXT.search(before):
                continue
            # An SSH public key's blob starts with a length prefix, base64 "AAAA"; public
            # keys are shared on purpose (authorized_keys, deploy keys).
            if s.startswith(_PUBLIC_PREFIXES) or re.search(r"ssh-|ecdsa-", gap[-30:] + before):
                continue
            # A hex string is taken only right after the keyword ("api key is 0a1b…"):
            # further away it is far more often a commit or a checksum.
            if _HEX.fullmatch(s) and not _TIGHT.fullmatch(gap):
                continue
            # Part of a URL (a query string is the assignment rule's business) or a call.
            word_start = max(text.rfind(" ", 0, c.start()), text.rfind("\n", 0, c.start()))
            if "://" in text[word_start + 1 : c.start()] or text[c.end() : c.end() + 1] == "(":
                continue
            if looks_random(s):
                yield c.start(), c.start() + len(s), "high-entropy-secret"


# --- an AWS secret key beside its key id ----------------------------------------------

_AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_PAIR_REACH = 80


def _aws_secret_beside_id(text: str) -> Iterator[tuple[int, int, str]]:
    """A 40-character key written next to an AWS key id ("AKIA… / wJal…", "id:key") is
    that id's secret, whether or not the word "secret" is there."""
    for m in _AWS_KEY_ID.finditer(text):
        lo, hi = max(0, m.start() - _PAIR_REACH), min(len(text), m.end() + _PAIR_REACH)
        for c in _AWS_SECRET.finditer(text, lo, hi):
            if looks_random(c.group(0)):
                yield c.start(), c.end(), "aws-secret-key"


# --- passwords written in prose ---------------------------------------------------------

# "the staging db password is X", "pass: X", "root pw X", "password for grafana: X",
# "redis requirepass X": the value comes right after the word, at most a short connector
# between. What follows must look like a password (letters with digits or symbols), so
# "the password policy is strict" and "password reset flow" stay.
_PROSE_PASSWORD = re.compile(
    r"""(?ix)
    (?:\b(?:password|passwd|passphrase|pwd|pw|requirepass)
       (?:\s+for\s+(?:the\s+)?[\w.@-]{1,30}(?:\s+[\w.@-]{1,30})?)?
       (?:\s*(?::|=>|=|-|\bis\b|\bwas\b|\bto\b)\s*|\s+)
     |\bpass\s*[:=]\s*)  # "pass" is a verb too: "pass `x=1` to it"
    (?P<q>["'`])?(?P<s>[^\s"'`]{6,64}?)(?(q)(?P=q))
    [.,;)]?(?=\s|$|["'`])
    """
)
# "use X as the password", "X is the vpn password": the value first.
_PASSWORD_FIRST = re.compile(
    r"""(?ix)
    \b(?:use|try)\s+["'`]?(?P<s>[^\s"'`]{6,64})["'`]?\s+as\s+(?:the|a|our)?\s*
    (?:[\w-]+\s+)?(?:password|passphrase|pw)\b
    (?!\s+(?:manager|policy|policies|field|reset|hash|store|rules?)\b)  # "as the password manager"
    """
)


# "admin / s3cr3t!" — an account and its password, written as a pair with a spaced
# slash (a path has none) after an account name people share.
_ACCOUNT_PAIR = re.compile(
    r"(?i)(?:\b(?:admin|administrator|root|sa|postgres|guest|user|login|creds?|credentials)"
    r"|[\w.+-]+@[\w-]+\.[\w.-]+)"
    r"\s+/\s+(?P<s>[^\s\"'`]{6,64}?)[.,;)]?(?=\s|$)"
)


def _password_like(v: str) -> bool:
    if is_placeholder(v) or "://" in v or v.startswith(("/", "~", "$", "[")):
        return False
    if _CODE_REF.fullmatch(v) or re.search(r"\w[(\[]", v):
        return False  # code: auth_info[2], get_pw(), self.password
    if not any(c.isalpha() for c in v):
        return False
    # A word plus punctuation ("strict:") or a version ("v2.1") is prose, not a password.
    return any(c.isdigit() for c in v) and not re.fullmatch(r"v?\d+(?:\.\d+)*[a-z]?", v)


def _prose_passwords(text: str) -> Iterator[tuple[int, int, str]]:
    for m in (
        *_PROSE_PASSWORD.finditer(text),
        *_ACCOUNT_PAIR.finditer(text),
        *_PASSWORD_FIRST.finditer(text),
    ):
        v = m.group("s")
        if _CODE_REF.fullmatch(v) or re.search(r"\w[(\[]", v):
            continue  # code: enforce_bytes(auth[1], …), self.password
        # Quoted after the word, a value is meant as written: no digit needed.
        quoted = "q" in m.re.groupindex and m.group("q") is not None
        if (
            _password_like(v)
            or (len(v) >= 8 and looks_random(v))
            or (quoted and not is_placeholder(v) and not wordish(v))
        ):
            yield m.start("s"), m.end("s"), "password"


# --- random values assigned in .env, .ini and YAML lines --------------------------------

# KEY=value, key = value, key: value with any key name: a value that looks random is
# taken unless the key names what is not secret (an id, a hash, a version, a path).
# The expression starts at the operator, not at the key: tried at every word start it
# cost 85 µs on a 500-character note, from the operator a few.
_ANY_ASSIGNMENT = re.compile(
    r"""(?x)
    (?<=[\w"'])["']?[ \t]*(?:=|:)[ \t]*["']?
    # No '&' (a query string goes on), '=' only as padding (".env: KEY=value" is the
    # next assignment, not this one's value).
    (?:base64:)?(?P<s>[A-Za-z0-9+/_.~!@#$%^*-]{20,300}={0,2})
    """
)
_KEY_BEFORE = re.compile(r"(?<![\w.-])[A-Za-z_][\w.-]{0,60}$")
_NOT_SECRET_KEY = re.compile(
    r"(?i)(?:^|[_.-])(?:id|uuid|guid|sha\d*|hash|digest|checksum|integrity|commit|rev|"
    r"revision|etag|version|ver|url|uri|path|dir|file|host|name|image|ref|span|trace|"
    r"nonce|sum|h1|data|src|href|identifier|arn|endpoint|location)$|^(?:sha\d*|md5|h1|data|https?|ftp)$"
)
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_HEX_ID = re.compile(r"[0-9a-fA-F-]+")
_SECRET_KEY_WORD = re.compile(r"(?i)key|secret|token|pass|pwd|auth|cred|salt|sig|cert|licen")


_HOSTNAME = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,6}")
_SHORT_SLUG = re.compile(r"[a-z0-9]{1,16}(?:[-_.][a-z0-9]{1,16})+")
_OPERATOR = re.compile(r"\*\*?|[-+/]")


def _is_expression(v: str) -> bool:
    """Arithmetic over names (kilogram*meter**2/second**2, -2*coefficient[0]*x): a `*`
    and operands that are names or numbers. Base64 has no `*`; its pieces are random."""
    if "*" not in v:
        return False
    operands = [o.strip("()[]") for o in _OPERATOR.split(v) if o.strip("()[]")]
    return all(
        re.fullmatch(r"\d+(?:\.\d+)?", o) or len(o) <= 3 or _is_name(o) or _is_code_ref(o)
        for o in operands
    )


def _names_alike(key: str, value: str) -> bool:
    """Whether a value is named like its key, as code's are: `TestVFS.xOpen =
    TestVFS.xOpen1`, `Argon2d = rust_openssl.kdf.Argon2d`."""
    k, v = key.split("."), value.split(".")
    return len(v) > 1 and (k[0] == v[0] or k[-1][:5] == v[-1][:5])


def _assigned_random(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _ANY_ASSIGNMENT.finditer(text):
        k = _KEY_BEFORE.search(text, max(0, m.start() - 61), m.start())
        if k is None:
            continue
        key, raw = k.group(0), m.group("s")
        v = raw.rstrip(".,;")
        if raw.endswith(("...", "…")) or _names_alike(key, v):
            continue  # elided ("eyJhbGci..."), or code: X.y = X.y1, Argon2d = kdf.Argon2d
        after = text[m.start("s") + len(v) : m.start("s") + len(v) + 1]
        if after == "(" or v.startswith("/*") or re.search(r"#\w+#", v):
            continue  # a call, a comment, a template (#name#)
        if _is_expression(v) or _SHORT_SLUG.fullmatch(v):
            continue  # x1*frame_a.x+x2*frame_a.y; types-s2clientprotocol
        # nodeId, imageDigest: camelCase read as node_id, image_digest
        if _NOT_SECRET_KEY.search(_CAMEL_HUMP.sub("_", key)):
            continue
        # A URL's query (?query=…) or a scheme (s3://, hf://) is not an assignment; a hex
        # literal (0x8CB9…) is a number.
        if text[k.start() - 1 : k.start()] in ("?", "&", "#", "/", ":") or v.startswith(
            ("//", "0x", "_Z")
        ):
            continue  # also an ARN's or URN's part (arn:aws:rds:…:db-proxy:prx-…), a C++ name
        if _HOSTNAME.fullmatch(v):
            continue
        # A hex value (or hex with dashes: trace ids) under a neutral name is mostly a
        # hash or an id; under a secret-ish one (DD_APP_KEY, SENTRY_DSN_KEY) it is a key.
        if _HEX_ID.fullmatch(v) and not _SECRET_KEY_WORD.search(key):
            continue
        if looks_random(v):
            yield m.start("s"), m.start("s") + len(v), "high-entropy-secret"


# --- random tokens standing alone -------------------------------------------------------

_LONE = re.compile(r"(?<![\w+/=.:#@-])[A-Za-z0-9][\w+/.-]{27,}={0,2}")
# Context in the few characters before a token that says it is public or not key material.
_LONE_CONTEXT = re.compile(
    r"(?i)(?:sha\d*|md5|hash|digest|checksum|integrity|commit|revision|base64,|h1|pk_(?:live|test)_)"
    r"[\s:=\"'-]*$"
)


_VALUE_OF = re.compile(r"([A-Za-z_][\w.-]{0,60})[\"']?\s*[:=]\s*[\"']?$")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/=]{60,}")


def _in_base64_block(text: str, start: int, end: int) -> bool:
    """Whether the token is a whole line of a wrapped base64 block (a certificate or a
    MIME part pasted without its header): a line of 60+ base64 characters next to
    another. A key is one line."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if text[line_start:line_end].strip() != text[start:end] or not _BASE64_LINE.fullmatch(
        text[start:end]
    ):
        return False
    prev_line = text[text.rfind("\n", 0, max(0, line_start - 1)) + 1 : max(0, line_start - 1)]
    next_end = text.find("\n", line_end + 1)
    next_line = text[line_end + 1 : len(text) if next_end < 0 else next_end]
    return any(_BASE64_LINE.fullmatch(x.strip()) for x in (prev_line, next_line) if x)


def _lone_random(text: str) -> Iterator[tuple[int, int, str]]:
    """A long token of mixed-case letters and digits with a key's entropy is a credential
    whatever its name: scanners' formats for hundreds of services share this shape."""
    if "-----BEGIN" in text:
        return  # PEM bodies (certificates, public keys) are long base64; keys have own rules
    for c in _LONE.finditer(text):
        v = c.group(0).rstrip(".")
        if not (
            any(ch.isupper() for ch in v)
            and any(ch.islower() for ch in v)
            and sum(ch.isdigit() for ch in v) >= 2
        ):
            continue
        if v.startswith((*_PUBLIC_PREFIXES, "eyJ")):  # a JWT is the jwt rule's to judge
            continue
        if _is_code_ref(v) or text[c.start() + len(v) : c.start() + len(v) + 1] == "(":
            continue  # KERNEL32.GetFileInformationByHandle, a call: code
        if _LONE_CONTEXT.search(text[max(0, c.start() - 24) : c.start()]):
            continue
        named = _VALUE_OF.search(text, max(0, c.start() - 80), c.start())
        if named and _NOT_SECRET_KEY.search(_CAMEL_HUMP.sub("_", named.group(1))):
            continue  # "AlarmName": "…", "Id": "dt_2xVIn…": the key says what it is
        if _in_base64_block(text, c.start(), c.start() + len(v)):
            continue
        if "://" in text[max(text.rfind(" ", 0, c.start()), 0) : c.start()]:
            continue
        # With no word around it to say "key", base64 of printable text is taken for an
        # encoded id or note; "user:password" in base64 is caught beside "auth"/"Basic".
        if entropy(v) >= 4.2 and looks_random(v) and not _decodes_to_prose(v, spaced=False):
            yield c.start(), c.start() + len(v), "high-entropy-secret"


# --- the table --------------------------------------------------------------------------

_B64 = r"[A-Za-z0-9+/]"
_JWT_IO_SIGNATURE = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
_UUID_RE = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

RULES: tuple[Rule, ...] = (
    # Cloud: AWS
    _token(
        "aws-access-key-id",
        "aws-access-key-id",
        # [A-Z0-9], not base32's [A-Z2-7]: scanners' fixtures and older keys hold 0, 1, 8, 9.
        r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}",
        "akia",
        "asia",
        "abia",
        "acca",
        "a3t",
    ),
    _near(
        "aws-secret-access-key",
        "aws-secret-key",
        r"aws.{0,20}?secret|secret.?access.?key",
        r"[A-Za-z0-9/+]{40}",
        "secret",
    ),
    Rule(
        "aws-secret-key",
        None,
        ("akia", "asia"),
        0,
        None,
        "aws-secret-beside-key-id",
        _aws_secret_beside_id,
    ),
    # Cloud: Google
    _keyed(
        "gcp-service-account-private-key",
        "gcp-service-account",
        r'"private_key"\s*:\s*"(?P<s>-----BEGIN[^"]*)"',
        "private_key",
    ),
    _keyed(
        "gcp-service-account-key-id",
        "gcp-service-account",
        r'"private_key_id"\s*:\s*"(?P<s>[0-9a-f]{40})"',
        "private_key_id",
    ),
    _token("gcp-api-key", "gcp-api-key", r"AIza[0-9A-Za-z_-]{35}", "aiza"),
    _token("gcp-oauth-client-secret", "gcp-oauth-secret", r"GOCSPX-[\w-]{28}", "gocspx-"),
    _token("gcp-oauth-access-token", "gcp-oauth-token", r"ya29\.[\w-]{30,}", "ya29."),
    # Cloud: Azure
    _keyed(
        "azure-storage-account-key",
        "azure-storage-key",
        rf"(?i)AccountKey\s*=\s*(?P<s>{_B64}{{40,100}}={{0,2}})",
        "accountkey",
    ),
    _keyed(
        "azure-shared-access-key",
        "azure-storage-key",
        rf"(?i)SharedAccessKey\s*=\s*(?P<s>{_B64}{{30,100}}={{0,2}})",
        "sharedaccesskey",
    ),
    _keyed(
        "azure-sas-signature",
        "azure-sas-token",
        r"[?&]sig=(?P<s>[A-Za-z0-9%+/]{30,}(?:=|%3D){0,2})",
        "sig=",
    ),
    _token(
        "azure-ad-client-secret",
        "azure-client-secret",
        r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
        "q~",
    ),
    # Version control
    *(
        _token(f"github-{name}", "github-token", rf"{prefix}_[A-Za-z0-9]{{36,251}}", prefix)
        for name, prefix in (
            ("classic-pat", "ghp"),
            ("oauth-token", "gho"),
            ("user-to-server-token", "ghu"),
            ("server-to-server-token", "ghs"),
            ("refresh-token", "ghr"),
        )
    ),
    _token("github-fine-grained-pat", "github-token", r"github_pat_\w{22,255}", "github_pat_"),
    _token("gitlab-pat", "gitlab-token", r"glpat-[\w-]{20,}", "glpat-"),
    _token("gitlab-deploy-token", "gitlab-token", r"gldt-[\w-]{20,}", "gldt-"),
    _token("gitlab-runner-token", "gitlab-token", r"glrt-[\w-]{20,}", "glrt-"),
    _token("gitlab-pipeline-trigger", "gitlab-token", r"glptt-[0-9a-f]{40}", "glptt-"),
    _token(
        "gitlab-runner-registration",
        "gitlab-token",
        r"GR1348941[\w-]{20}",
        "gr1348941",
    ),
    _token("bitbucket-app-password", "bitbucket-token", r"ATBB[A-Za-z0-9_=.-]{32,}", "atbb"),
    # Chat
    _token("slack-bot-token", "slack-token", r"xoxb-\d{8,13}-\d{8,13}[\w-]{8,}", "xoxb-"),
    _token("slack-user-token", "slack-token", r"xoxp-\d{8,13}-\d{8,13}[\w-]{8,}", "xoxp-"),
    _token(
        "slack-legacy-token",
        "slack-token",
        r"xox[aros]-[\w-]{10,}",
        "xoxa-",
        "xoxr-",
        "xoxo-",
        "xoxs-",
    ),
    _token("slack-config-token", "slack-token", r"xoxe(?:\.xox[bp])?-\d-[A-Z0-9]{140,}", "xoxe"),
    _token("slack-app-token", "slack-token", r"xapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}", "xapp-"),
    _keyed(
        "slack-webhook",
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{30,})",
        "hooks.slack.com",
    ),
    _token(
        "discord-bot-token",
        "discord-token",
        r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
    ),
    _keyed(
        "discord-webhook",
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/\d+/(?P<s>[\w-]{60,70})",
        "discord",
    ),
    _token("telegram-bot-token", "telegram-bot-token", r"\d{8,10}:AA[\w-]{33}", ":aa"),
    # Payment and SaaS
    _token("stripe-secret-key", "stripe-key", r"sk_(?:live|test)_[A-Za-z0-9]{20,247}", "sk_"),
    _token("stripe-restricted-key", "stripe-key", r"rk_(?:live|test)_[A-Za-z0-9]{20,247}", "rk_"),
    _token("stripe-webhook-secret", "stripe-webhook-secret", r"whsec_[A-Za-z0-9]{32,}", "whsec_"),
    _token("twilio-api-key", "twilio-api-key", r"SK[0-9a-fA-F]{32}", "sk"),
    _token("twilio-account-sid", "twilio-account-sid", r"AC[0-9a-f]{32}", "ac"),
    _near(
        "twilio-auth-token",
        "twilio-auth-token",
        r"twilio[^\n]{0,60}?(?:auth[ _-]?token|secret)",
        r"[0-9a-f]{32}",
        "twilio",
    ),
    _token("sendgrid-api-key", "sendgrid-key", r"SG\.[\w-]{22}\.[\w-]{43}", "sg."),
    # Mailgun's own docs show base-36 keys (key-3ax6xnjp…), not only hex.
    _token("mailgun-api-key", "mailgun-key", r"(?:pub)?key-[0-9a-zA-Z]{32}", "key-"),
    _near(
        "mailgun-signing-key",
        "mailgun-key",
        r"mailgun",
        r"[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}",
        "mailgun",
    ),
    *(
        _token(f"shopify-{name}", "shopify-token", rf"{prefix}_[a-fA-F0-9]{{32}}", prefix)
        for name, prefix in (
            ("access-token", "shpat"),
            ("shared-secret", "shpss"),
            ("custom-app-token", "shpca"),
            ("private-app-token", "shppa"),
        )
    ),
    _token(
        "square-access-token", "square-token", r"(?:EAAA|sq0atp-)[\w-]{22,60}", "eaaa", "sq0atp-"
    ),
    _token("square-oauth-secret", "square-token", r"sq0csp-[\w-]{43}", "sq0csp-"),
    # AI providers
    _token("anthropic-api-key", "anthropic-key", r"sk-ant-[a-z]+\d*-[\w-]{32,}", "sk-ant-"),
    _token(
        "openai-project-key",
        "openai-key",
        r"sk-(?:proj|svcacct|admin)-[\w-]{40,}",
        "sk-proj-",
        "sk-svcacct-",
        "sk-admin-",
    ),
    _token(
        "openai-legacy-key",
        "openai-key",
        r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{48}",
        "sk-",
    ),
    _token(
        "huggingface-token",
        "huggingface-token",
        r"(?:hf|api_org)_[A-Za-z0-9]{30,40}",
        "hf_",
        "api_org_",
    ),
    _token("replicate-token", "replicate-token", r"r8_[A-Za-z0-9]{37}", "r8_"),
    _token("groq-api-key", "groq-key", r"gsk_[A-Za-z0-9]{48,52}", "gsk_"),
    _token("xai-api-key", "xai-key", r"xai-[A-Za-z0-9]{70,90}", "xai-"),
    _token("perplexity-api-key", "perplexity-key", r"pplx-[A-Za-z0-9]{40,56}", "pplx-"),
    # Package registries
    _token("npm-token", "npm-token", r"npm_[A-Za-z0-9]{36}", "npm_"),
    _token(
        "pypi-token",
        "pypi-token",
        r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[\w-]{50,}",
        "pypi-",
    ),
    _token("docker-hub-token", "docker-hub-token", r"dckr_(?:pat|oat)_[\w-]{27,}", "dckr_"),
    # Infrastructure
    _token("vault-service-token", "vault-token", r"hvs\.[\w-]{24,}", "hvs."),
    _token("vault-batch-token", "vault-token", r"hvb\.[\w-]{24,}", "hvb."),
    _near("vault-legacy-token", "vault-token", r"vault", r"s\.[A-Za-z0-9]{24}", "vault"),
    _token(
        "terraform-cloud-token",
        "terraform-token",
        r"[A-Za-z0-9]{14}\.atlasv1\.[\w-]{60,80}",
        "atlasv1",
    ),
    _near(
        "heroku-api-key",
        "heroku-api-key",
        r"heroku[\w .-]{0,20}?(?:api[ _-]?key|token|auth|secret|key)",
        _UUID_RE,
        "heroku",
    ),
    _token("heroku-platform-key", "heroku-api-key", r"HRKU-[\w-]{60}", "hrku-"),
    _token("digitalocean-token", "digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}", "_v1_"),
    _token("pulumi-token", "pulumi-token", r"pul-[a-f0-9]{40}", "pul-"),
    _token(
        "doppler-token",
        "doppler-token",
        # A service token names its config: dp.st.prd.<40>.
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}",
        "dp.",
    ),
    _token("databricks-token", "databricks-token", r"dapi[a-f0-9]{32}(?:-\d)?", "dapi"),
    _token("supabase-token", "supabase-token", r"sbp_[a-f0-9]{40}", "sbp_"),
    _token(
        "planetscale-token",
        "planetscale-token",
        r"pscale_(?:tkn|pw|oauth)_[\w.-]{32,64}",
        "pscale_",
    ),
    _token("netlify-token", "netlify-token", r"nfp_[A-Za-z0-9]{36}", "nfp_"),
    _token("flyio-token", "flyio-token", r"fo1_[\w-]{43}", "fo1_"),
    _token("render-api-key", "render-token", r"rnd_[A-Za-z0-9]{32}", "rnd_"),
    # Observability and productivity
    _token("sentry-token", "sentry-token", r"sntry[su]_[\w=+/-]{40,}", "sntry"),
    _token(
        "grafana-service-account", "grafana-token", r"glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}", "glsa_"
    ),
    _token("grafana-cloud-token", "grafana-token", r"glc_[A-Za-z0-9+/]{32,}={0,2}", "glc_"),
    _token("newrelic-user-key", "newrelic-key", r"NRAK-[A-Z0-9]{27}", "nrak-"),
    _token("postman-api-key", "postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", "pmak-"),
    _token("linear-api-key", "linear-key", r"lin_api_[A-Za-z0-9]{40}", "lin_api_"),
    _token(
        "notion-token",
        "notion-token",
        r"(?:secret_[A-Za-z0-9]{43}|ntn_\d{11}[A-Za-z0-9]{35})",
        "secret_",
        "ntn_",
    ),
    _token("atlassian-api-token", "atlassian-token", r"ATATT3[\w=-]{100,}", "atatt3"),
    _token("figma-token", "figma-token", r"figd_[\w-]{40}", "figd_"),
    _token("mapbox-secret-token", "mapbox-token", r"sk\.eyJ[\w-]{20,}\.[\w-]{20,}", "sk.eyj"),
    _token("onepassword-service-account", "onepassword-token", r"ops_eyJ[\w+/=-]{100,}", "ops_eyj"),
    # No filler check: bech32's zero is "q", so a run of Q is a key, not a placeholder.
    Rule(
        "age-secret-key",
        re.compile(r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
        ("age-secret-key-",),
        name="age-secret-key",
    ),
    _token(
        "cloudflare-origin-ca-key",
        "cloudflare-key",
        r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}",
        "v1.0-",
    ),
    _token("maxmind-license-key", "maxmind-key", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk", "_mmk"),
    _token("artifactory-api-key", "artifactory-key", r"AKCp[A-Za-z0-9]{69}", "akcp"),
    _token("dynatrace-token", "dynatrace-token", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}", "dt0c01."),
    _token("adafruit-key", "adafruit-key", r"aio_[A-Za-z0-9]{28}", "aio_"),
    _token("airtable-pat", "airtable-token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", "pat"),
    _token("clojars-token", "clojars-token", r"CLOJARS_[a-z0-9]{60}", "clojars_"),
    _token("dropbox-token", "dropbox-token", r"sl\.[\w-]{130,160}", "sl."),
    _token("duffel-token", "duffel-token", r"duffel_(?:test|live)_[\w=-]{43}", "duffel_"),
    _token("easypost-key", "easypost-key", r"EZ[AT]K[a-z0-9]{54}", "ezak", "eztk"),
    _token("facebook-token", "facebook-token", r"EAA[MC][A-Za-z0-9]{100,}", "eaa"),
    _token(
        "flutterwave-key",
        "flutterwave-key",
        r"FLW(?:SECK|PUBK)_TEST-[a-h0-9]{32}-X|FLWSECK_TEST[a-h0-9]{12}",
        "flw",
    ),
    _token("frameio-token", "frameio-token", r"fio-u-[\w=-]{64}", "fio-u-"),
    _token(
        "harness-token",
        "harness-token",
        r"(?:pat|sat)\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
        "pat.",
        "sat.",
    ),
    _token("hubspot-pat", "hubspot-token", rf"pat-(?:na|eu)\d-{_UUID_RE}", "pat-"),
    _token("infracost-key", "infracost-key", r"ico-[A-Za-z0-9]{32}", "ico-"),
    _token("mailchimp-key", "mailchimp-key", r"[0-9a-f]{32}-us\d{1,2}", "-us"),
    _token(
        "newrelic-browser-key",
        "newrelic-key",
        r"NRJS-[a-f0-9]{19}|NRII-[\w-]{32}",
        "nrjs-",
        "nrii-",
    ),
    _token("prefect-key", "prefect-key", r"pnu_[A-Za-z0-9]{36}", "pnu_"),
    _token("readme-key", "readme-key", r"rdme_[a-z0-9]{70}", "rdme_"),
    _token("rubygems-key", "rubygems-key", r"rubygems_[a-f0-9]{48}", "rubygems_"),
    _token("scalingo-token", "scalingo-token", r"tk-us-[\w-]{48}", "tk-us-"),
    _token("sendinblue-key", "sendinblue-key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", "xkeysib-"),
    _token("shippo-token", "shippo-token", r"shippo_(?:live|test)_[a-f0-9]{40}", "shippo_"),
    _token("sonarqube-token", "sonarqube-token", r"sq[upa]_[a-f0-9]{40}", "squ_", "sqp_", "sqa_"),
    _token("typeform-token", "typeform-token", r"tfp_[\w.=-]{59}", "tfp_"),
    _token("alibaba-key-id", "alibaba-key", r"LTAI[A-Za-z0-9]{20}", "ltai"),
    _token("adobe-client-secret", "adobe-secret", r"p8e-[A-Za-z0-9]{32}", "p8e-"),
    _token("langsmith-key", "langsmith-key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", "lsv2_"),
    _near(
        "license-key",
        "license-key",
        r"licen[cs]e|serial|product[ _-]?key",
        r"(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,7}",
        "licen",
        "serial",
        "product",
    ),
    # Generic structured secrets
    _keyed(
        "jwt",
        "jwt",
        # Not the sample jwt.io and RFC-quoting docs show (signed with the published
        # "your-256-bit-secret"): like AWS's EXAMPLE keys it grants nothing.
        rf"{_B}(?P<s>eyJ[\w-]{{8,}}\.eyJ[\w-]{{8,}}\.(?!{_JWT_IO_SIGNATURE})[\w-]*){_E}",
        "eyj",
    ),
    *(_private_key(name, label) for name, label in _PRIVATE_KEY_TYPES),
    _url_password(),
    _keyed(
        "connection-string-password",
        "connection-password",
        r"(?i)(?:[?&;]|\bjdbc:\S*?[?&;:])\s*(?:password|pwd)\s*=\s*(?P<s>[^&;\s'\"]+)",
        "password=",
        "pwd=",
        "password =",
    ),
    _keyed(
        "basic-auth-header",
        "basic-auth",
        r"(?i)\bAuthorization[\"']?\s*[:=]\s*[\"']?Basic\s+(?P<s>[A-Za-z0-9+/]{8,}={0,2})",
        "basic",
    ),
    _keyed(
        "bearer-auth-header",
        "bearer-token",
        r"(?i)\bAuthorization[\"']?\s*[:=]\s*[\"']?(?:Bearer|Token)\s+(?P<s>[\w.~+/-]{8,}=*)",
        "authorization",
    ),
    Rule(
        "bearer-token",
        re.compile(r"\b[Bb]earer\s+(?P<s>[A-Za-z0-9][\w.~+/-]{15,}=*)"),
        ("bearer",),
        "s",
        lambda m: (
            "bearer-token"
            if any(c.isdigit() for c in m.group("s")) and not is_placeholder(m.group("s"))
            else None
        ),
        "bearer-token",
    ),
    _keyed(
        "curl-user-password",
        "basic-auth",
        r"\bcurl\b[^\n]*?\s(?:-u|--user)\s*['\"]?[^\s:'\"]+:(?P<s>[^\s'\"]+)",
        "curl",
    ),
    _keyed(
        "netrc-password",
        "password",
        r"(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(?P<s>\S+)",
        "machine",
    ),
    _keyed(
        "mysql-password-flag",
        "password",
        r"\b(?:mysql|mysqldump|mariadb)\b[^\n]*?\s-p(?P<s>[^\s'\"]{3,})",
        "mysql",
        "mariadb",
    ),
    _keyed("sshpass-password", "password", r"\bsshpass\s+-p\s*['\"]?(?P<s>[^\s'\"]+)", "sshpass"),
    Rule(
        "assignment",
        None,
        ("pass", "pwd", "secret", "token", "key"),
        0,
        None,
        "assignment",
        _assignments,
    ),
    Rule(
        "password",
        None,
        ("pass", "pwd", "pw", " / "),
        0,
        None,
        "password-in-prose",
        _prose_passwords,
    ),
    Rule(
        "high-entropy-secret",
        None,
        ("key", "secret", "token", "pass", "auth", "bearer", "credential", "licen", "identity"),
        0,
        None,
        "high-entropy-near-keyword",
        _high_entropy,
    ),
    Rule(
        "high-entropy-secret",
        None,
        ("=", ":"),
        0,
        None,
        "high-entropy-assigned",
        _assigned_random,
    ),
    Rule("high-entropy-secret", None, (), 0, None, "high-entropy-token", _lone_random),
)
