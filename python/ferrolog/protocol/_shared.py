"""Types shared by both codec twins.

They live outside `_codec.py` because that file is compiled a second time by Cython: classes
defined in it would exist twice, and `except ProtocolError` would then depend on which twin
raised.
"""

from typing import NamedTuple

# A uuid field's "none" (Kafka's Uuid.ZERO_UUID): a request that names a topic by name only
# carries it as the topic id, and an answer without a topic id sends it.
ZERO_UUID = bytes(16)


class ProtocolError(ValueError):
    """Bytes that are not a valid encoding (truncated, malformed), or a value that cannot be
    encoded in the requested version."""


class UnknownSchemaError(ProtocolError):
    """An api key, version or data schema the generated tables do not define. (The Kafka
    error UNSUPPORTED_VERSION, which the broker answers, is `ferrolog.errors`'.)"""


class RequestHeader(NamedTuple):
    api_key: int
    api_version: int
    correlation_id: int
    # None when the client sent a null id.
    client_id: str | None
