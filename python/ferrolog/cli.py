"""The `ferrolog` command: `ferrolog broker [server.properties] [--override key=value ...]`
starts a broker, like Kafka's `kafka-server-start.sh`; the console tools (`topics`, `produce`,
`consume`, from `ferrolog.cli_tools`) hang off the same group.

The console tools import client libraries that take a while to load, so they are registered
only when a command outside this module is asked for: `ferrolog broker` starts fast."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import click

from ferrolog import __version__
from ferrolog.config import BrokerConfig
from ferrolog.embedded import READY_PREFIX
from ferrolog.errors import InvalidConfigError
from ferrolog.logs import FORMATS, setup_logging


class _Group(click.Group):
    """Registers `ferrolog.cli_tools` (if present) the first time a command it may provide is
    looked up or listed."""

    _tools_loaded = False

    def _load_tools(self) -> None:
        if self._tools_loaded:
            return
        self._tools_loaded = True
        if importlib.util.find_spec("ferrolog.cli_tools") is None:
            return
        from ferrolog import cli_tools

        cli_tools.register(self)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            self._load_tools()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_tools()
        return super().list_commands(ctx)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="ferrolog")
def cli() -> None:
    """ferrolog: a Kafka-compatible message broker."""


def _help_config(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        from ferrolog.config.help import help_text

        click.echo(help_text(), nl=False)
        ctx.exit()


@cli.command()
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


def main(argv: list[str] | None = None) -> Any:
    return cli.main(args=argv, prog_name="ferrolog")
