"""A regular expression compiled at its first use, not at import: the hook modules' six
patterns cost every command hook ~4 M instructions to compile though most events use
none of them (docs/ARCHITECTURE.md, "Client start-up"). `re` itself is imported at the
first compile too: with json gone (lean_json) and the hook started without the console
script (client/scripts/enyal-hook), nothing else on the hook's path imports it, and it
brings enum, functools and its compiler (~5 ms of a command hook's start here). A flag is
written in the pattern ("(?m)", "(?i)") so that no module needs `re` to declare one."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:
    import re


class LazyPattern:
    """re.compile(pattern, flags) on first use; the methods the hook modules call."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def match(self, text: str) -> re.Match[str] | None:
        return self.compiled.match(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(text)

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def findall(self, text: str) -> list[str]:
        return self.compiled.findall(text)

    def split(self, text: str) -> list[str]:
        return self.compiled.split(text)
