"""The remote URL a repository fetches from, read from git's config files as git reads
them, without running git (projects.py asks on every request that names a folder).

What a key needs and no more: `remote.<name>.url` (`origin`'s, else the first remote's
by name; a remote's first url), rewritten by the longest `url.<base>.insteadOf` prefix
it starts with (`git remote get-url` does the same: a clone of `gh:org/repo` with
`[url "git@github.com:"] insteadOf = gh:` is github.com/org/repo, as another clone of
`https://github.com/org/repo` is). The files are git's, in git's order: the system's
(`GIT_CONFIG_SYSTEM`, else /etc/gitconfig; none with `GIT_CONFIG_NOSYSTEM`), the user's
(`GIT_CONFIG_GLOBAL`, else `$XDG_CONFIG_HOME/git/config` and `~/.gitconfig`), the
repository's; each with its `include.path` and `includeIf.<condition>.path` files read
where they stand (nested up to git's depth of 10). Conditions: `gitdir:` and
`gitdir/i:` (git's globs: `**/` before a pattern not rooted, `**` after a trailing
`/`, `~/` and `./` expanded) against the repository's git directory, `onbranch:`
against the branch HEAD names. `hasconfig:remote.*.url:` is never met here (it
conditions on the URLs being read), nor is any condition git adds later.

The answer is cached per repository config, with the (mtime, size) of every file read
for it, present or not: a later look costs a stat of each (4 or so without includes)
and reads again only when one of them moved.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

MAX_DEPTH = 10  # git's limit on nested includes
MAX_READ = 1 << 20

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$")

Entry = tuple[str, str | None, str, str]  # section (lower case), subsection, key (lower), value
_Seen = tuple[str, int, int] | tuple[str, None, None]  # a file and its (mtime_ns, size)


def entries_in(text: str) -> list[Entry]:
    """Every `key = value` of a config file's text, in order, with its section."""
    out: list[Entry] = []
    section: tuple[str, str | None] | None = None
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m is not None:
            name, sub = m.group(1).lower(), m.group(2)
            if sub is not None:
                sub = sub.replace('\\"', '"').replace("\\\\", "\\")
            elif "." in name:  # the old `[section.sub]` form, its subsection lower-cased
                name, sub = name.split(".", 1)
            section = (name, sub)
            line = m.group(3)
        if section is None:
            continue
        k = _KEY.match(line)
        if k is None:
            continue
        value = k.group(2)
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = value[1:-1]
        else:
            value = re.split(r"\s[#;]", value, maxsplit=1)[0].strip()
        out.append((section[0], section[1], k.group(1).lower(), value))
    return out


def chosen_remote(remotes: dict[str, str]) -> str | None:
    if "origin" in remotes:
        return remotes["origin"]
    return remotes[min(remotes)] if remotes else None


def rewritten(url: str, rules: list[tuple[str, str]]) -> str:
    """`url` with the longest insteadOf prefix it starts with replaced by its base."""
    best = max((r for r in rules if url.startswith(r[0])), key=lambda r: len(r[0]), default=None)
    return url if best is None else best[1] + url[len(best[0]) :]


def user_files(env: Mapping[str, str] = os.environ) -> list[str]:
    """The system's and the user's config files, in the order git reads them."""
    out: list[str] = []
    if env.get("GIT_CONFIG_NOSYSTEM", "").lower() not in ("1", "true", "yes", "on"):
        out.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if "GIT_CONFIG_GLOBAL" in env:
        out.append(env["GIT_CONFIG_GLOBAL"])
    else:
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        out += [
            os.path.join(xdg, "git", "config"),
            os.path.join(os.path.expanduser("~"), ".gitconfig"),
        ]
    return [f for f in out if f]


@dataclass
class _Read:
    gitdir: str
    seen: list[_Seen] = field(default_factory=list)

    def file(self, path: str, depth: int = 0) -> list[Entry]:
        """A config file's entries, its includes read in their place."""
        try:
            st = os.stat(path)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read(MAX_READ)
        except OSError:
            self.seen.append((path, None, None))
            return []
        self.seen.append((path, st.st_mtime_ns, st.st_size))
        out: list[Entry] = []
        here = os.path.dirname(path)
        for e in entries_in(text):
            section, sub, key, value = e
            included = key == "path" and (
                section == "include" or (section == "includeif" and self._met(sub, here))
            )
            if not included:
                out.append(e)
            elif depth < MAX_DEPTH and value:
                target = os.path.expanduser(value)
                out += self.file(os.path.normpath(os.path.join(here, target)), depth + 1)
        return out

    def _met(self, condition: str | None, here: str) -> bool:
        if condition is None:
            return False
        kind, _, pattern = condition.partition(":")
        if kind in ("gitdir", "gitdir/i"):
            glob = _glob(_gitdir_pattern(pattern, here), kind == "gitdir/i")
            # As git does: the git directory as found, then with its links resolved.
            names = {self.gitdir, os.path.realpath(self.gitdir)}
            return any(glob.fullmatch(n) is not None for n in names)
        if kind == "onbranch":
            branch = self._branch()
            if branch is None:
                return False
            pattern = pattern + "**" if pattern.endswith("/") else pattern
            return _glob(pattern, False).fullmatch(branch) is not None
        return False  # hasconfig:…, and conditions git adds later: not met here

    def _branch(self) -> str | None:
        head = os.path.join(self.gitdir, "HEAD")
        try:
            st = os.stat(head)
            with open(head, encoding="utf-8", errors="replace") as f:
                first = f.readline(4096).strip()
        except OSError:
            self.seen.append((head, None, None))
            return None
        self.seen.append((head, st.st_mtime_ns, st.st_size))  # a checkout moves it
        prefix = "ref: refs/heads/"
        return first[len(prefix) :] if first.startswith(prefix) else None


def _gitdir_pattern(pattern: str, here: str) -> str:
    """A `gitdir:` pattern as git completes it before matching."""
    if pattern.startswith("~/"):
        pattern = os.path.expanduser(pattern)
    elif pattern.startswith("./"):
        pattern = os.path.join(here, pattern[2:])
    elif not os.path.isabs(pattern):
        pattern = "**/" + pattern
    return pattern + "**" if pattern.endswith("/") else pattern


def _glob(pattern: str, fold: bool) -> re.Pattern[str]:
    """git's wildmatch with WM_PATHNAME: `*` and `?` stay within a folder, `**/` is any
    folders (none included), a `**` elsewhere anything."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out), re.IGNORECASE if fold else 0)


def read_remote(config: str, gitdir: str) -> tuple[str | None, list[_Seen]]:
    """The remote URL of the repository whose config is `config`, and the files read."""
    r = _Read(gitdir)
    found: list[Entry] = []
    for path in user_files():
        found += r.file(path)
    found += r.file(config)
    remotes: dict[str, str] = {}
    rules: list[tuple[str, str]] = []
    for section, sub, key, value in found:
        if sub is None or not value:
            continue
        if section == "remote" and key == "url":
            remotes.setdefault(sub, value)
        elif section == "url" and key == "insteadof":
            rules.append((value, sub))
    url = chosen_remote(remotes)
    return (rewritten(url, rules) if url is not None else None), r.seen


def _stat(path: str) -> _Seen:
    try:
        st = os.stat(path)
    except OSError:
        return (path, None, None)
    return (path, st.st_mtime_ns, st.st_size)


class RemoteCache:
    """The remote URL per repository config, kept while every file read for it holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # By config and git directory: a worktree shares its config, not its gitdir: conditions.
        self._items: dict[tuple[str, str], tuple[tuple[_Seen, ...], str | None]] = {}

    def url(self, config: str, gitdir: str) -> str | None:
        with self._lock:
            hit = self._items.get((config, gitdir))
        if hit is not None and all(_stat(s[0]) == s for s in hit[0]):
            return hit[1]
        url, seen = read_remote(config, gitdir)
        if not any(s[0] == config and s[1] is not None for s in seen):
            return None  # no config: no remote (and nothing to keep)
        with self._lock:
            if len(self._items) > 4096:  # a bound, not an LRU: repositories are few
                self._items.clear()
            self._items[(config, gitdir)] = (tuple(seen), url)
        return url
