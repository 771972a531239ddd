"""THE table of API versions this broker advertises in ApiVersions and its dispatcher enforces.

It is derived, never written down: the Python-served APIs at exactly the versions their
handler modules declare (`ferrolog.handlers.HANDLERS`), the native core's APIs (Produce,
Fetch, ListOffsets, OffsetForLeaderEpoch, WriteTxnMarkers) as
`ferrolog_native.native_api_versions()` gives them. Nothing without a handler is listed. A
request outside the table closes the connection (ApiVersions excepted, see the dispatcher)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ferrolog.protocol import SCHEMA_VERSIONS

if TYPE_CHECKING:
    from ferrolog.handlers import Handler

# Produce v0-2 are advertised but refused (the native core closes the connection), as Kafka 4.x
# does: librdkafka before 2.11.1 turns gzip, snappy and lz4 off unless Produce v0 is listed
# (KAFKA-18659, librdkafka #4956). Clients pick the highest common version, so none sends them.
ADVERTISED_BELOW_SERVED: dict[int, int] = {0: 0}


def merge(
    handlers: dict[int, Handler], native: dict[int, tuple[int, int]]
) -> dict[int, tuple[int, int]]:
    """`{api_key: (min, max)}`: every handler's declared range and the native core's ranges.
    A handler whose range the codec cannot serve, or that claims a natively served key, is a
    bug and raises ValueError: shrinking it silently would hide the bug from the tests."""
    merged = dict(native)
    for key, handler in handlers.items():
        low, high = handler.min_version, handler.max_version
        schema = SCHEMA_VERSIONS.get(key)
        if key in native:
            raise ValueError(f"{handler.module}: api_key={key} is served by the native core")
        if schema is None or not schema[0] <= low <= high <= schema[1]:
            raise ValueError(
                f"{handler.module}: versions {low}-{high} of api_key={key} are not all in the "
                f"schemas ({schema})"
            )
        merged[key] = (low, high)
    for key, low in ADVERTISED_BELOW_SERVED.items():
        if key in merged:
            merged[key] = (min(low, merged[key][0]), merged[key][1])
    return dict(sorted(merged.items()))


@functools.cache
def advertised() -> dict[int, tuple[int, int]]:
    """`{api_key: (min, max)}` for every API this broker serves, computed once per process."""
    import ferrolog_native

    # Imported here, not above: the ApiVersions handler is itself in the table it answers with.
    from ferrolog.handlers import HANDLERS

    return merge(HANDLERS, dict(ferrolog_native.native_api_versions()))
