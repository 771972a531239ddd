"""The Python-side Kafka protocol codec, generated from Kafka's message schemas.

Bodies are plain dicts keyed by the schemas' field names in snake_case, typed for mypy by the
TypedDicts of `ferrolog.protocol.messages`. A missing field takes its default; a key that is
not a field of the message in any version is refused (ProtocolError), and one of another
version is left out. Two twins implement it: the Cython-compiled `_ccodec` (default) and the
pure-Python `_codec` (set `FERROLOG_PURE_PYTHON=1`); both come from the same source and behave
identically.
"""

import importlib
import os
from typing import Any, cast

from ferrolog.protocol import _codec as _impl
from ferrolog.protocol._shared import ZERO_UUID, ProtocolError, RequestHeader, UnknownSchemaError

if os.environ.get("FERROLOG_PURE_PYTHON", "") in ("", "0"):
    # Imported by name so that type checkers keep the pure twin's signatures for both.
    _impl = cast(Any, importlib.import_module("ferrolog.protocol._ccodec"))
    IMPLEMENTATION = "cython"
else:
    IMPLEMENTATION = "python"

decode_request_header = _impl.decode_request_header
decode_request = _impl.decode_request
encode_response = _impl.encode_response
encode_request = _impl.encode_request
decode_response = _impl.decode_response
encode_data = _impl.encode_data
decode_data = _impl.decode_data
API_NAMES: dict[int, str] = _impl.API_NAMES
SCHEMA_VERSIONS: dict[int, tuple[int, int]] = _impl.SCHEMA_VERSIONS

__all__ = [
    "API_NAMES",
    "IMPLEMENTATION",
    "SCHEMA_VERSIONS",
    "ZERO_UUID",
    "ProtocolError",
    "RequestHeader",
    "UnknownSchemaError",
    "decode_data",
    "decode_request",
    "decode_request_header",
    "decode_response",
    "encode_data",
    "encode_request",
    "encode_response",
]
