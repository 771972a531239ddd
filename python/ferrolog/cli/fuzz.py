"""`ferrolog fuzz`: the protocol fuzzer (`ferrolog.fuzz`) against any Kafka-compatible broker.

Exit code 0: no finding; 1: findings (listed, and written to `--out` with the frames that
caused them)."""

from __future__ import annotations

import random
from pathlib import Path

import click


@click.command("fuzz")
@click.option("--bootstrap-server", "bootstrap", default="127.0.0.1:9092", show_default=True)
@click.option("--seed", type=int, default=None, help="Random seed (default: a new one, printed).")
@click.option("--rounds", default=20, show_default=True, help="Rounds, with checks after each.")
@click.option("--per-round", default=200, show_default=True, help="Requests per round.")
@click.option(
    "--mutate-share", default=0.5, show_default=True, help="Share of frames mutated byte-wise."
)
@click.option(
    "--broker-log",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The broker's log file, watched for panics, tracebacks and error lines.",
)
@click.option("--broker-pid", type=int, help="The broker's process id, watched for its exit.")
@click.option(
    "--out", type=click.Path(path_type=Path, file_okay=False), help="Folder for the report."
)
def fuzz(
    bootstrap: str,
    seed: int | None,
    rounds: int,
    per_round: int,
    mutate_share: float,
    broker_log: Path | None,
    broker_pid: int | None,
    out: Path | None,
) -> None:
    """Send generated and mutated requests of every advertised API and version."""
    from ferrolog.fuzz.campaign import Campaign, pid_alive

    seed = random.randrange(2**32) if seed is None else seed
    click.echo(f"seed {seed}")
    campaign = Campaign(
        bootstrap,
        seed,
        mutate_share=mutate_share,
        broker_log=broker_log,
        process_alive=pid_alive(broker_pid) if broker_pid is not None else None,
        out_dir=out,
    )
    report = campaign.run(rounds, per_round)
    click.echo(report.summary())
    if report.findings:
        raise SystemExit(1)
