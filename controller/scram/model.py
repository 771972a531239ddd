"""SCRAM credentials as Kafka keeps them (KIP-554): the mechanisms, a credential and its
config value in a user's config entity (`/config/users/<user>` in ZooKeeper, beside the user's
client quotas), and what AlterUserScramCredentials asks for.

The broker keeps only what RFC 5802's server needs: the salt, the iteration count,
StoredKey = H(HMAC(SaltedPassword, "Client Key")) and ServerKey = HMAC(SaltedPassword,
"Server Key"), as Kafka's `ScramFormatter` derives them."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass


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


def credentials_of_config(config: Mapping[str, str]) -> dict[str, ScramCredential]:
    """The SCRAM credentials of a user's config, by mechanism name (its quotas left out)."""
    credentials: dict[str, ScramCredential] = {}
    for key, value in config.items():
        if key in BY_NAME:
            # One malformed value (written by hand) loses that credential, not the sync of
            # every config entity.
            with contextlib.suppress(ValueError):
                credentials[key] = ScramCredential.from_config(value)
    return credentials
