"""Kafka's controller mutation quota (`controller_mutation_rate`, KIP-599) for one
CreateTopics, CreatePartitions or DeleteTopics request: each topic's partitions are admitted in
request order by the native core's quota manager, which keeps the client's token bucket.

The versions that know THROTTLING_QUOTA_EXCEEDED are strict: a topic met while the client's
bucket is in debt is refused with it (the topic that ran the bucket into debt went ahead);
older versions are permissive: everything goes ahead and the response carries the throttle.
The throttle in the response is the last one earned, less the time the request took since, as
in Kafka; the dispatcher mutes the connection for it. A validate-only request mutates nothing
and is not metered."""

from __future__ import annotations

import time

from ferrolog import errors
from ferrolog.handlers.context import RequestContext

# The first strict version of each API: CreateTopics, DeleteTopics, CreatePartitions.
STRICT_FROM = {19: 6, 20: 5, 37: 3}


class MutationQuota:
    def __init__(self, ctx: RequestContext) -> None:
        self._ctx = ctx
        self._strict = ctx.api_version >= STRICT_FROM[ctx.api_key]
        self._throttle_ms = 0
        self._earned_at = 0.0

    def admit(self, permits: int) -> None:
        """Admits a topic's `permits` partitions, or raises THROTTLING_QUOTA_EXCEEDED."""
        accepted, throttle_ms = self._ctx.broker.native.record_controller_mutation(
            self._ctx.client_id, float(permits), self._strict, self._ctx.principal
        )
        if throttle_ms:
            self._throttle_ms, self._earned_at = throttle_ms, time.monotonic()
        if not accepted:
            raise errors.ThrottlingQuotaExceededError("The throttling quota has been exceeded.")

    def throttle_ms(self) -> int:
        elapsed_ms = int((time.monotonic() - self._earned_at) * 1000)
        return max(0, self._throttle_ms - elapsed_ms)
