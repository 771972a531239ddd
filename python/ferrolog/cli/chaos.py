"""`ferrolog chaos`: the fault checker (`ferrolog.chaos`) against a cluster it starts itself:
three ferrolog brokers and a ZooKeeper by default, or any cluster a `--spec` file describes
(each node's start command and address, e.g. Apache Kafka's).

Exit code 0: no anomaly; 1: anomalies (listed, and in `--out`)."""

from __future__ import annotations

import atexit
import os
import random
import shutil
import signal
import tempfile
from pathlib import Path

import click


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


@click.command("chaos")
@click.option(
    "--spec",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A cluster spec (JSON: zookeeper and brokers, each a name, command, address, log).",
)
@click.option(
    "--kafka-libs",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Test Apache Kafka 3.x in ZooKeeper mode instead, from its distribution's libs/.",
)
@click.option("--cycles", default=10, show_default=True, help="Fault cycles.")
@click.option(
    "--faults",
    default="",
    help="Comma-separated fault kinds (default: all): kill-broker, stop-broker, pause-broker, "
    "kill-two-brokers, kill-zookeeper, pause-zookeeper, crash-consumer, and the network "
    "partitions partition-broker (from the other brokers), partition-leader (a partition's "
    "leader from brokers and ZooKeeper, not from clients), partition-broker-zookeeper and "
    "partition-client (the workload from one broker); these need root and nft, and are "
    "skipped with a message otherwise. 'partition' selects the four. disk-full fills one "
    "broker's second log directory, a small tmpfs the run mounts (root only, else skipped), "
    "and heals by freeing it and restarting that broker; disk-eio makes every write there "
    "fail with EIO (a FUSE layer over that tmpfs: needs fusepy and libfuse2 too, else "
    "skipped) and heals by making them work and restarting that broker.",
)
@click.option("--seed", type=int, default=None, help="Random seed (default: a new one).")
@click.option("--rate", default=100.0, show_default=True, help="Records/s per producer.")
@click.option(
    "--out", type=click.Path(path_type=Path, file_okay=False), help="Folder for the report."
)
def chaos(
    spec: Path | None,
    kafka_libs: Path | None,
    cycles: int,
    faults: str,
    seed: int | None,
    rate: float,
    out: Path | None,
) -> None:
    """Run a workload through faults and check the history."""
    from ferrolog.chaos.faults import CRASH_CONSUMER, FAULTS, PARTITIONS
    from ferrolog.chaos.nodes import (
        ClusterSpec,
        ferrolog_spec,
        kafka_zookeeper_spec,
        reachable_by_all,
    )
    from ferrolog.chaos.preflight import NoFaultLeft
    from ferrolog.chaos.run import ChaosConfig, run

    known = [*FAULTS, CRASH_CONSUMER]
    kinds = [k.strip() for k in faults.split(",") if k.strip()] or sorted(known)
    if "partition" in kinds:
        kinds = [k for k in kinds if k != "partition"] + sorted(PARTITIONS - set(kinds))
    unknown = [k for k in kinds if k not in known]
    if unknown:
        raise click.BadParameter(
            f"unknown fault kinds: {', '.join(unknown)}", param_hint="--faults"
        )
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="ferrolog-chaos-"))
        out.chmod(0o755)  # the nodes' own uids reach their folders in it
    # Absolute: the nodes run in folders of their own, and their log.dirs must name the very
    # folders the run mounts its small disks on.
    workdir = (out / "cluster").resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0 and not reachable_by_all(workdir):
        # A node of its own uid must reach its folder, and the JVM checks that with access(2)
        # as that uid; a folder on the way only root may enter (pytest's, say) keeps it out.
        workdir = Path(tempfile.mkdtemp(prefix="ferrolog-chaos-nodes-"))
        workdir.chmod(0o711)
        click.echo(f"the nodes' folders are in {workdir} ({out} is not reachable by all uids)")
        atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    if spec is not None:
        cluster = ClusterSpec.load(spec)
    elif kafka_libs is not None:
        cluster = kafka_zookeeper_spec(workdir, kafka_libs)
    else:
        cluster = ferrolog_spec(workdir)
    cluster.save(out / "spec.json")
    seed = random.randrange(2**32) if seed is None else seed
    config = ChaosConfig(cycles=cycles, faults=kinds, rate=rate, seed=seed)
    click.echo(f"seed {seed}, cluster {cluster.bootstrap}, report in {out}")
    # Ctrl-C (even where a shell started us with SIGINT ignored) and SIGTERM unwind the run, so
    # that its partition rules are deleted and its nodes stopped on the way out.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        report = run(cluster, config, out)
    except NoFaultLeft as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(report.summary())
    if not report.ok:
        raise SystemExit(1)
