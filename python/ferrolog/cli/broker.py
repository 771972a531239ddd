"""`ferrolog broker [server.properties] [--override key=value ...]`: starts a broker, like
Kafka's `kafka-server-start.sh`. Only this command's imports load before a broker starts."""

from __future__ import annotations

import sys

import click

from ferrolog.config import BrokerConfig
from ferrolog.embedded import READY_PREFIX
from ferrolog.errors import InvalidConfigError
from ferrolog.logs import FORMATS, setup_logging


def _help_config(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        from ferrolog.config.help import help_text

        click.echo(help_text(), nl=False)
        ctx.exit()


@click.command()
@click.argument(
    "properties", required=False, type=click.Path(exists=True, dir_okay=False, readable=True)
)
@click.option(
    "--override",
    "overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Set a broker property (repeatable); wins over the file and the environment.",
)
@click.option("--log-level", default="INFO", show_default=True, help="Logging level.")
@click.option(
    "--log-format", type=click.Choice(FORMATS), default="kv", show_default=True,
    help="key=value lines or JSON objects, on stderr.",
)  # fmt: skip
@click.option(
    "--help-config", is_flag=True, is_eager=True, expose_value=False, callback=_help_config,
    help="Print every broker and topic property (type, default, valid values) and exit.",
)  # fmt: skip
def broker(
    properties: str | None, overrides: tuple[str, ...], log_level: str, log_format: str
) -> None:
    """Start a broker. With no arguments: a single-node broker on 127.0.0.1:9092 with its
    data in ./ferrolog-data. Properties use Kafka's names (server.properties); environment
    variables FERROLOG_<NAME> (e.g. FERROLOG_LOG_DIRS) set them too; --help-config lists
    them."""
    setup_logging(log_level, log_format)
    try:
        config = BrokerConfig.load(properties, overrides)
    except InvalidConfigError as exc:
        raise click.ClickException(exc.message) from None
    from ferrolog.broker import Broker, run_broker

    def ready(started: Broker) -> None:
        # The one line on stdout: embedded brokers and scripts wait for it.
        click.echo(f"{READY_PREFIX}{started.bootstrap}")
        sys.stdout.flush()

    try:
        run_broker(config, ready)
    except (OSError, NotImplementedError) as exc:
        raise click.ClickException(f"cannot start the broker: {exc}") from None
