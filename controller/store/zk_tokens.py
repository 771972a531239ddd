"""Delegation tokens in ZooKeeper (`ZkStore`'s token calls), in Kafka 3.x's layout
(`zk_paths`): one znode per token under `/delegation_token/tokens`, and a sequential change
notification naming the token after every create, change and removal, which every broker
watches to re-read that token. As for ACLs, a broker re-reads only the tokens the
notifications newer than the last one it saw name, and every token on its first pass and
after a connection state change."""

from __future__ import annotations

import json
import logging

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from ..tokens.model import TokenInfo
from . import zk_notifications as notifications
from . import zk_paths as paths
from .entities import desanitize, sanitize

log = logging.getLogger(__name__)

# The format Kafka 3.x writes (`DelegationTokenManagerZk`); it reads versions 1 to 3.
VERSION = 3
# Token id -> the token, or None: removed.
TokenChanges = dict[str, TokenInfo | None]


def encode(token: TokenInfo) -> bytes:
    return json.dumps(
        {
            "version": VERSION,
            "owner": sanitize(token.owner),
            "tokenRequester": sanitize(token.requester),
            "renewers": [sanitize(r) for r in token.renewers],
            "issueTimestamp": token.issue_ms,
            "maxTimestamp": token.max_ms,
            "expiryTimestamp": token.expiry_ms,
            "tokenId": token.token_id,
        },
        separators=(",", ":"),
    ).encode()


def decode(data: bytes) -> TokenInfo:
    """A token znode of versions 1 to 3; raises ValueError for anything else."""
    try:
        raw = json.loads(data)
        version = raw["version"]
        if not isinstance(version, int) or not 1 <= version <= VERSION:
            raise ValueError(f"token znode version {version!r}")
        owner = desanitize(raw["owner"])
        return TokenInfo(
            token_id=str(raw["tokenId"]),
            owner=owner,
            requester=desanitize(raw["tokenRequester"]) if version >= 3 else owner,
            renewers=tuple(desanitize(r) for r in raw["renewers"]),
            issue_ms=int(raw["issueTimestamp"]),
            max_ms=int(raw["maxTimestamp"]),
            expiry_ms=int(raw["expiryTimestamp"]),
        )
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a delegation token znode: {exc!r}") from None


def _read(client: KazooClient, token_ids: list[str]) -> TokenChanges:
    reads = [(t, client.get_async(f"{paths.TOKENS}/{t}")) for t in token_ids]
    found: TokenChanges = {}
    for token_id, read in reads:
        try:
            found[token_id] = decode(read.get()[0])
        except NoNodeError:
            found[token_id] = None
        except ValueError as exc:
            log.warning("ignoring delegation token znode %s: %s", token_id, exc)
    return found


def read_all(client: KazooClient) -> dict[str, TokenInfo]:
    everything = _read(client, client.get_children(paths.TOKENS))
    return {t: token for t, token in everything.items() if token is not None}


def read_changes(
    client: KazooClient, watch: notifications.Watcher | None, seen: str | None, full: bool
) -> tuple[str | None, TokenChanges | None]:
    """The newest notification, and the tokens named by those after `seen` (every token when
    `full`); None when nothing changed."""
    names = notifications.names(client, paths.TOKEN_CHANGES, paths.TOKEN_CHANGE_PREFIX, watch)
    latest = names[-1] if names else None
    if full:
        return latest, dict(read_all(client))
    new = [n for n in names if seen is None or n > seen]
    if not new:
        return latest, None
    pending = [client.get_async(f"{paths.TOKEN_CHANGES}/{n}") for n in new]
    token_ids: set[str] = set()
    for read in pending:
        try:
            token_ids.add(read.get()[0].decode())
        except NoNodeError:
            continue  # purged meanwhile: older than any we miss
    return latest, _read(client, sorted(token_ids))


def write(client: KazooClient, token_id: str, token: TokenInfo | None) -> None:
    """Creates, replaces or (None) removes the token, then notifies every broker."""
    path = f"{paths.TOKENS}/{token_id}"
    if token is None:
        try:
            client.delete(path)
        except NoNodeError:
            return  # removed already (another broker's sweep)
    elif client.exists(path) is None:
        client.create(path, encode(token), makepath=True)
    else:
        client.set(path, encode(token))
    notifications.notify(client, paths.TOKEN_CHANGES, paths.TOKEN_CHANGE_PREFIX, token_id.encode())
