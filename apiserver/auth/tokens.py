"""Who is calling: bearer tokens from a file in kube-apiserver's --token-auth-file CSV format.

One record a line: `token,user,uid,"group1,group2"` (groups optional). The file lives at
DIR/pki/tokens.csv; on first start it holds the admin token of DIR/pki/admin.token, so data
directories from before the file existed keep their kubeconfig. The server re-reads the file when
it changes on disk, so a token added by `python -m apiserver token add` works without a restart.

Whether it changed is checked at most once a second, not on every request (a `stat` per request
cost more than answering a small get), and at once for a token nobody holds: a new token works
immediately, a removed one stops working within a second. A token not yet presented is compared with
every record in constant time; one already found is looked up until the file is reloaded.
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import hmac
import io
import logging
import os
import secrets
import time
import uuid
from dataclasses import dataclass

from apiserver.auth.pki import write_private

log = logging.getLogger("apiserver.auth.tokens")

FILE_NAME = "tokens.csv"
# Every authenticated user is in this group too, as kube-apiserver's authenticator chain adds it.
AUTHENTICATED_GROUP = "system:authenticated"


# Extra values, as the authenticators that know them add them (credential id, bound pod and node).
Extra = tuple[tuple[str, tuple[str, ...]], ...]
CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"


@dataclass(frozen=True)
class User:
    name: str
    uid: str
    groups: tuple[str, ...]
    extra: Extra = ()

    def extra_json(self) -> dict[str, list[str]]:
        """The extras as UserInfo carries them: a map of lists, keys in Go's sorted map order."""
        return {key: list(values) for key, values in sorted(self.extra)}


class TokenFileError(Exception):
    """The token file cannot be read as the CSV records kube-apiserver accepts."""


def token_file_path(data_dir: str) -> str:
    return os.path.join(data_dir, "pki", FILE_NAME)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def parse(text: str, path: str) -> list[tuple[bytes, User]]:
    """The records of a token file, each keyed by the SHA-256 of its token."""
    records: list[tuple[bytes, User]] = []
    reader = csv.reader(io.StringIO(text), skipinitialspace=True)
    try:
        for record in reader:
            if not any(field.strip() for field in record):
                continue
            if len(record) < 3:
                raise TokenFileError(f"{path}:{reader.line_num}: a record needs at least 3 columns "
                                     f"(token, user name, user uid), found {len(record)}")
            token = record[0].strip()
            if not token:
                # kube-apiserver skips such a record with a warning rather than refusing the file.
                log.warning("%s:%d: empty token, record skipped", path, reader.line_num)
                continue
            groups = tuple(g.strip() for g in record[3].split(",") if g.strip()) if len(record) > 3 else ()
            if AUTHENTICATED_GROUP not in groups:
                groups += (AUTHENTICATED_GROUP,)
            records.append((_digest(token), User(record[1].strip(), record[2].strip(), groups)))
    except csv.Error as exc:
        raise TokenFileError(f"{path}:{reader.line_num}: {exc}") from None
    return records


def format_record(token: str, user: User) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([token, user.name, user.uid, ",".join(user.groups)])
    return out.getvalue()


def ensure_token_file(path: str, admin_token: str, admin_groups: tuple[str, ...]) -> None:
    """Creates the file with the admin token on first start; an existing file is the authority."""
    if not os.path.exists(path):
        # A replace gives the file a new inode, which is how the running server notices a change.
        write_private(path, format_record(admin_token, User("admin", "admin", admin_groups)).encode())


def add_token(path: str, name: str, groups: tuple[str, ...]) -> str:
    """Appends a fresh token for `name` and returns it."""
    token = secrets.token_urlsafe(32)
    # Two `token add` at once must not lose one of the records.
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(path) as f:
            text = f.read()
        parse(text, path)
        if text and not text.endswith("\n"):
            text += "\n"
        write_private(path, (text + format_record(token, User(name, str(uuid.uuid4()), groups))).encode())
    return token


class TokenAuthenticator:
    """Answers who a bearer token belongs to, from the token file as it is now on disk."""

    def __init__(self, path: str, recheck_seconds: float = 1.0) -> None:
        self.path = path
        self.recheck_seconds = recheck_seconds
        self._next_check = time.monotonic() + recheck_seconds
        self._stamp = self._stat()
        with open(path) as f:
            self._records = parse(f.read(), path)
        # Tokens of the file already presented, found again by one lookup as upstream's token file
        # authenticator finds every token: as small as the file, emptied whenever it is reloaded.
        # Kept as the header clients send, `Bearer <token>`, which `known` looks up as it arrives.
        self._known: dict[bytes, User] = {}

    def _stat(self) -> tuple[int, int, int]:
        try:
            st = os.stat(self.path)
        except OSError:
            return (-1, -1, -1)
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _current(self, now: bool = False) -> list[tuple[bytes, User]]:
        """The records; the file is looked at again when `now`, or once `recheck_seconds` have passed."""
        moment = time.monotonic()
        if not now and moment < self._next_check:
            return self._records
        self._next_check = moment + self.recheck_seconds
        stamp = self._stat()
        if stamp != self._stamp:
            self._stamp = stamp
            try:
                with open(self.path) as f:
                    self._records = parse(f.read(), self.path)
                self._known = {}
            except (OSError, TokenFileError) as exc:
                # A half-edited or vanished file must not lock everyone out: keep the last good tokens.
                log.error("token file not reloaded, keeping the previous tokens: %s", exc)
        return self._records

    def authenticate(self, authorization: str) -> User | None:
        """The user of an `Authorization: Bearer <token>` header; None when it names nobody."""
        parts = authorization.split()
        if len(parts) < 2 or parts[0].lower() != "bearer":
            return None
        token = parts[1]
        records = self._current()
        header = b"Bearer " + token.encode("latin-1")
        found = self._known.get(header)
        if found is not None:
            return found
        presented = _digest(token)
        found = self._match(presented, records)
        if found is None:
            found = self._match(presented, self._current(now=True))
        if found is not None:
            self._known[header] = found
        return found

    def known(self, authorization: bytes) -> User | None:
        """The user of an Authorization header as clients send it (`Bearer <token>`), when its token
        was already found and the file is not due to be looked at again; otherwise None, and
        `authenticate` answers. One lookup, on every request of a client that keeps its token."""
        if time.monotonic() >= self._next_check:
            return None
        return self._known.get(authorization)

    @staticmethod
    def _match(presented: bytes, records: list[tuple[bytes, User]]) -> User | None:
        found: User | None = None
        # Every record is compared, in constant time, so the answer's timing says nothing about
        # how much of a token was right or which record it matched.
        for digest, user in records:
            if hmac.compare_digest(digest, presented):
                found = user
        return found
