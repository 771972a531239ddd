"""Hypothesis profiles for the protocol tests: "fast" by default, "thorough" when the
environment sets FERROLOG_HYPOTHESIS=thorough (more examples, see `scaled`)."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast",
    deadline=None,  # the machine is shared; timing-based failures would be noise
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    max_examples=2500,
)
settings.load_profile("thorough" if os.environ.get("FERROLOG_HYPOTHESIS") == "thorough" else "fast")


def pytest_configure(config: pytest.Config) -> None:
    # Hypothesis inspects type hints while explaining a failure, which touches the deprecated
    # mypy_extensions.TypedDict; under "warnings are errors" that would hide the real failure.
    config.addinivalue_line(
        "filterwarnings", "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"
    )
