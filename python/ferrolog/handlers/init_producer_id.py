"""InitProducerId (key 22), v0-5: a producer id and epoch for an idempotent or transactional
producer (v5 tells that the client knows TRANSACTION_ABORTABLE; v6, KIP-939's two-phase
commit, is unstable in Kafka 4.4, which does not advertise it).

Without a transactional id Kafka hands out a fresh producer id at epoch 0 every time, whatever
id and epoch a v3+ client sends back (KIP-360's bump applies to transactional producers; an
idempotent one simply starts over with a new id). Ids come from the controller, which reserves
them in blocks in the metadata store, so they never repeat across restarts.

With a transactional id the transaction coordinator answers: the id's producer id with its
epoch bumped (fencing older producers of the id, and aborting a transaction they left
ongoing), a new producer id once the epoch is exhausted, and KIP-360's recovery when a v3+
request carries the producer id and epoch it had."""

from __future__ import annotations

import logging

from ferrolog import errors
from ferrolog.controller.api import AclOperation, ResourceType
from ferrolog.handlers._txn import coordinator, for_version, may_write
from ferrolog.handlers.context import RequestContext
from ferrolog.protocol.messages import ApiKey, InitProducerIdRequest, InitProducerIdResponse

API_KEY = ApiKey.INIT_PRODUCER_ID
MIN_VERSION = 0
MAX_VERSION = 5

FENCED_VERSION = 4

log = logging.getLogger(__name__)


def _error(code: int) -> InitProducerIdResponse:
    return {"throttle_time_ms": 0, "error_code": code, "producer_id": -1, "producer_epoch": -1}


async def handle(ctx: RequestContext, request: InitProducerIdRequest) -> InitProducerIdResponse:
    transactional_id = request.get("transactional_id")
    producer_id = request.get("producer_id", -1)
    epoch = request.get("producer_epoch", -1)
    if transactional_id == "" or (producer_id == -1) != (epoch == -1):
        return _error(errors.InvalidRequestError.code)
    if transactional_id is not None and not may_write(ctx, transactional_id):
        return _error(errors.TransactionalIdAuthorizationFailedError.code)
    # An idempotent producer: IDEMPOTENT_WRITE on the cluster, or WRITE on some topic
    # (KIP-679), as Kafka asks.
    if (
        transactional_id is None
        and not ctx.authorize_cluster(AclOperation.IDEMPOTENT_WRITE)
        and not ctx.authorize_by_resource_type(AclOperation.WRITE, ResourceType.TOPIC)
    ):
        return _error(errors.ClusterAuthorizationFailedError.code)
    if transactional_id is not None:
        code, producer_id, epoch = await coordinator(ctx).init_producer_id(
            transactional_id, request["transaction_timeout_ms"], producer_id, epoch
        )
        if code:
            return _error(for_version(code, ctx.api_version, FENCED_VERSION))
        return {
            "throttle_time_ms": 0,
            "error_code": 0,
            "producer_id": producer_id,
            "producer_epoch": epoch,
        }
    try:
        producer_id = await ctx.broker.controller.allocate_producer_id()
    except Exception:
        # The store could not reserve a block (a ZooKeeper outage, a full disk): not a bug
        # in this request, and a retriable answer lets the producer try again.
        log.exception("producer id allocation failed")
        return _error(errors.CoordinatorLoadInProgressError.code)
    return {"throttle_time_ms": 0, "error_code": 0, "producer_id": producer_id, "producer_epoch": 0}
