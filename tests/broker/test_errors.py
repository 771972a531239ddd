"""The Python error tree: one class per Kafka code, lookups, and agreement with the native
core's error table."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ferrolog import errors
from ferrolog.config import BrokerConfig


def test_every_code_of_kafka_4_4_has_one_class() -> None:
    # Kafka 4.4.0's Errors ends with CONTROLLER_ID_NOT_REGISTERED (136).
    table = errors.all_errors()
    assert sorted(table) == [-1, *range(1, 137)]
    assert len({cls.name for cls in table.values()}) == len(table)
    for code, cls in table.items():
        assert cls.code == code
        assert issubclass(cls, errors.KafkaError)
        assert errors.for_name(cls.name) is cls


@pytest.mark.parametrize(
    ("code", "cls", "retriable"),
    [
        (3, errors.UnknownTopicOrPartitionError, True),
        (6, errors.NotLeaderOrFollowerError, True),
        (17, errors.InvalidTopicError, False),
        (35, errors.UnsupportedVersionError, False),
        (133, errors.ShareSessionLimitReachedError, True),
        (129, errors.RebootstrapRequiredError, False),
        (36, errors.TopicAlreadyExistsError, False),
        (40, errors.InvalidConfigError, False),
        (-1, errors.UnknownServerError, False),
    ],
)
def test_lookup(code: int, cls: type[errors.KafkaError], retriable: bool) -> None:
    assert errors.for_code(code) is cls
    assert cls.retriable is retriable
    assert errors.retriable(code) is retriable


def test_unknown_codes_and_none() -> None:
    assert errors.for_code(9999) is errors.UnknownServerError
    with pytest.raises(ValueError, match="NONE"):
        errors.for_code(0)
    assert errors.retriable(0) is False


def test_message_and_str() -> None:
    exc = errors.InvalidTopicError("bad name")
    assert exc.message == "bad name"
    assert str(exc) == "INVALID_TOPIC_EXCEPTION (17): bad name"
    assert errors.LeaderNotAvailableError().message == "leader not available"


def test_from_native_shape() -> None:
    converted = errors.from_native(Exception(10, "too big"))
    assert isinstance(converted, errors.MessageTooLargeError)
    assert converted.message == "too big"
    assert isinstance(errors.from_native(ValueError("x")), errors.UnknownServerError)


def test_names_match_the_native_table() -> None:
    native = pytest.importorskip("ferrolog_native")
    for name, code in native.error_codes().items():
        if code == 0:
            assert name == "NONE"
            continue
        assert errors.for_code(code).name == name


def _raised(call: Callable[[], object]) -> errors.KafkaError:
    native = pytest.importorskip("ferrolog_native")
    with pytest.raises(native.KafkaNativeError) as raised:
        call()
    return errors.from_native(raised.value)


def test_native_kafka_errors_cross_as_one_exception_with_the_code() -> None:
    native = pytest.importorskip("ferrolog_native")
    batch = bytearray(native.build_batch([(b"k", b"v", [], 0)]))
    batch[-1] ^= 0xFF
    topic = BrokerConfig().resolve_topic_config({})
    corrupt = _raised(lambda: native.validate_batch(bytes(batch), topic, 0))
    assert isinstance(corrupt, errors.CorruptMessageError)
    undecodable = _raised(lambda: native.decode_columns(bytes(batch), 0, 1))
    assert isinstance(undecodable, errors.CorruptMessageError)
    assert undecodable.message == "cannot decode fetched records"
    not_gzip = _raised(lambda: native.decompress(1, b"not gzip"))
    assert not_gzip.message == "decompression failed"
    with pytest.raises(ValueError, match=r"compression\.type"):
        native.validate_batch(bytes(batch), {**topic, "compression.type": "brotli"}, 0)


def test_the_native_error_table_is_generated_from_this_one() -> None:
    from ferrolog.protocol.generate_errors import DEFAULT_OUTPUT, REGENERATE, render

    assert DEFAULT_OUTPUT.read_text(encoding="utf-8") == render(), (
        f"{DEFAULT_OUTPUT.name} is stale or was edited by hand: run {REGENERATE}"
    )
    assert "    NotLeaderOrFollower = 6,\n" in render()
