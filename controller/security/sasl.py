"""SASL authentication of the SASL_PLAINTEXT and SASL_SSL listeners: which mechanisms each
listener offers, and whether a client's tokens prove who it says it is.

The native core keeps each connection unserved until this says so: it hands over the
SaslHandshake and SaslAuthenticate requests (and, after a SaslHandshake v0, the bare tokens)
and, on success, serves the connection as the principal `User:<name>` decided here (Kafka's
default principal builder).

- PLAIN (RFC 4616): the users and passwords are the `user_<name>="<password>"` options of
  the listener's PlainLoginModule line (`listener.name.<l>.plain.sasl.jaas.config`), as in
  Kafka.
- SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, KIP-84): against the credentials the
  ScramControlManager keeps (ZooKeeper's `/config/users/<user>` in a cluster). The server side
  is written here, not taken from scramp: scramp refuses what Kafka accepts (the extensions
  of the client-first message, and a client-final nonce that only ends with the server's,
  which Debian's kcat sends), and clients that work with Kafka must work here. With Kafka's
  `tokenauth=true` extension the user name is a delegation token's id, checked against the
  credential derived from the token's HMAC, and the client authenticates as the token's
  owner (KIP-48).

Each connection's exchange in progress is kept by connection id until it ends; an exchange a
client abandons is dropped after `ABANDONED_AFTER_S`.
"""

from __future__ import annotations

import abc
import base64
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ferrolog.clock import now_ms
from ferrolog.config import BrokerConfig
from ferrolog.errors import (
    IllegalSaslStateError,
    SaslAuthenticationFailedError,
    UnsupportedSaslMechanismError,
)

from ..scram.model import BY_NAME as SCRAM_MECHANISMS
from ..scram.model import ScramCredential, ScramMechanism

log = logging.getLogger(__name__)

ABANDONED_AFTER_S = 120.0
# Kafka's messages, so clients print what they would print against Kafka.
PLAIN_FAILED = "Authentication failed: Invalid username or password"
AUTHZID_DIFFERS = (
    "Authentication failed: Client requested an authorization id that is different from username"
)


def scram_failed(mechanism: str) -> str:
    return (
        "Authentication failed during authentication due to invalid credentials with SASL "
        f"mechanism {mechanism}"
    )


@dataclass(frozen=True)
class Outcome:
    """One step of an exchange: the token to send back, and the principal once the client is
    authenticated (None: more tokens to come)."""

    challenge: bytes
    principal: str | None = None
    # Authenticated with a delegation token (Kafka's `tokenAuthenticated` principal).
    by_token: bool = False
    # How long the authentication holds (a token's time to its expiry), None: for good.
    lifetime_ms: int | None = None


class _Exchange(abc.ABC):
    """One connection's authentication in progress."""

    def __init__(self, mechanism: str) -> None:
        self.mechanism = mechanism
        self.started = time.monotonic()

    @abc.abstractmethod
    def step(self, token: bytes) -> Outcome: ...


class _Plain(_Exchange):
    def __init__(self, users: dict[str, str]) -> None:
        super().__init__("PLAIN")
        self._users = users

    def step(self, token: bytes) -> Outcome:
        # authzid NUL authcid NUL passwd
        parts = token.split(b"\0")
        if len(parts) != 3:
            raise SaslAuthenticationFailedError(
                f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(parts)}"
            )
        try:
            authzid, username, password = (p.decode() for p in parts)
        except UnicodeDecodeError:
            raise SaslAuthenticationFailedError(PLAIN_FAILED) from None
        if not username:
            raise SaslAuthenticationFailedError("Authentication failed: username not specified")
        if authzid and authzid != username:
            raise SaslAuthenticationFailedError(AUTHZID_DIFFERS)
        expected = self._users.get(username)
        # Compared in constant time; an unknown user costs the same comparison.
        matches = hmac.compare_digest((expected or "").encode(), password.encode())
        if expected is None or not matches:
            raise SaslAuthenticationFailedError(PLAIN_FAILED)
        return Outcome(b"", f"User:{username}")


class _Scram(_Exchange):
    """RFC 5802's server side, as Kafka's ScramSaslServer runs it: no channel binding, the
    user's credential from the store, and the client's final nonce accepted when it ends with
    the server's (Kafka's check; older librdkafka, Debian's kcat among them, sends its own
    nonce in front of it, and Kafka serves it)."""

    def __init__(
        self,
        mechanism: ScramMechanism,
        credential_of: Callable[[str], ScramCredential | None],
        token_credential_of: Callable[[str], TokenCredential | None],
    ) -> None:
        super().__init__(mechanism.name)
        self._hash = mechanism.hash_name
        self._min_iterations = mechanism.min_iterations
        self._credential_of = credential_of
        self._token_credential_of = token_credential_of
        self._user = ""
        self._by_token = False
        self._expiry_ms: int | None = None
        self._credential: ScramCredential | None = None
        self._nonce = ""
        self._auth_prefix = ""  # client-first-bare "," server-first

    def step(self, token: bytes) -> Outcome:
        try:
            message = token.decode()
        except UnicodeDecodeError:
            raise self._failed("not UTF-8") from None
        if self._credential is None:
            return self._first(message)
        return self._final(message, self._credential)

    def _first(self, message: str) -> Outcome:
        # gs2-header: "n" or "y" (no channel binding), then an optional authzid.
        flag, _, rest = message.partition(",")
        authzid, _, bare = rest.partition(",")
        if flag not in ("n", "y") or (authzid and not authzid.startswith("a=")):
            raise self._failed("invalid client-first gs2 header")
        fields = _attributes(bare)
        if "n" not in fields or "r" not in fields or not fields["r"]:
            raise self._failed("client-first without user or nonce")
        # RFC 5802's saslname: "," and "=" arrive escaped.
        user = fields["n"].replace("=2C", ",").replace("=3D", "=")
        if authzid and authzid[2:].replace("=2C", ",").replace("=3D", "=") != user:
            raise SaslAuthenticationFailedError(AUTHZID_DIFFERS)
        # Kafka parses the extension with Boolean.parseBoolean: "true" in any case.
        self._by_token = fields.get("tokenauth", "false").lower() == "true"
        if self._by_token:
            found = self._token_credential_of(user)
            if found is not None:
                credential, user, self._expiry_ms = found
            else:
                credential = None
        else:
            credential = self._credential_of(user)
        if credential is None:
            # Kafka says no more to the client than for a wrong password.
            raise self._failed("unknown user or delegation token")
        if credential.iterations < self._min_iterations:
            raise self._failed("too few iterations")
        self._user = user
        self._credential = credential
        self._nonce = fields["r"] + secrets.token_urlsafe(24)
        salt = base64.b64encode(credential.salt).decode()
        server_first = f"r={self._nonce},s={salt},i={credential.iterations}"
        self._auth_prefix = f"{bare},{server_first}"
        return Outcome(server_first.encode())

    def _final(self, message: str, credential: ScramCredential) -> Outcome:
        without_proof, sep, proof_b64 = message.rpartition(",p=")
        fields = _attributes(without_proof)
        if not sep or not fields.get("r", "").endswith(self._nonce) or "c" not in fields:
            raise self._failed("invalid client-final nonce or format")
        try:
            proof = base64.b64decode(proof_b64, validate=True)
        except ValueError:
            raise self._failed("invalid proof encoding") from None
        auth_message = f"{self._auth_prefix},{without_proof}".encode()
        signature = hmac.digest(credential.stored_key, auth_message, self._hash)
        if len(proof) != len(signature):
            raise self._failed("invalid proof length")
        client_key = bytes(a ^ b for a, b in zip(proof, signature, strict=True))
        computed = hashlib.new(self._hash, client_key).digest()
        if not hmac.compare_digest(computed, credential.stored_key):
            raise self._failed("invalid proof")
        verifier = hmac.digest(credential.server_key, auth_message, self._hash)
        # Kafka's session lifetime: a token's connection lasts until the token expires.
        lifetime = None if self._expiry_ms is None else max(0, self._expiry_ms - now_ms())
        challenge = b"v=" + base64.b64encode(verifier)
        return Outcome(challenge, f"User:{self._user}", self._by_token, lifetime)

    def _failed(self, why: str) -> SaslAuthenticationFailedError:
        log.debug("SCRAM authentication refused: %s", why)
        return SaslAuthenticationFailedError(scram_failed(self.mechanism))


# A delegation token's SCRAM credential, the name of its owner (who a client that
# authenticates with it is) and its expiry time.
TokenCredential = tuple[ScramCredential, str, int]


def _attributes(message: str) -> dict[str, str]:
    """`a=1,b=2` as a dict; values may hold "=" (base64)."""
    fields: dict[str, str] = {}
    for item in message.split(","):
        key, sep, value = item.partition("=")
        if sep and key:
            fields.setdefault(key, value)
    return fields


@dataclass
class SaslAuthenticator:
    """Decides every SASL authentication of this broker's listeners."""

    config: BrokerConfig
    # The SCRAM credential of (user, mechanism), as the metadata store has it now.
    scram_credential: Callable[[str, str], ScramCredential | None]
    # The credential of (delegation token id, mechanism) and the token's owner.
    token_credential: Callable[[str, str], TokenCredential | None] = lambda token, m: None
    _exchanges: dict[int, _Exchange] = field(default_factory=dict)
    _plain_users: dict[str, dict[str, str]] = field(default_factory=dict)

    def mechanisms(self, listener: str) -> list[str]:
        """What `listener` offers (empty for a listener without SASL)."""
        if not self.config.security_protocol(listener).startswith("SASL_"):
            return []
        return self.config.sasl_mechanisms(listener)

    def begin(self, connection: int, listener: str, mechanism: str) -> None:
        """Starts `connection`'s exchange with `mechanism` (SaslHandshake)."""
        self._forget_abandoned()
        offered = self.mechanisms(listener)
        if mechanism not in offered:
            raise UnsupportedSaslMechanismError(f"Unsupported SASL mechanism {mechanism}")
        if mechanism == "PLAIN":
            self._exchanges[connection] = _Plain(self._plain(listener))
        else:
            self._exchanges[connection] = _Scram(
                SCRAM_MECHANISMS[mechanism],
                lambda user: self.scram_credential(user, mechanism),
                lambda token: self.token_credential(token, mechanism),
            )

    def step(self, connection: int, token: bytes) -> Outcome:
        """One token of `connection`'s exchange; raises SaslAuthenticationFailedError (the
        exchange is over), or IllegalSaslStateError when no exchange was begun."""
        exchange = self._exchanges.get(connection)
        if exchange is None:
            raise IllegalSaslStateError("SaslAuthenticate before SaslHandshake")
        try:
            outcome = exchange.step(token)
        except SaslAuthenticationFailedError:
            del self._exchanges[connection]
            raise
        if outcome.principal is not None:
            del self._exchanges[connection]
        return outcome

    def _plain(self, listener: str) -> dict[str, str]:
        users = self._plain_users.get(listener)
        if users is None:
            users = {}
            for module in self.config.jaas_modules(listener, "PLAIN"):
                users.update(module.plain_users)
            self._plain_users[listener] = users
        return users

    def _forget_abandoned(self) -> None:
        cutoff = time.monotonic() - ABANDONED_AFTER_S
        for connection in [c for c, e in self._exchanges.items() if e.started < cutoff]:
            del self._exchanges[connection]
