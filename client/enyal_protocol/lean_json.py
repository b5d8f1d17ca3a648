"""JSON for `enyal hook EVENT`'s process, from the standard library's C accelerator
(`_json`) without the `json` package around it.

`import json` is 32 M of the 88 M instructions a command hook answering `{}` executes
(valgrind, Python 3.11; `python -c pass` is 38 M): json.decoder and json.scanner compile
regular expressions at import, which loads `re`, `enum` and what they need, though the
C scanner and encoder they hand the work to use none of it. What this module makes
gives the same values and the same text as json.loads and json.dumps with their
defaults (tests/test_lean_json.py holds it). `_json` is CPython's, built in since 3.x
and what json itself runs on. An error is a ValueError, as json's JSONDecodeError is
(raw_decode says how, where json.decoder is not imported)."""

from __future__ import annotations

from _json import encode_basestring, encode_basestring_ascii, make_encoder, make_scanner

TYPE_CHECKING = False  # typing's own constant would import typing (records.py)
if TYPE_CHECKING:
    from typing import Any

_SPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """What the C scanner reads of a json.JSONDecoder: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def _default(o: Any) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


_scan = make_scanner(_Context())  # type: ignore[arg-type]  # typeshed: a JSONDecoder


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _SPACE:
        i += 1
    return i


def raw_decode(text: str, i: int = 0) -> tuple[Any, int]:
    """The value starting at `text[i]` and the index after it (json.JSONDecoder's)."""
    try:
        return _scan(text, i)
    except StopIteration as err:
        raise ValueError(f"Expecting value: char {err.value}") from None
    except SystemError:
        # Every other error (an unterminated string, a bad escape, a missing ':' or ',')
        # the accelerator raises as json.decoder's JSONDecodeError, which CPython 3.11
        # looks up in sys.modules only: not imported, it returns no value and sets no
        # exception, and the interpreter says so with a SystemError.
        raise ValueError(f"not valid JSON (from char {i})") from None


def loads(data: str | bytes) -> Any:
    """json.loads for UTF-8 bytes or a str."""
    text = data.decode() if isinstance(data, bytes) else data
    value, end = raw_decode(text, _skip(text, 0))
    if _skip(text, end) != len(text):
        raise ValueError(f"Extra data: char {end}")
    return value


def dumps(value: Any, ensure_ascii: bool = True, separators: tuple[str, str] = (", ", ": ")) -> str:
    """json.dumps with its defaults but these two."""
    quote = encode_basestring_ascii if ensure_ascii else encode_basestring
    if isinstance(value, str):
        return str(quote(value))
    item, key = separators
    encode = make_encoder({}, _default, quote, None, key, item, False, False, True)
    return "".join(encode(value, 0))
