"""ScopeGroups.matching remembers a view's groups (issue 30: recall's CPU) and must give
exactly what asking every group gives, also after new scopes appear."""

from __future__ import annotations

from enyal_daemon.index.groups import MAX_MATCHED, ScopeGroups
from enyal_daemon.store.filters import View


def _fresh(groups: ScopeGroups, view: View) -> list[int]:
    return groups.matching(view.sees)  # no key: every group asked anew


def test_remembered_answer_follows_new_groups() -> None:
    groups = ScopeGroups()
    view = View("/w/app", ("/w",))
    groups.key("global", None)
    groups.key("project", "/w/other")
    first = groups.matching(view.sees, view)
    assert first == _fresh(groups, view) == [1]
    # A scope the view sees, made after the answer was remembered, is in the next answer.
    seen = groups.key("project", "/w/app")
    groups.key("file", "/w/other/x.py")
    under = groups.key("file", "/w/app/src/y.py")
    again = groups.matching(view.sees, view)
    assert again == _fresh(groups, view) == [1, seen, under]
    # The caller may change the list it got; the remembered one stays right.
    again.append(99)
    assert groups.matching(view.sees, view) == [1, seen, under]


def test_views_are_remembered_apart_and_bounded() -> None:
    groups = ScopeGroups()
    for i in range(5):
        groups.key("project", f"/p{i}")
    for i in range(MAX_MATCHED + 3):  # past the bound: it starts over, answers stay exact
        view = View(f"/p{i % 5}")
        assert groups.matching(view.sees, view) == _fresh(groups, view) == [i % 5 + 1]


def test_a_rename_is_seen_by_remembered_answers_and_ids_are_never_reused() -> None:
    """A checkout's remote changed (service/core/identity.py renames its groups): a view
    of the new key remembered before sees them at once, and a group made after a rename
    that merged two scopes gets an id of its own (it once took len(_keys) + 1, an id
    still in use after the merge)."""
    groups = ScopeGroups()
    old = groups.key("project", "path:/w/app")
    new = groups.key("project", "git:host/app")
    view = View("git:host/app")
    assert groups.matching(view.sees, view) == [new]
    groups.rename("path:/w/app", "git:host/app")  # merges into the existing scope
    assert sorted(groups.matching(view.sees, view)) == sorted(_fresh(groups, view)) == [old, new]
    fresh = groups.key("project", "git:host/other")
    assert fresh not in (old, new)
