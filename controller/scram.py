"""SCRAM credentials (KIP-554): `ScramControlManager` keeps the credentials of every user,
stored in the metadata store (in a cluster, ZooKeeper's `/config/users/<user>`, beside the
user's client quotas, where Kafka's ZooKeeper mode keeps them), and answers
DescribeUserScramCredentials and AlterUserScramCredentials.

The client salts and hashes the password itself (AlterUserScramCredentials carries the salt
and the salted password, never the password); the broker keeps only what RFC 5802's server
needs: the salt, the iteration count, StoredKey = H(HMAC(SaltedPassword, "Client Key")) and
ServerKey = HMAC(SaltedPassword, "Server Key"), as Kafka's `ScramFormatter` derives them.

Semantics are those of Kafka's ZooKeeper-mode broker (3.9's `ZkAdminManager`), the mode whose
store ferrolog shares: a request may change both mechanisms of one user (kafka-configs sends
`SCRAM-SHA-256=[...],SCRAM-SHA-512=[...]` as two upsertions of one request), and only the same
(user, mechanism) twice is a DUPLICATE_RESOURCE. Kafka 4.1's KRaft controller
(`ScramControlManager`) refuses any second change of one user in a request, which makes that
kafka-configs line fail there.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ferrolog.errors import (
    DuplicateResourceError,
    KafkaError,
    ResourceNotFoundError,
    UnacceptableCredentialError,
    UnsupportedSaslMechanismError,
)

if TYPE_CHECKING:  # the store's modules import the credential types from here
    from .store.base import MetadataStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScramMechanism:
    """Kafka's `ScramMechanism`: the wire type, the SASL name (also the config key of the
    credential in the user's config), the hash and the fewest iterations accepted."""

    type: int
    name: str
    hash_name: str
    min_iterations: int = 4096


MECHANISMS: dict[int, ScramMechanism] = {
    1: ScramMechanism(1, "SCRAM-SHA-256", "sha256"),
    2: ScramMechanism(2, "SCRAM-SHA-512", "sha512"),
}
BY_NAME: dict[str, ScramMechanism] = {m.name: m for m in MECHANISMS.values()}
# Kafka's broker refuses more (a client could otherwise make every authentication costly).
MAX_ITERATIONS = 16384


@dataclass(frozen=True, repr=False)
class ScramCredential:
    """What the server keeps of one user's password for one mechanism."""

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def __repr__(self) -> str:
        # Never logged: the keys let anyone who has them impersonate the server.
        return f"ScramCredential(iterations={self.iterations})"

    @classmethod
    def from_salted_password(
        cls, mechanism: ScramMechanism, salt: bytes, salted_password: bytes, iterations: int
    ) -> ScramCredential:
        client_key = hmac.digest(salted_password, b"Client Key", mechanism.hash_name)
        return cls(
            salt=salt,
            stored_key=hashlib.new(mechanism.hash_name, client_key).digest(),
            server_key=hmac.digest(salted_password, b"Server Key", mechanism.hash_name),
            iterations=iterations,
        )

    def to_config(self) -> str:
        """Kafka's `ScramCredentialUtils.credentialToString`, the config value it stores."""
        b64 = base64.b64encode
        return (
            f"salt={b64(self.salt).decode()},stored_key={b64(self.stored_key).decode()},"
            f"server_key={b64(self.server_key).decode()},iterations={self.iterations}"
        )

    @classmethod
    def from_config(cls, value: str) -> ScramCredential:
        """Parses `to_config`'s format; raises ValueError for anything else."""
        fields: dict[str, str] = {}
        for token in value.split(","):
            key, sep, val = token.partition("=")
            if not sep or not key:
                raise ValueError("SCRAM credential not valid")
            fields[key] = val
        if set(fields) != {"salt", "stored_key", "server_key", "iterations"}:
            raise ValueError("SCRAM credential not valid")
        return cls(
            salt=base64.b64decode(fields["salt"], validate=True),
            stored_key=base64.b64decode(fields["stored_key"], validate=True),
            server_key=base64.b64decode(fields["server_key"], validate=True),
            iterations=int(fields["iterations"]),
        )


# User -> mechanism name -> credential.
ScramTable = dict[str, dict[str, ScramCredential]]
# Per user, per mechanism name: the new credential, or None to remove it.
ScramChanges = dict[str, dict[str, ScramCredential | None]]


@dataclass(frozen=True)
class Upsertion:
    user: str
    mechanism: int
    iterations: int
    salt: bytes
    salted_password: bytes


@dataclass(frozen=True)
class Deletion:
    user: str
    mechanism: int


# One DescribeUserScramCredentials result: the user, its error, (mechanism, iterations) pairs.
DescribeResult = tuple[str, KafkaError | None, list[tuple[int, int]]]


def _illegal(user: str, mechanism: int, iterations: int | None) -> KafkaError | None:
    """What Kafka answers for an empty user, an unknown mechanism or (upsertions, given
    `iterations`) an iteration count out of range."""
    if not user:
        return UnacceptableCredentialError("Username must not be empty")
    known = MECHANISMS.get(mechanism)
    if known is None:
        return UnsupportedSaslMechanismError("Unknown SCRAM mechanism")
    if iterations is not None and iterations < known.min_iterations:
        return UnacceptableCredentialError("Too few iterations")
    if iterations is not None and iterations > MAX_ITERATIONS:
        return UnacceptableCredentialError("Too many iterations")
    return None


class ScramControlManager:
    def __init__(self, store: MetadataStore) -> None:
        self._store = store
        self._credentials: ScramTable = {}
        # One alteration at a time: each checks deletions against what the previous one left.
        self._lock = asyncio.Lock()

    @property
    def credentials(self) -> ScramTable:
        return {user: dict(c) for user, c in self._credentials.items()}

    def credential(self, user: str, mechanism: str) -> ScramCredential | None:
        """The credential a SCRAM authentication of `user` is checked against."""
        return self._credentials.get(user, {}).get(mechanism)

    async def load(self) -> None:
        self.update(await self._store.scram_credentials(), full=True)

    def update(self, changes: ScramTable, full: bool) -> None:
        """Takes the users in `changes` as the store has them (an empty dict: none left);
        `full`: `changes` is every user."""
        credentials = {} if full else dict(self._credentials)
        credentials.update(changes)
        self._credentials = {user: dict(c) for user, c in credentials.items() if c}

    def describe(self, users: Sequence[str] | None) -> list[DescribeResult]:
        """Every user with credentials (sorted) when `users` is None or empty; else one result
        per distinct user asked for, in the order asked, as Kafka's ZooKeeper-mode broker."""
        if not users:
            return [(user, None, self._infos(user)) for user in sorted(self._credentials)]
        results: list[DescribeResult] = []
        for user in dict.fromkeys(users):
            if not user:
                results.append((user, ResourceNotFoundError("Username must not be empty"), []))
            elif users.count(user) > 1:
                message = f"Cannot describe SCRAM credentials for the same user twice in a single request: {user}"  # noqa: E501
                results.append((user, DuplicateResourceError(message), []))
            elif user not in self._credentials:
                message = f"Attempt to describe a user credential that does not exist: {user}"
                results.append((user, ResourceNotFoundError(message), []))
            else:
                results.append((user, None, self._infos(user)))
        return results

    def _infos(self, user: str) -> list[tuple[int, int]]:
        held = self._credentials.get(user, {})
        return [(m.type, held[m.name].iterations) for m in MECHANISMS.values() if m.name in held]

    async def alter(
        self, deletions: Sequence[Deletion], upsertions: Sequence[Upsertion]
    ) -> list[tuple[str, KafkaError | None]]:
        """Applies the changes of every user whose changes are all valid; one result per
        user, checked in Kafka's order: illegal names, mechanisms and iteration counts, then
        a (user, mechanism) changed twice, then deletions of credentials that do not exist."""
        async with self._lock:
            errors: dict[str, KafkaError] = {}
            # As Kafka: an upsertion's complaint about a user replaces a deletion's.
            for d in deletions:
                if (error := _illegal(d.user, d.mechanism, None)) is not None:
                    errors[d.user] = error
            for u in upsertions:
                if (error := _illegal(u.user, u.mechanism, u.iterations)) is not None:
                    errors[u.user] = error
            pairs = [(d.user, d.mechanism) for d in deletions if d.user not in errors]
            pairs += [(u.user, u.mechanism) for u in upsertions if u.user not in errors]
            for user, mechanism in pairs:
                if pairs.count((user, mechanism)) > 1 and user not in errors:
                    errors[user] = DuplicateResourceError(
                        "A user credential cannot be altered twice in the same request"
                    )
            # Deletions are checked against the store, not this broker's cache: in a cluster
            # another broker may have just written them (Kafka's ZooKeeper mode reads them too).
            deleting = {d.user for d in deletions if d.user not in errors}
            if deleting:
                stored = await self._store.scram_credentials(deleting)
                self.update({user: stored.get(user, {}) for user in deleting}, full=False)
            for d in deletions:
                held = self._credentials.get(d.user, {})
                if d.user not in errors and MECHANISMS[d.mechanism].name not in held:
                    errors[d.user] = ResourceNotFoundError(
                        "Attempt to delete a user credential that does not exist"
                    )
            changes: ScramChanges = {}
            for d in deletions:
                if d.user not in errors:
                    changes.setdefault(d.user, {})[MECHANISMS[d.mechanism].name] = None
            for u in upsertions:
                if u.user not in errors:
                    known = MECHANISMS[u.mechanism]
                    credential = ScramCredential.from_salted_password(
                        known, u.salt, u.salted_password, u.iterations
                    )
                    changes.setdefault(u.user, {})[known.name] = credential
            users = dict.fromkeys([*(d.user for d in deletions), *(u.user for u in upsertions)])
            if changes:
                await self._store.alter_scram_credentials(changes)
                self._apply(changes)
            return [(user, errors.get(user)) for user in users]

    def _apply(self, changes: Mapping[str, Mapping[str, ScramCredential | None]]) -> None:
        credentials = self.credentials
        for user, mechanisms in changes.items():
            held = credentials.setdefault(user, {})
            for name, credential in mechanisms.items():
                if credential is None:
                    held.pop(name, None)
                else:
                    held[name] = credential
            log.info("altered SCRAM credentials of user %r: %s", user, sorted(held) or "none left")
        self._credentials = {user: c for user, c in credentials.items() if c}
