"""Delegation tokens (KIP-48) on one broker with the authorizer on: CreateDelegationToken,
RenewDelegationToken, ExpireDelegationToken and DescribeDelegationToken as Kafka 4.4 answers
them, and SCRAM authentication with a token (`tokenauth=true`) as the token's owner.

The users are SecuredBroker's: bob authenticates with SCRAM, alice with PLAIN, admin is neither
owner nor renewer; PLAINTEXT's `User:ANONYMOUS` is the super user that sets up ACLs (and may
not ask for tokens: Kafka refuses token requests on PLAINTEXT listeners)."""

from __future__ import annotations

import base64
import hmac
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ferrolog.client.connection import Connection
from ferrolog.client.sasl import SaslError
from ferrolog.client.security import ClientSecurity
from ferrolog.protocol.messages import ApiKey

from tests.acl_broker import AUTHORIZER
from tests.cluster.harness import java_command, needs_kafka_jars
from tests.sasl_broker import PASSWORDS, SaslBroker

SECRET = "token-secret-key"
DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS
# Kafka's error codes.
AUTH_DISABLED = 61
NOT_FOUND, OWNER_MISMATCH, NOT_ALLOWED, AUTHORIZATION_FAILED = 62, 63, 64, 65
EXPIRED, INVALID_PRINCIPAL_TYPE, TOPIC_AUTHORIZATION_FAILED = 66, 67, 29
TOPIC = "token-topic"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
TOKENS = "org.apache.kafka.tools.DelegationTokenCommand"
TOPIC_COMMAND = "org.apache.kafka.tools.TopicCommand"


@pytest.fixture(scope="module")
def broker() -> Iterator[SaslBroker]:
    overrides = {
        "authorizer.class.name": AUTHORIZER,
        "super.users": "User:ANONYMOUS",
        "delegation.token.secret.key": SECRET,
        "delegation.token.expiry.check.interval.ms": "100",
    }
    with SaslBroker(PASSWORDS, overrides=overrides) as running:
        admin = connect(running, None, "PLAINTEXT")
        created = admin.request(
            ApiKey.CREATE_TOPICS, 5,
            {"topics": [{"name": TOPIC, "num_partitions": 1, "replication_factor": 1}],
             "timeout_ms": 30000},
        )  # fmt: skip
        assert created["topics"][0]["error_code"] == 0
        # bob may describe the topic; alice may not.
        allow(admin, 2, TOPIC, "User:bob", 8)
        admin.close()
        yield running


def connect(
    broker: SaslBroker,
    user: str | None,
    protocol: str = "SASL_PLAINTEXT",
    *,
    token: tuple[str, bytes] | None = None,
    mechanism: str | None = None,
    extension: bool = True,
) -> Connection:
    """A raw connection as `user` (alice with PLAIN, the others with SCRAM-SHA-256), or with
    `token` (id, HMAC) over SCRAM (`extension`: saying so, as Kafka's clients do), or
    unauthenticated on a listener without SASL."""
    security: ClientSecurity | None = None
    if token is not None:
        # As Spark's `kafka.*` options give it to ferrolog's reader, the Java client's way.
        tokenauth = ' tokenauth="true"' if extension else ""
        security = ClientSecurity.from_properties(
            {
                "security.protocol": protocol,
                "sasl.mechanism": mechanism or "SCRAM-SHA-512",
                "sasl.jaas.config": f'{SCRAM_MODULE} required username="{token[0]}" '
                f'password="{base64.b64encode(token[1]).decode()}"{tokenauth};',
            }
        )
    elif user is not None:
        security = ClientSecurity(
            protocol=protocol,
            mechanism=mechanism or ("PLAIN" if user == "alice" else "SCRAM-SHA-256"),
            username=user,
            password=PASSWORDS[user],
        )
    host, _, port = broker.address(protocol).rpartition(":")
    return Connection(host, int(port), 15, "token-tests", security)


def allow(admin: Connection, resource_type: int, name: str, principal: str, operation: int) -> None:
    answer = admin.request(
        ApiKey.CREATE_ACLS, 3,
        {"creations": [{"resource_type": resource_type, "resource_name": name,
                        "resource_pattern_type": 3, "principal": principal, "host": "*",
                        "operation": operation, "permission_type": 3}]},
    )  # fmt: skip
    assert answer["results"][0]["error_code"] == 0, answer


def create(conn: Connection, renewers: tuple[str, ...] = (), **body: Any) -> dict[str, Any]:
    request = {
        "renewers": [
            {"principal_type": r.split(":")[0], "principal_name": r.split(":")[1]} for r in renewers
        ],
        "max_lifetime_ms": -1,
        **body,
    }
    return conn.request(ApiKey.CREATE_DELEGATION_TOKEN, 3, request)


def renew(conn: Connection, mac: bytes, period: int) -> dict[str, Any]:
    return conn.request(ApiKey.RENEW_DELEGATION_TOKEN, 2, {"hmac": mac, "renew_period_ms": period})


def expire(conn: Connection, mac: bytes, period: int) -> dict[str, Any]:
    body = {"hmac": mac, "expiry_time_period_ms": period}
    return conn.request(ApiKey.EXPIRE_DELEGATION_TOKEN, 2, body)


def describe(conn: Connection, owners: list[str] | None = None) -> dict[str, Any]:
    body = {
        "owners": None
        if owners is None
        else [{"principal_type": "User", "principal_name": o.split(":")[1]} for o in owners]
    }
    return conn.request(ApiKey.DESCRIBE_DELEGATION_TOKEN, 3, body)


def ids(answer: dict[str, Any]) -> set[str]:
    assert answer["error_code"] == 0, answer
    return {t["token_id"] for t in answer["tokens"]}


def test_a_token_is_created_renewed_described_and_expired_as_kafka_does(
    broker: SaslBroker,
) -> None:
    bob, alice, admin = (connect(broker, u) for u in ("bob", "alice", "admin"))
    before = int(time.time() * 1000)
    made = create(bob, ("User:alice",))
    after = int(time.time() * 1000)
    assert made["error_code"] == 0, made
    assert (made["principal_type"], made["principal_name"]) == ("User", "bob")
    assert made["token_requester_principal_name"] == "bob"
    token_id, mac = made["token_id"], made["hmac"]
    # Kafka's token id (a Uuid's string) and HMAC: HmacSHA512 of the id under the secret.
    assert len(token_id) == 22
    assert not token_id.startswith("-")
    assert mac == hmac.digest(SECRET.encode(), token_id.encode(), "sha512")
    issued = made["issue_timestamp_ms"]
    assert before <= issued <= after
    assert made["expiry_timestamp_ms"] == issued + DAY_MS
    assert made["max_timestamp_ms"] == issued + WEEK_MS

    # Visible to its owner and its renewer, not to another user without an ACL; an owners
    # filter names owners, requesters or renewers; an empty one names nobody.
    assert token_id in ids(describe(bob))
    assert token_id in ids(describe(alice))
    assert token_id not in ids(describe(admin))
    assert token_id in ids(describe(bob, ["User:alice"]))
    assert ids(describe(bob, [])) == set()
    described = next(t for t in describe(bob)["tokens"] if t["token_id"] == token_id)
    assert described["hmac"] == mac
    assert [r["principal_name"] for r in described["renewers"]] == ["alice"]

    # The renewer renews; a period past delegation.token.expiry.time.ms is capped there.
    renewed = renew(alice, mac, 60_000)
    assert renewed["error_code"] == 0
    assert abs(renewed["expiry_timestamp_ms"] - (time.time() * 1000 + 60_000)) < 5_000
    capped = renew(bob, mac, 3 * DAY_MS)
    assert capped["expiry_timestamp_ms"] <= time.time() * 1000 + DAY_MS
    assert renew(admin, mac, 1000)["error_code"] == OWNER_MISMATCH
    assert renew(bob, b"\0" * 64, 1000)["error_code"] == NOT_FOUND

    # Expired at once (a negative period): gone.
    gone = expire(bob, mac, -1)
    assert gone["error_code"] == 0
    assert abs(gone["expiry_timestamp_ms"] - time.time() * 1000) < 5_000
    assert token_id not in ids(describe(bob))
    assert renew(bob, mac, 1000)["error_code"] == NOT_FOUND
    for conn in (bob, alice, admin):
        conn.close()


def test_token_requests_are_refused_where_kafka_refuses_them(broker: SaslBroker) -> None:
    plaintext = connect(broker, None, "PLAINTEXT")
    refused = create(plaintext)
    assert refused["error_code"] == NOT_ALLOWED
    assert refused["issue_timestamp_ms"] == refused["max_timestamp_ms"] == -1
    assert refused["token_id"] == ""
    assert refused["hmac"] == b""
    assert renew(plaintext, b"x", 1)["error_code"] == NOT_ALLOWED
    assert expire(plaintext, b"x", 1)["error_code"] == NOT_ALLOWED
    assert describe(plaintext)["error_code"] == NOT_ALLOWED
    plaintext.close()

    bob = connect(broker, "bob")
    # Renewers are users; a token for another owner needs CREATE_TOKENS on that user.
    assert create(bob, ("Group:g",))["error_code"] == INVALID_PRINCIPAL_TYPE
    for_alice = {"owner_principal_type": "User", "owner_principal_name": "alice"}
    assert create(bob, **for_alice)["error_code"] == AUTHORIZATION_FAILED
    admin = connect(broker, None, "PLAINTEXT")
    allow(admin, 7, "User:alice", "User:bob", 13)  # USER, CREATE_TOKENS
    made = create(bob, **for_alice)
    assert made["error_code"] == 0
    assert (made["principal_name"], made["token_requester_principal_name"]) == ("alice", "bob")
    # Made by bob for alice: bob describes it (its requester) but may not renew it.
    assert made["token_id"] in ids(describe(bob))
    assert renew(bob, made["hmac"], 1000)["error_code"] == OWNER_MISMATCH
    # DESCRIBE_TOKENS on alice lets admin see alice's tokens.
    admin_sasl = connect(broker, "admin")
    assert made["token_id"] not in ids(describe(admin_sasl))
    allow(admin, 7, "User:alice", "User:admin", 14)  # USER, DESCRIBE_TOKENS
    assert made["token_id"] in ids(describe(admin_sasl))
    for conn in (bob, admin, admin_sasl):
        conn.close()


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_a_token_authenticates_as_its_owner(broker: SaslBroker, mechanism: str) -> None:
    bob, alice = connect(broker, "bob"), connect(broker, "alice")
    bobs, alices = create(bob), create(alice)
    as_bob = connect(broker, None, token=(bobs["token_id"], bobs["hmac"]), mechanism=mechanism)
    as_alice = connect(broker, None, token=(alices["token_id"], alices["hmac"]))

    def topic_error(conn: Connection) -> int:
        answer = conn.request(ApiKey.METADATA, 12, {"topics": [{"name": TOPIC}]})
        error: int = answer["topics"][0]["error_code"]
        return error

    # bob may describe the topic, alice may not: each token acts as its owner.
    assert topic_error(as_bob) == 0
    assert topic_error(as_alice) == TOPIC_AUTHORIZATION_FAILED
    # A connection that authenticated with a token may not ask for tokens.
    assert create(as_bob)["error_code"] == NOT_ALLOWED
    assert describe(as_bob)["error_code"] == NOT_ALLOWED

    # A wrong HMAC, an unknown id, and the token's id without the token extension all fail.
    with pytest.raises(SaslError):
        connect(broker, None, token=(bobs["token_id"], b"\1" * 64))
    with pytest.raises(SaslError):
        connect(broker, None, token=("no-such-token-id-xxxxx", bobs["hmac"]))
    with pytest.raises(SaslError):
        connect(broker, None, token=(bobs["token_id"], bobs["hmac"]), extension=False)
    # Once expired (removed), the token authenticates no more.
    assert expire(bob, bobs["hmac"], -1)["error_code"] == 0
    with pytest.raises(SaslError):
        connect(broker, None, token=(bobs["token_id"], bobs["hmac"]))
    for conn in (bob, alice, as_bob, as_alice):
        conn.close()


def test_expired_tokens_are_swept(broker: SaslBroker) -> None:
    bob = connect(broker, "bob")
    short = create(bob, max_lifetime_ms=300)
    assert short["max_timestamp_ms"] == short["issue_timestamp_ms"] + 300
    kept = create(bob)
    deadline = time.monotonic() + 10
    while short["token_id"] in ids(describe(bob)):
        assert time.monotonic() < deadline, "the expired token was never removed"
        time.sleep(0.05)
    assert kept["token_id"] in ids(describe(bob))
    assert renew(bob, short["hmac"], 1000)["error_code"] == NOT_FOUND
    # Expiring with a period of 0 expires it now; the next sweep removes it.
    assert expire(bob, kept["hmac"], 0)["error_code"] == 0
    assert renew(bob, kept["hmac"], 1000)["error_code"] in (EXPIRED, NOT_FOUND)
    bob.close()


def _properties(path: Path, username: str, password: str, token: bool = False) -> Path:
    extra = ' tokenauth="true"' if token else ""
    path.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"
        f'sasl.jaas.config={SCRAM_MODULE} required username="{username}" '
        f'password="{password}"{extra};\n'
    )
    return path


def _java(main: str, bootstrap: str, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        java_command(main, "--bootstrap-server", bootstrap, "--command-config", str(config), *args),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_token_connection_ends_when_the_token_expires(broker: SaslBroker) -> None:
    """Kafka's session lifetime: the first request after the token's expiry closes the
    connection (ferrolog has no re-authentication; the client connects again)."""
    bob = connect(broker, "bob")
    short = create(bob, max_lifetime_ms=1000)
    bob.close()
    as_token = connect(broker, None, token=(short["token_id"], short["hmac"]))
    assert as_token.request(ApiKey.METADATA, 12, {"topics": None})["brokers"]
    time.sleep(max(0.0, short["max_timestamp_ms"] / 1000 - time.time()) + 0.1)
    with pytest.raises(ConnectionError):
        as_token.request(ApiKey.METADATA, 12, {"topics": None})
    as_token.close()


@needs_kafka_jars
def test_kafka_tools_create_use_renew_and_expire_a_token(
    broker: SaslBroker, tmp_path: Path
) -> None:
    """Kafka 4.4's `kafka-delegation-tokens` as bob, then its `kafka-topics` logged in with
    the token (Kafka's ScramLoginModule with tokenauth), acting as bob."""
    bootstrap = broker.address("SASL_PLAINTEXT")
    as_bob = _properties(tmp_path / "bob.properties", "bob", PASSWORDS["bob"])
    made = _java(
        TOKENS, bootstrap, as_bob, "--create", "--max-life-time-period", "-1",
        "--renewer-principal", "User:alice",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    token_id = re.search(r"Created delegation token with tokenId : (\S+)", made.stdout)
    assert token_id is not None, made.stdout
    row = next(line.split() for line in made.stdout.splitlines() if line.startswith(token_id[1]))
    mac = row[1]
    assert base64.b64decode(mac) == hmac.digest(SECRET.encode(), token_id[1].encode(), "sha512")
    assert row[2:5] == ["User:bob", "User:bob", "[User:alice]"]
    described = _java(TOKENS, bootstrap, as_bob, "--describe", "--owner-principal", "User:bob")
    assert described.returncode == 0, described.stderr
    assert token_id[1] in described.stdout

    with_token = _properties(tmp_path / "token.properties", token_id[1], mac, token=True)
    listed = _java(TOPIC_COMMAND, bootstrap, with_token, "--list")
    assert listed.returncode == 0, listed.stderr
    assert TOPIC in listed.stdout.split()  # bob's DESCRIBE on the topic

    renewed = _java(
        TOKENS, bootstrap, as_bob, "--renew", "--hmac", mac, "--renew-time-period", "-1"
    )
    assert "Completed renew operation" in renewed.stdout, renewed.stdout + renewed.stderr
    expired = _java(
        TOKENS, bootstrap, as_bob, "--expire", "--hmac", mac, "--expiry-time-period", "-1"
    )
    assert "Completed expire operation" in expired.stdout, expired.stdout + expired.stderr
    refused = _java(TOPIC_COMMAND, bootstrap, with_token, "--list")
    assert refused.returncode != 0
    assert "Authentication failed" in refused.stdout + refused.stderr


def test_without_a_secret_key_tokens_are_disabled() -> None:
    with SaslBroker(PASSWORDS) as keyless:
        bob = connect(keyless, "bob")
        refused = create(bob)
        assert refused["error_code"] == AUTH_DISABLED
        assert refused["issue_timestamp_ms"] == refused["max_timestamp_ms"] == 0
        assert renew(bob, b"x", 1)["error_code"] == AUTH_DISABLED
        assert expire(bob, b"x", 1)["error_code"] == AUTH_DISABLED
        assert describe(bob)["error_code"] == AUTH_DISABLED
        bob.close()
        with pytest.raises(SaslError):
            connect(keyless, None, token=("A" * 22, b"\0" * 64))


def test_tokens_survive_a_restart(broker: SaslBroker) -> None:
    """Last in this module: it restarts the module's broker."""
    bob = connect(broker, "bob")
    made = create(bob, ("User:alice",))
    bob.close()
    broker.embedded.stop()
    broker.embedded.start()
    as_bob = connect(broker, None, token=(made["token_id"], made["hmac"]))
    as_bob.close()
    bob = connect(broker, "bob")
    described = next(t for t in describe(bob)["tokens"] if t["token_id"] == made["token_id"])
    assert described["expiry_timestamp"] == made["expiry_timestamp_ms"]
    assert [r["principal_name"] for r in described["renewers"]] == ["alice"]
    bob.close()
