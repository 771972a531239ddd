"""The hand-edit guard of the generated files (the codec's tables and the typed bodies): each
matches the digest of its own text that it records, everywhere; where the shared schemas are
at hand, each is exactly what the generator makes from them."""

from pathlib import Path

import pytest
from ferrolog.protocol import generate
from ferrolog.protocol._schemas_json import snake_case

PACKAGE = Path(generate.__file__).parent
GENERATED = (generate.TABLES_FILE, generate.MESSAGES_FILE)
SCHEMAS_PRESENT = (generate.DEFAULT_SCHEMAS / "messages").is_dir()


def _committed(name: str) -> str:
    return (PACKAGE / name).read_text(encoding="utf-8")


@pytest.mark.skipif(
    not SCHEMAS_PRESENT,
    reason=f"the Kafka schemas are not at {generate.DEFAULT_SCHEMAS} (shared/ is absent)",
)
def test_committed_files_match_a_fresh_generation(tmp_path: Path) -> None:
    args = ["--schemas", str(generate.DEFAULT_SCHEMAS), "--out-dir", str(tmp_path)]
    assert generate.main(args) == 0
    for name in GENERATED:
        assert (tmp_path / name).read_text(encoding="utf-8") == _committed(name), (
            f"{name} is stale or was edited by hand: run {generate.REGENERATE}"
        )


@pytest.mark.parametrize("name", GENERATED)
def test_generated_file_matches_its_recorded_digest(name: str) -> None:
    # Runs without the schemas: a hand edit changes the text but not the digest it records.
    text = _committed(name)
    assert generate.recorded_digest(text, generate.CONTENT_PREFIX) == generate.content_digest(
        text
    ), f"{name} was edited by hand: run {generate.REGENERATE}"


def test_digest_check_catches_an_edit() -> None:
    text = _committed(generate.TABLES_FILE)
    edited = text.replace("'ProduceRequest', 0, (3, 13)", "'ProduceRequest', 0, (3, 14)", 1)
    assert edited != text
    assert generate.recorded_digest(edited, generate.CONTENT_PREFIX) != generate.content_digest(
        edited
    )


def test_generated_files_come_from_one_run() -> None:
    digests = {generate.recorded_digest(_committed(n), generate.INPUTS_PREFIX) for n in GENERATED}
    assert len(digests) == 1
    assert None not in digests


@pytest.mark.parametrize("name", GENERATED)
def test_generated_file_says_how_to_regenerate(name: str) -> None:
    first = _committed(name).splitlines()[0]
    assert first.startswith("# generated - do not edit; regenerate with")
    assert "python -m ferrolog.protocol.generate" in first


def test_missing_schema_directory_is_an_error(tmp_path: Path) -> None:
    args = ["--schemas", str(tmp_path / "nowhere"), "--out-dir", str(tmp_path)]
    assert generate.main(args) == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "snake"),
    [
        ("ErrorCode", "error_code"),
        ("ApiKeys", "api_keys"),
        ("TopicId", "topic_id"),
        ("ThrottleTimeMs", "throttle_time_ms"),
        ("IsKRaftController", "is_k_raft_controller"),
        ("group", "group"),
    ],
)
def test_field_names_become_snake_case(name: str, snake: str) -> None:
    assert snake_case(name) == snake
