"""The commands of `bench.cli_tools_table`: Apache Kafka 4.4's tools, each with the arguments a
user would give it, in the order a user would run them (later ones use what earlier ones made:
the topic, the group's offsets, the delegation token)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.harness import kafka_dist

USERS = {"admin": "admin-secret", "alice": "alice-secret"}
SCRAM_LOGIN = "org.apache.kafka.common.security.scram.ScramLoginModule"
TOPIC = "cli-events"  # under the prefix alice is granted Read on
TOOLS = "org.apache.kafka.tools"


@dataclass(frozen=True)
class Step:
    """One command. `args` may name `{bootstrap}`, `{config}` (the user's client properties),
    `{node}`, `{topic}`, `{group}`, `{work}` and what earlier steps captured (`{hmac}`)."""

    label: str
    tool: str
    args: tuple[str, ...]
    user: str = "admin"
    stdin: str | None = None
    # A pass needs exit 0 and, if set, this pattern in the output: some tools exit 0 after
    # printing an error (kafka-configs --describe of an unknown entity, for one).
    expect: str | None = None
    capture: Callable[[str, dict[str, str], Path], None] | None = None


def client_properties(user: str) -> str:
    return (
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"
        f'sasl.jaas.config={SCRAM_LOGIN} required username="{user}" '
        f'password="{USERS[user]}";\n'
    )


def capture_token(out: str, ctx: dict[str, str], work: Path) -> None:
    # kafka-delegation-tokens --create ends with a table row: token id, HMAC, owner, ...
    rows = [line.split() for line in out.splitlines() if line.strip()]
    if rows and len(rows[-1]) >= 2:
        ctx["token_id"], ctx["hmac"] = rows[-1][0], rows[-1][1]


def capture_offsets(out: str, ctx: dict[str, str], work: Path) -> None:
    """Writes the delete-records plan a user would write from get-offsets: every record of
    every non-empty partition (Kafka refuses an offset past a partition's end)."""
    parts = []
    for line in out.splitlines():
        m = re.fullmatch(r"(.+):(\d+):(\d+)", line.strip())
        if m and int(m[3]) > 0:
            parts.append({"topic": m[1], "partition": int(m[2]), "offset": int(m[3])})
    if not parts:
        parts = [{"topic": ctx["topic"], "partition": 0, "offset": 0}]
    (work / "delete-records.json").write_text(json.dumps({"version": 1, "partitions": parts}))


def capture_log_dir(out: str, ctx: dict[str, str], work: Path) -> None:
    """Writes the plan a user would write to move partition 0 of the topic to the broker's
    other log directory (from kafka-log-dirs' JSON line), and names that directory."""
    described = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    (broker,) = described["brokers"]
    dirs = [d["logDir"] for d in broker["logDirs"]]
    holding = [
        d["logDir"]
        for d in broker["logDirs"]
        if any(p["partition"] == f"{ctx['topic']}-0" for p in d["partitions"])
    ]
    ctx["to_dir"] = next(d for d in dirs if d not in holding)
    move = {"topic": ctx["topic"], "partition": 0, "replicas": [int(ctx["node"])]}
    plan = {"version": 1, "partitions": [{**move, "log_dirs": [ctx["to_dir"]]}]}
    (work / "dirs-plan.json").write_text(json.dumps(plan))


def steps() -> list[Step]:
    boot = ("--bootstrap-server", "{bootstrap}", "--command-config", "{config}")
    topics = (f"{TOOLS}.TopicCommand", *boot)
    configs = (kafka_dist.CONFIG_COMMAND, *boot)
    acls = (f"{TOOLS}.AclCommand", *boot)
    groups = (f"{TOOLS}.consumer.group.ConsumerGroupCommand", *boot)
    reassign = (f"{TOOLS}.reassign.ReassignPartitionsCommand", *boot)
    log_dirs = (f"{TOOLS}.LogDirsCommand", *boot)
    tokens = (f"{TOOLS}.DelegationTokenCommand", *boot)
    txn = (f"{TOOLS}.TransactionsCommand", *boot)
    consumer = (f"{TOOLS}.consumer.ConsoleConsumer", *boot)
    broker = ("--entity-type", "brokers", "--entity-name", "{node}")
    topic_entity = ("--entity-type", "topics", "--entity-name", "{topic}")
    carol = ("--entity-type", "users", "--entity-name", "carol")
    client = ("--entity-type", "clients", "--entity-name", "client1")
    alice = ("--entity-type", "users", "--entity-name", "alice")
    alice_topic = ("--allow-principal", "User:alice", "--operation", "Read", "--topic")

    def s(
        label: str,
        base: tuple[str, ...],
        *args: str,
        user: str = "admin",
        stdin: str | None = None,
        expect: str | None = None,
        capture: Callable[[str, dict[str, str], Path], None] | None = None,
    ) -> Step:
        return Step(label, base[0], (*base[1:], *args), user, stdin, expect, capture)

    return [
        s("broker-api-versions", (f"{TOOLS}.BrokerApiVersionsCommand", *boot),
          expect=r"Produce\(0\)"),
        s("topics --create --partitions 3", topics, "--create", "--topic", "{topic}",
          "--partitions", "3", "--replication-factor", "1"),
        s("topics --list", topics, "--list", expect="{topic}"),
        s("topics --describe --topic", topics, "--describe", "--topic", "{topic}",
          expect="PartitionCount: 3"),
        s("topics --alter --partitions 4", topics, "--alter", "--topic", "{topic}",
          "--partitions", "4"),
        s("topics --describe --under-replicated-partitions", topics, "--describe",
          "--under-replicated-partitions"),
        s("configs --alter topic retention.ms", configs, "--alter", *topic_entity,
          "--add-config", "retention.ms=3600000"),
        s("configs --describe topic", configs, "--describe", *topic_entity,
          expect="retention.ms=3600000"),
        s("configs --describe broker <id>", configs, "--describe", *broker),
        s("configs --alter broker <id> log.cleaner.threads", configs, "--alter", *broker,
          "--add-config", "log.cleaner.threads=2"),
        s("configs --describe broker <id> (after alter)", configs, "--describe", *broker,
          expect="log.cleaner.threads=2"),
        s("configs --describe brokers --all", configs, "--describe", "--entity-type",
          "brokers", "--all", expect="log.dirs="),
        s("configs --alter users: add SCRAM user", configs, "--alter", *carol, "--add-config",
          "SCRAM-SHA-256=[iterations=8192,password=carol-secret]"),
        s("configs --describe users: SCRAM user", configs, "--describe", *carol,
          expect="SCRAM-SHA-256=iterations=8192"),
        s("configs --alter users: delete SCRAM user", configs, "--alter", *carol,
          "--delete-config", "SCRAM-SHA-256"),
        s("configs --alter clients: byte-rate quotas", configs, "--alter", *client,
          "--add-config", "producer_byte_rate=1048576,consumer_byte_rate=2097152"),
        s("configs --describe clients", configs, "--describe", *client,
          expect="producer_byte_rate=1048576"),
        s("configs --alter users: request_percentage", configs, "--alter", *alice,
          "--add-config", "request_percentage=50"),
        s("configs --alter users+clients quota", configs, "--alter", *alice, *client,
          "--add-config", "producer_byte_rate=524288"),
        s("configs --describe users (quota)", configs, "--describe", *alice,
          expect="request_percentage=50"),
        s("configs --alter clients: delete quotas", configs, "--alter", *client,
          "--delete-config", "producer_byte_rate,consumer_byte_rate"),
        s("acls --add alice Read literal topic", acls, "--add", *alice_topic, "{topic}"),
        s("acls --add alice Read prefixed topic", acls, "--add", *alice_topic, "cli-",
          "--resource-pattern-type", "prefixed"),
        s("acls --add alice Read group", acls, "--add", "--allow-principal", "User:alice",
          "--operation", "Read", "--group", "alice-g"),
        s("acls --list", acls, "--list", expect="User:alice"),
        s("acls --remove literal topic", acls, "--remove", *alice_topic, "{topic}", "--force"),
        s("console-producer (3 lines)", (f"{TOOLS}.ConsoleProducer", *boot), "--topic",
          "{topic}", stdin="one\ntwo\nthree\n"),
        s("console-consumer --from-beginning --group g1", consumer, "--topic", "{topic}",
          "--from-beginning", "--max-messages", "3", "--group", "{group}",
          "--timeout-ms", "30000", expect="Processed a total of 3 messages"),
        s("console-consumer as alice (prefixed ACL)", consumer, "--topic", "{topic}",
          "--from-beginning", "--max-messages", "3", "--group", "alice-g",
          "--timeout-ms", "30000", user="alice", expect="Processed a total of 3 messages"),
        s("consumer-groups --list", groups, "--list", expect="{group}"),
        s("consumer-groups --describe", groups, "--describe", "--group", "{group}",
          expect="{topic}"),
        s("consumer-groups --reset-offsets --to-earliest --execute", groups,
          "--reset-offsets", "--group", "{group}", "--topic", "{topic}", "--to-earliest",
          "--execute"),
        s("consumer-groups --delete-offsets", groups, "--delete-offsets", "--group",
          "{group}", "--topic", "{topic}"),
        s("consumer-groups --delete", groups, "--delete", "--group", "{group}"),
        s("groups --list", (f"{TOOLS}.GroupsCommand", *boot), "--list", expect="alice-g"),
        s("producer-perf-test (1000 records)", (f"{TOOLS}.ProducerPerformance",), "--topic",
          "{topic}", "--num-records", "1000", "--record-size", "100", "--throughput", "-1",
          "--bootstrap-server", "{bootstrap}", "--command-config", "{config}",
          expect="1000 records sent"),
        s("consumer-perf-test (1000 records)", (f"{TOOLS}.ConsumerPerformance", *boot),
          "--topic", "{topic}", "--num-records", "1000", "--timeout", "30000"),
        s("get-offsets", (f"{TOOLS}.GetOffsetShell", *boot), "--topic", "{topic}",
          expect="{topic}:0:", capture=capture_offsets),
        s("delete-records --offset-json-file", (f"{TOOLS}.DeleteRecordsCommand", *boot),
          "--offset-json-file", "{work}/delete-records.json", expect="low_watermark"),
        s("log-dirs --describe", log_dirs, "--describe", expect="{topic}",
          capture=capture_log_dir),
        s("reassign-partitions --execute (log_dirs: to the other dir)", reassign, "--execute",
          "--reassignment-json-file", "{work}/dirs-plan.json"),
        s("reassign-partitions --verify (log_dirs)", reassign, "--verify",
          "--reassignment-json-file", "{work}/dirs-plan.json",
          expect="Reassignment of replica {topic}-0-{node} completed successfully"),
        s("log-dirs --describe (after the move)", log_dirs, "--describe", "--topic-list",
          "{topic}",
          expect=r'"partition":"{topic}-0"[^\]]*\],"error":null,"logDir":"{to_dir}"'),
        s("leader-election preferred --all-topic-partitions",
          (f"{TOOLS}.LeaderElectionCommand", *boot), "--election-type", "preferred",
          "--all-topic-partitions"),
        s("reassign-partitions --generate", reassign, "--generate",
          "--topics-to-move-json-file", "{work}/move.json", "--broker-list", "{node}",
          expect="Proposed partition reassignment"),
        s("reassign-partitions --execute (same replicas)", reassign, "--execute",
          "--reassignment-json-file", "{work}/plan.json"),
        s("reassign-partitions --verify", reassign, "--verify", "--reassignment-json-file",
          "{work}/plan.json"),
        s("features describe", (f"{TOOLS}.FeatureCommand", *boot), "describe",
          expect="Feature:"),
        s("transactions list", txn, "list"),
        s("transactions describe-producers", txn, "describe-producers", "--topic",
          "{topic}", "--partition", "0"),
        s("delegation-tokens --create", tokens, "--create", "--max-life-time-period", "-1",
          "--renewer-principal", "User:alice", capture=capture_token),
        s("delegation-tokens --describe --owner-principal", tokens, "--describe",
          "--owner-principal", "User:admin", expect="{token_id}"),
        s("delegation-tokens --renew", tokens, "--renew", "--hmac", "{hmac}",
          "--renew-time-period", "-1"),
        s("delegation-tokens --expire", tokens, "--expire", "--hmac", "{hmac}",
          "--expiry-time-period", "-1"),
        s("client-metrics --list", (f"{TOOLS}.ClientMetricsCommand", *boot), "--list"),
        s("topics --create as alice (must be refused)", topics, "--create", "--topic",
          "cli-alice", "--partitions", "1", user="alice"),
        s("configs --alter broker as alice (must be refused)", configs, "--alter", *broker,
          "--add-config", "log.cleaner.threads=3", user="alice"),
        s("acls --list as alice (must be refused)", acls, "--list", user="alice"),
        s("topics --delete", topics, "--delete", "--topic", "{topic}"),
    ]  # fmt: skip


# Starting the brokers
