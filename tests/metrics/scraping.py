"""Reading a broker's metrics listener the way Prometheus does."""

from __future__ import annotations

import urllib.error
import urllib.request

from ferrolog.embedded import EmbeddedBroker
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def scrape(broker: EmbeddedBroker) -> Samples:
    """Every sample of /metrics, by name and labels."""
    assert broker.metrics_url is not None
    status, text = get(f"{broker.metrics_url}/metrics")
    assert status == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
