"""A long `ferrolog fuzz` campaign against a fresh single-node broker (`make fuzz`): issue 16's
million fuzzed requests with the broker's process, log, canary topic and every batch of the
fuzzed topics checked. Prints the report and exits 1 on any finding."""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from ferrolog.embedded import EmbeddedBroker
from ferrolog.fuzz.campaign import Campaign, pid_alive

PER_ROUND = 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path("build/fuzz"))
    args = parser.parse_args()
    seed = random.randrange(2**32) if args.seed is None else args.seed
    started = time.monotonic()
    with EmbeddedBroker() as broker:
        assert broker.pid is not None
        campaign = Campaign(
            broker.bootstrap_servers,
            seed,
            broker_log=broker.log_path,
            process_alive=pid_alive(broker.pid),
            out_dir=args.out,
        )
        report = campaign.run(rounds=max(1, args.requests // PER_ROUND), per_round=PER_ROUND)
    print(report.summary())
    print(f"{time.monotonic() - started:.0f} s")
    return 1 if report.findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
