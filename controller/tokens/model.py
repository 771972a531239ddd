"""A delegation token as the store keeps it.

A token is what Kafka's `TokenInformation` holds: its id, owner, requester, renewers and three
timestamps. Its HMAC is never stored: every broker derives it from the token id and
`delegation.token.secret.key` (the same on every broker), as Kafka does."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenInfo:
    token_id: str
    # Principals as Kafka prints them: "User:alice".
    owner: str
    requester: str
    renewers: tuple[str, ...]
    issue_ms: int
    max_ms: int
    expiry_ms: int

    def expired(self, now_ms: int) -> bool:
        """Kafka's test: past its max lifetime or its current expiry."""
        return self.max_ms < now_ms or self.expiry_ms < now_ms

    def owner_or_renewer(self, principal: str) -> bool:
        """Who may renew or expire the token."""
        return principal == self.owner or principal in self.renewers

    def involves(self, principal: str) -> bool:
        """Kafka's `ownerOrRenewer` of describe: the owner, the requester or a renewer."""
        return principal in (self.owner, self.requester) or principal in self.renewers
