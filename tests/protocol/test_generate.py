"""The committed tables are exactly what the generator makes from the shared schemas."""

from pathlib import Path

import pytest
from ferrolog.protocol import generate

COMMITTED = Path(generate.__file__).with_name("schemas.py")


@pytest.mark.skipif(
    not (generate.DEFAULT_SCHEMAS / "messages").is_dir(),
    reason=f"the Kafka schemas are not at {generate.DEFAULT_SCHEMAS} (shared/ is absent)",
)
def test_committed_tables_match_a_fresh_generation(tmp_path: Path) -> None:
    out = tmp_path / "schemas.py"
    assert generate.main(["--schemas", str(generate.DEFAULT_SCHEMAS), "--output", str(out)]) == 0
    fresh = out.read_text(encoding="utf-8")
    assert fresh == COMMITTED.read_text(encoding="utf-8"), (
        "schemas.py is stale or was edited by hand: run python -m ferrolog.protocol.generate"
    )


def test_generated_file_says_how_to_regenerate() -> None:
    first = COMMITTED.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# generated - do not edit; regenerate with")
    assert "python -m ferrolog.protocol.generate" in first


def test_missing_schema_directory_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "schemas.py"
    assert generate.main(["--schemas", str(tmp_path / "nowhere"), "--output", str(out)]) == 1
    assert not out.exists()


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
    assert generate.snake_case(name) == snake
