"""The token file authenticator in process: tokens already presented are found again without the file's
records being compared, yet a change of the file is seen as soon as it is re-checked."""

from __future__ import annotations

import os
from pathlib import Path

from apiserver.auth.tokens import AUTHENTICATED_GROUP, TokenAuthenticator, User


def _write(path: Path, text: str) -> None:
    # A new inode each time: the re-check compares inode, size and mtime.
    path.with_suffix(".new").write_text(text)
    os.replace(path.with_suffix(".new"), path)


def test_a_token_presented_again_is_the_same_user(tmp_path: Path) -> None:
    path = tmp_path / "tokens.csv"
    _write(path, 'tok-a,alice,uid-a,"team"\n')
    auth = TokenAuthenticator(str(path), recheck_seconds=3600)
    first = auth.authenticate("Bearer tok-a")
    assert first == User("alice", "uid-a", ("team", AUTHENTICATED_GROUP))
    assert auth.authenticate("bearer   tok-a") == first
    assert auth.authenticate("Bearer tok-b") is None


def test_a_reloaded_file_replaces_what_was_found_before(tmp_path: Path) -> None:
    path = tmp_path / "tokens.csv"
    _write(path, 'tok-a,alice,uid-a,"team"\ntok-b,bob,uid-b\n')
    auth = TokenAuthenticator(str(path), recheck_seconds=0)
    assert auth.authenticate("Bearer tok-a") is not None
    assert auth.authenticate("Bearer tok-b") is not None
    _write(path, 'tok-a,alice,uid-a,"admins,team"\n')
    changed = auth.authenticate("Bearer tok-a")
    assert changed is not None and changed.groups == ("admins", "team", AUTHENTICATED_GROUP)
    assert auth.authenticate("Bearer tok-b") is None


def test_a_known_header_is_found_as_sent_until_the_file_is_due_again(tmp_path: Path) -> None:
    path = tmp_path / "tokens.csv"
    _write(path, 'tok-a,alice,uid-a,"team"\n')
    auth = TokenAuthenticator(str(path), recheck_seconds=3600)
    assert auth.known(b"Bearer tok-a") is None  # never presented: the caller authenticates
    first = auth.authenticate("bearer   tok-a")
    assert auth.known(b"Bearer tok-a") == first  # kept as clients send it, whatever form found it
    assert auth.known(b"bearer   tok-a") is None  # other spellings are not kept: they go the long way
    assert auth.known(b"Bearer tok-b") is None
    due = TokenAuthenticator(str(path), recheck_seconds=0)
    assert due.authenticate("Bearer tok-a") == first
    _write(path, 'tok-b,bob,uid-b\n')
    assert due.known(b"Bearer tok-a") is None  # the file is due: only authenticate may answer
    assert due.authenticate("Bearer tok-a") is None
