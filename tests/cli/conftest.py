"""The `groups` command is tested on the group tests' broker (short group timeouts, and
FERROLOG_GROUPS_BOOTSTRAP to point it at another cluster): the same fixtures, owned by
groups/conftest.py. test_topics_and_console.py brings its own `bootstrap`."""

from tests.groups.conftest import bootstrap, group_broker, group_id

__all__ = ["bootstrap", "group_broker", "group_id"]
