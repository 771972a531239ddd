"""`DelegationTokenManager`: the delegation tokens of the cluster (KIP-48), as Kafka's
`DelegationTokenManager` and `DelegationTokenControlManager` keep them.

A token lets a process that cannot hold the owner's password (a Spark executor, a job on a
cluster) authenticate as its owner over SCRAM: its id is the SCRAM user name, its HMAC
(HmacSHA512 of the id under `delegation.token.secret.key`, standard base64) the password, and
the client says so with the `tokenauth=true` extension. Every broker derives the HMAC and the
SCRAM credentials from the key itself; the store keeps only the token's identity and
timestamps. Tokens are off while the key is unset (DELEGATION_TOKEN_AUTH_DISABLED).

Rules are Kafka 4.4's (its KRaft controller's, where they differ from 3.x's ZooKeeper mode): a
renewal is capped at `delegation.token.expiry.time.ms` and checked for expiry before owner;
only the owner or a renewer may renew or expire; expiring with a negative period removes the
token at once. An expired token keeps authenticating until the sweep of the active controller
removes it (every `delegation.token.expiry.check.interval.ms`), as in Kafka.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import secrets
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace

from ferrolog.clock import now_ms
from ferrolog.config import BrokerConfig
from ferrolog.errors import (
    DelegationTokenAuthDisabledError,
    DelegationTokenExpiredError,
    DelegationTokenNotFoundError,
    DelegationTokenOwnerMismatchError,
)

from ..scram.model import BY_NAME as SCRAM_MECHANISMS
from ..scram.model import ScramCredential
from ..store.base import MetadataStore
from .model import TokenInfo

log = logging.getLogger(__name__)

LONG_MAX = 2**63 - 1


def new_token_id() -> str:
    """Kafka's `Uuid.toString()`: 22 characters of URL-safe base64; never one that starts
    with "-" (a command line would take it for an option)."""
    while True:
        token_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not token_id.startswith("-"):
            return token_id


def _add(a: int, b: int) -> int:
    """Kafka's saturating sum of a timestamp and a period."""
    return min(a + b, LONG_MAX)


class DelegationTokenManager:
    def __init__(self, store: MetadataStore, config: BrokerConfig) -> None:
        self._store = store
        key = config.get("delegation.token.secret.key") or ""
        self._key = key.encode()
        self._max_lifetime_ms = config.get_int("delegation.token.max.lifetime.ms")
        self._expiry_ms = config.get_int("delegation.token.expiry.time.ms")
        self.check_interval_s = config.get_int("delegation.token.expiry.check.interval.ms") / 1000
        self._tokens: dict[str, TokenInfo] = {}
        self._by_hmac: dict[bytes, str] = {}
        # SCRAM credentials derived from a token's HMAC, made at its first authentication with
        # a salt of this broker's (as Kafka's, never stored) and dropped when the token changes.
        self._credentials: dict[tuple[str, str], ScramCredential] = {}
        # One renewal or expiry at a time: each reads the token the previous one wrote.
        self._lock = asyncio.Lock()

    @property
    def enabled(self) -> bool:
        return bool(self._key)

    def hmac(self, token_id: str) -> bytes:
        return hmac.digest(self._key, token_id.encode(), "sha512")

    def tokens(self) -> list[TokenInfo]:
        return sorted(self._tokens.values(), key=lambda t: (t.issue_ms, t.token_id))

    # Keeping up with the store

    async def load(self) -> None:
        if self.enabled:
            self.update(await self._store.delegation_tokens(), full=True)

    def update(self, changes: Mapping[str, TokenInfo | None], full: bool) -> None:
        """Takes the tokens in `changes` as the store has them (None: removed); `full`:
        `changes` is every token."""
        if not self.enabled:
            return
        tokens = {} if full else dict(self._tokens)
        for token_id, token in changes.items():
            tokens.pop(token_id, None)
            if token is not None:
                tokens[token_id] = token
        old = self._tokens
        changed = {t for t in old.keys() | tokens.keys() if old.get(t) != tokens.get(t)}
        self._credentials = {k: c for k, c in self._credentials.items() if k[0] not in changed}
        self._tokens = tokens
        # Only the changed tokens' HMACs are computed again: a change costs one, not all.
        by_hmac = {} if full else self._by_hmac
        for token_id in tokens.keys() if full else changed:
            mac = self.hmac(token_id)
            if token_id in tokens:
                by_hmac[mac] = token_id
            else:
                by_hmac.pop(mac, None)
        self._by_hmac = by_hmac

    # Authentication

    def credential(self, token_id: str, mechanism: str) -> tuple[ScramCredential, str, int] | None:
        """The SCRAM credential a `tokenauth` authentication as `token_id` is checked against,
        the name of the user it authenticates as (the token's owner) and when the token
        expires; None for a token this broker does not know."""
        token = self._tokens.get(token_id)
        known = SCRAM_MECHANISMS.get(mechanism)
        if token is None or known is None:
            return None
        credential = self._credentials.get((token_id, mechanism))
        if credential is None:
            password = base64.b64encode(self.hmac(token_id))
            salt = secrets.token_bytes(16)
            salted = hashlib.pbkdf2_hmac(known.hash_name, password, salt, known.min_iterations)
            credential = ScramCredential.from_salted_password(
                known, salt, salted, known.min_iterations
            )
            self._credentials[(token_id, mechanism)] = credential
        _, _, owner_name = token.owner.partition(":")
        return credential, owner_name, token.expiry_ms

    # Requests (the handlers check who may ask: listener, principal, ACLs)

    async def create(
        self, owner: str, requester: str, renewers: tuple[str, ...], max_lifetime_ms: int,
        now: int,
    ) -> TokenInfo:  # fmt: skip
        """A new token of `owner`; raises DelegationTokenAuthDisabledError."""
        self._check_enabled()
        lifetime = self._max_lifetime_ms
        if max_lifetime_ms > 0:
            lifetime = min(max_lifetime_ms, lifetime)
        max_ms = _add(now, lifetime)
        token = TokenInfo(
            token_id=new_token_id(),
            owner=owner,
            requester=requester,
            renewers=renewers,
            issue_ms=now,
            max_ms=max_ms,
            expiry_ms=min(max_ms, _add(now, self._expiry_ms)),
        )
        await self._store.alter_delegation_token(token.token_id, token)
        self.update({token.token_id: token}, full=False)
        log.info("created delegation token %s of %s for %s", token.token_id, owner, requester)
        return token

    async def renew(self, mac: bytes, principal: str, period_ms: int, now: int) -> int:
        """The token's new expiry time; raises DelegationTokenNotFoundError,
        DelegationTokenExpiredError, DelegationTokenOwnerMismatchError."""
        async with self._lock:
            token = self._find(mac)
            if token.expired(now):  # Kafka 4.4 checks this before the owner, on renewal
                raise DelegationTokenExpiredError("Delegation Token is expired.")
            self._check_owner(token, principal)
            period = min(period_ms, self._expiry_ms) if period_ms > 0 else self._expiry_ms
            renewed = replace(token, expiry_ms=min(token.max_ms, _add(now, period)))
            await self._store.alter_delegation_token(token.token_id, renewed)
            self.update({token.token_id: renewed}, full=False)
            return renewed.expiry_ms

    async def expire(self, mac: bytes, principal: str, period_ms: int, now: int) -> int:
        """The token's new expiry time (now, for a negative period: the token is removed at
        once); raises as `renew`."""
        async with self._lock:
            token = self._find(mac)
            self._check_owner(token, principal)
            if period_ms < 0:
                await self._remove(token.token_id)
                return now
            if token.expired(now):
                raise DelegationTokenExpiredError("Delegation Token is expired.")
            expiring = replace(token, expiry_ms=min(token.max_ms, _add(now, period_ms)))
            await self._store.alter_delegation_token(token.token_id, expiring)
            self.update({token.token_id: expiring}, full=False)
            return expiring.expiry_ms

    async def sweep_forever(self, is_controller: Callable[[], bool]) -> None:
        """Kafka's `delete-expired-tokens` task: every check interval, the active controller
        removes the expired tokens."""
        if not self.enabled:
            return
        while True:
            await asyncio.sleep(self.check_interval_s)
            if not is_controller():
                continue
            try:
                await self.sweep(now_ms())
            except Exception as exc:  # the store unreachable for now: the next round retries
                log.warning("removing expired delegation tokens failed: %r", exc)

    async def sweep(self, now: int) -> None:
        """Removes every expired token (the active controller's duty)."""
        async with self._lock:
            for token in [t for t in self._tokens.values() if t.expired(now)]:
                await self._remove(token.token_id)

    def _check_enabled(self) -> None:
        if not self.enabled:
            raise DelegationTokenAuthDisabledError("Delegation Token feature is not enabled.")

    def _find(self, mac: bytes) -> TokenInfo:
        self._check_enabled()
        token_id = self._by_hmac.get(mac)
        token = None if token_id is None else self._tokens.get(token_id)
        if token is None:
            raise DelegationTokenNotFoundError("Delegation Token not found.")
        return token

    @staticmethod
    def _check_owner(token: TokenInfo, principal: str) -> None:
        if not token.owner_or_renewer(principal):
            raise DelegationTokenOwnerMismatchError(
                "Delegation Token owner or renewer does not match."
            )

    async def _remove(self, token_id: str) -> None:
        await self._store.alter_delegation_token(token_id, None)
        self.update({token_id: None}, full=False)
        log.info("removed delegation token %s", token_id)
