"""The `ferrolog` command, one module per command:

- `broker`: `ferrolog broker [server.properties] [--override key=value ...]` starts a broker,
  like Kafka's `kafka-server-start.sh`;
- `topics`, `console` (`produce`, `consume`), `groups`, `verify_replicas`: the console tools,
  registered on the same group by `tools`, with their shared plumbing in `common`.

The console tools import client libraries that take a while to load, so they are registered
only when a command other than `broker` is asked for: `ferrolog broker` starts fast."""

from __future__ import annotations

import importlib.util
from typing import Any

import click

from ferrolog import __version__
from ferrolog.cli.broker import broker


class _Group(click.Group):
    """Registers `ferrolog.cli.tools` (if present) the first time a command it may provide is
    looked up or listed."""

    _tools_loaded = False

    def _load_tools(self) -> None:
        if self._tools_loaded:
            return
        self._tools_loaded = True
        if importlib.util.find_spec("ferrolog.cli.tools") is None:
            return
        from ferrolog.cli import tools

        tools.register(self)

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


cli.add_command(broker)


def main(argv: list[str] | None = None) -> Any:
    return cli.main(args=argv, prog_name="ferrolog")
