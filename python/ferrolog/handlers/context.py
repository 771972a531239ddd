"""What a request handler gets: the request's identity and the broker's services.

The cluster is reached only through `controller` (`ControllerApi`): handlers never see the
metadata store, whichever it is.

Every handler module in this package (one per API, named after it, listed in `HANDLERS` in
`__init__.py`) declares `API_KEY`, `MIN_VERSION` and `MAX_VERSION` and defines
`async def handle(ctx: RequestContext, request: FooRequest) -> FooResponse`, taking the
decoded request body and returning the response body: dicts keyed by the schema's field names
in snake_case, typed by the TypedDicts of `ferrolog.protocol.messages` (missing fields take
schema defaults; a key that is no field of the message is refused by the encoder). A handler
raises only for bugs: Kafka errors go into the response's error fields."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ferrolog.controller.api import CLUSTER_NAME, AclOperation, ResourceType

if TYPE_CHECKING:
    import ferrolog_native

    from ferrolog.config import BrokerConfig
    from ferrolog.controller.api import ControllerApi
    from ferrolog.controller.coordinator.api import (
        GroupCoordinatorApi,
        ShareCoordinatorApi,
        SharePersisterApi,
        TransactionCoordinatorApi,
    )
    from ferrolog.controller.security.sasl import SaslAuthenticator


# The peer of the requests this broker's native core asks of its control plane (`NATIVE_PEER`
# in native/src/server/api/mod.rs): transaction verifications, share-partition state.
NATIVE_PEER = "ferrolog-native"


@dataclass
class BrokerServices:
    node_id: int
    cluster_id: str
    advertised_host: str
    advertised_port: int
    config: BrokerConfig
    controller: ControllerApi
    native: ferrolog_native.Server
    group_coordinator: GroupCoordinatorApi | None = None
    txn_coordinator: TransactionCoordinatorApi | None = None
    share_coordinator: ShareCoordinatorApi | None = None
    # Routes the native core's share-state reads and writes to their share coordinators.
    share_persister: SharePersisterApi | None = None
    # Checks the SASL listeners' authentications.
    sasl: SaslAuthenticator | None = None
    # `authorizer.class.name` is set: requests are checked against the ACLs (in the native
    # authorizer, the one the natively served APIs check too).
    authorizer_enabled: bool = field(init=False)

    def __post_init__(self) -> None:
        self.authorizer_enabled = bool(self.config.get("authorizer.class.name"))


@dataclass
class RequestContext:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    peer: str
    broker: BrokerServices
    # The listener the request came in through: Metadata answers with its endpoints.
    listener_name: str = "PLAINTEXT"
    # Kafka's principal of the connection (from its TLS client certificate or its SASL
    # authentication, if any).
    principal: str = "User:ANONYMOUS"
    # The connection authenticated with a delegation token: it may not ask for tokens.
    token_authenticated: bool = False
    connection_id: int = 0
    # Where the connection is in SASL authentication (the native core's `sasl_phase`):
    # "done", "handshake" (a SASL listener's connection before it authenticated).
    sasl_phase: str = "done"
    # Set by the SASL handlers: what the connection does once the response is out
    # ("continue", "tokens", "authenticated" or "authenticated-by-token" as `sasl_principal`,
    # "failed"), or "close"
    # (closed with no response, Kafka's answer to a SASL request out of order).
    sasl_step: str | None = None
    sasl_principal: str | None = None
    # How long the authentication holds (a delegation token's), None: for good.
    sasl_lifetime_ms: int | None = None

    @property
    def host(self) -> str:
        """The client's IP address, as ACLs name hosts (`peer` is `ip:port`)."""
        host = self.peer.rpartition(":")[0] or self.peer
        return host.removeprefix("[").removesuffix("]")

    def authorize(self, operation: AclOperation, resource_type: ResourceType, name: str) -> bool:
        """Whether the request's principal may do `operation` on the resource (always, with
        the authorizer off)."""
        return name in self.authorized(operation, resource_type, (name,))

    def authorized(
        self, operation: AclOperation, resource_type: ResourceType, names: Iterable[str]
    ) -> set[str]:
        """Those of `names` the principal may do `operation` on (Kafka's
        `filterByAuthorized`), asked of the native authorizer in one call."""
        wanted = list(dict.fromkeys(names))
        if not self.broker.authorizer_enabled or not wanted:
            return set(wanted)
        allowed = self.broker.native.authorize(
            self.principal, self.host, operation, resource_type, wanted
        )
        return {name for name, ok in zip(wanted, allowed, strict=True) if ok}

    def authorize_cluster(self, operation: AclOperation) -> bool:
        return self.authorize(operation, ResourceType.CLUSTER, CLUSTER_NAME)

    def authorize_by_resource_type(
        self, operation: AclOperation, resource_type: ResourceType
    ) -> bool:
        """Kafka's `authorizeByResourceType`: allowed on some resource of the type."""
        if not self.broker.authorizer_enabled:
            return True
        return self.broker.native.authorize_by_resource_type(
            self.principal, self.host, operation, resource_type
        )
