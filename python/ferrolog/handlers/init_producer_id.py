"""InitProducerId (key 22), v0-4, for idempotent producers.

Without a transactional id Kafka hands out a fresh producer id at epoch 0 every time, whatever
id and epoch a v3+ client sends back (KIP-360's bump applies to transactional producers; an
idempotent one simply starts over with a new id). Ids come from the controller, which reserves
them in blocks in the metadata store, so they never repeat across restarts.

With a transactional id: the transaction coordinator is not written yet, so the answer is
COORDINATOR_NOT_AVAILABLE, the error a Kafka client expects while no coordinator can serve
its transactional id; it keeps retrying rather than failing on a code it does not know."""

from __future__ import annotations

import logging

from ferrolog import errors
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import InitProducerIdRequest, InitProducerIdResponse

API_KEY = 22
MIN_VERSION = 0
MAX_VERSION = 4

log = logging.getLogger(__name__)


def _error(exc: errors.KafkaError) -> InitProducerIdResponse:
    return {"throttle_time_ms": 0, "error_code": exc.code, "producer_id": -1, "producer_epoch": -1}


async def handle(ctx: RequestContext, request: InitProducerIdRequest) -> InitProducerIdResponse:
    transactional_id = request.get("transactional_id")
    if transactional_id == "":
        return _error(errors.InvalidRequestError("empty transactional id"))
    if transactional_id is not None:
        return _error(errors.CoordinatorNotAvailableError("transactions are not supported yet"))
    try:
        producer_id = await ctx.broker.controller.allocate_producer_id()
    except Exception:
        # The store could not reserve a block (a ZooKeeper outage, a full disk): not a bug
        # in this request, and a retriable answer lets the producer try again.
        log.exception("producer id allocation failed")
        return _error(errors.CoordinatorLoadInProgressError("cannot allocate a producer id"))
    return {"throttle_time_ms": 0, "error_code": 0, "producer_id": producer_id, "producer_epoch": 0}
