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

import logging
from collections.abc import Mapping, Sequence

from ferrolog.errors import (
    DuplicateResourceError,
    KafkaError,
    ResourceNotFoundError,
    UnacceptableCredentialError,
    UnsupportedSaslMechanismError,
)

from ..entity_manager import EntityConfigManager
from ..store.entities import DEFAULT_ENTITY, EntityType, desanitize, sanitize
from .model import (
    MAX_ITERATIONS,
    MECHANISMS,
    Deletion,
    ScramChanges,
    ScramCredential,
    ScramTable,
    Upsertion,
    credentials_of_config,
)

log = logging.getLogger(__name__)


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


class ScramControlManager(EntityConfigManager[str, dict[str, ScramCredential]]):
    """Every user's credentials by mechanism name, kept in the user's config entity."""

    entity_types = (EntityType.USERS,)

    def key(self, entity_type: EntityType, name: str) -> str | None:
        # A user's client and the default user have no credentials.
        return None if "/" in name or name == DEFAULT_ENTITY else desanitize(name)

    def entity(self, key: str) -> tuple[EntityType, str]:
        return EntityType.USERS, sanitize(key)

    def decode(self, config: Mapping[str, str]) -> dict[str, ScramCredential]:
        return credentials_of_config(config)

    def encode(self, value: dict[str, ScramCredential]) -> dict[str, str]:
        return {name: credential.to_config() for name, credential in value.items()}

    @property
    def credentials(self) -> ScramTable:
        return {user: dict(c) for user, c in self._table.items()}

    def credential(self, user: str, mechanism: str) -> ScramCredential | None:
        """The credential a SCRAM authentication of `user` is checked against."""
        return self._table.get(user, {}).get(mechanism)

    def describe(self, users: Sequence[str] | None) -> list[DescribeResult]:
        """Every user with credentials (sorted) when `users` is None or empty; else one result
        per distinct user asked for, in the order asked, as Kafka's ZooKeeper-mode broker."""
        if not users:
            return [(user, None, self._infos(user)) for user in sorted(self._table)]
        results: list[DescribeResult] = []
        for user in dict.fromkeys(users):
            if not user:
                results.append((user, ResourceNotFoundError("Username must not be empty"), []))
            elif users.count(user) > 1:
                message = f"Cannot describe SCRAM credentials for the same user twice in a single request: {user}"  # noqa: E501
                results.append((user, DuplicateResourceError(message), []))
            elif user not in self._table:
                message = f"Attempt to describe a user credential that does not exist: {user}"
                results.append((user, ResourceNotFoundError(message), []))
            else:
                results.append((user, None, self._infos(user)))
        return results

    def _infos(self, user: str) -> list[tuple[int, int]]:
        held = self._table.get(user, {})
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
                await self.reread(deleting)
            for d in deletions:
                held = self._table.get(d.user, {})
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
                altered = self._altered(changes)
                await self.write(altered)
                for user, held in altered.items():
                    log.info("altered SCRAM credentials of %r: %s", user, sorted(held) or "none")
            return [(user, errors.get(user)) for user in users]

    def _altered(self, changes: ScramChanges) -> dict[str, dict[str, ScramCredential]]:
        """Each changed user's credentials once `changes` are applied (empty: none left)."""
        altered = {}
        for user, mechanisms in changes.items():
            held = dict(self._table.get(user, {}))
            for name, credential in mechanisms.items():
                if credential is None:
                    held.pop(name, None)
                else:
                    held[name] = credential
            altered[user] = held
        return altered
