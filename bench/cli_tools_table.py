"""Apache Kafka 4.4's own command-line tools, run as a user would, against a single-node Kafka
4.4 KRaft broker and a single ferrolog broker, both with their authorizer on: one row per
command with the exit status on each, to check that every command Kafka passes ferrolog
passes too.

    python -m bench.cli_tools_table [--out bench/results/cli-tools-latest.md]

Both brokers get a PLAINTEXT listener (the broker's own and this script's setup: its
principal, User:ANONYMOUS, is a super user) and a SASL_PLAINTEXT listener with SCRAM-SHA-256,
where the tools log in as `admin` (a super user) or `alice` (no rights but the ACLs the
commands grant her). The brokers run one after the other (the machine has two cores)."""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ferrolog.embedded import EmbeddedBroker
from ferrolog.ports import free_port
from ferrolog.secured import add_scram_users

from bench.cli_tools_steps import SCRAM_LOGIN, TOPIC, USERS, Step, client_properties, steps
from bench.harness import brokers, kafka_dist

TIMEOUT_S = 60
AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
TOKEN_SECRET = "cli-tools-token-secret"

# The tests' flags for short-lived Java tools (tests/cluster/harness.py `java_command`): C1
# only and the serial collector halve a tool's start on two cores.
TOOL_JVM = ["-Xmx256M", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]

# What `bin/kafka-run-class.sh` gives the tools (config/tools-log4j2.yaml): warnings and up on
# stderr, so a user sees the client's complaints next to the tool's own error.
TOOLS_LOG4J2 = (
    "appender.e.type=Console\nappender.e.name=E\nappender.e.target=SYSTEM_ERR\n"
    "appender.e.layout.type=PatternLayout\nappender.e.layout.pattern=[%d] %p %m (%c)%n\n"
    "rootLogger.level=WARN\nrootLogger.appenderRef.e.ref=E\n"
)

# Settings both brokers share beyond brokers.COMMON. ANONYMOUS (the PLAINTEXT listener) is a
# super user so the brokers' own traffic and this script's setup pass the authorizer.
SECURED = {
    "sasl.enabled.mechanisms": "SCRAM-SHA-256",
    "authorizer.class.name": AUTHORIZER,
    "super.users": "User:admin;User:ANONYMOUS",
    "delegation.token.secret.key": TOKEN_SECRET,
}


@dataclass
class Target:
    """A running broker as the tools see it."""

    name: str
    key: str  # file-name friendly
    sasl: str  # host:port of the SASL_PLAINTEXT listener
    plaintext: str
    node_id: int
    workdir: Path


@dataclass
class Outcome:
    code: int | None  # None: timed out
    passed: bool
    note: str
    seconds: float
    stdout: str
    stderr: str


@dataclass
class Run:
    target: Target
    outcomes: list[Outcome] = field(default_factory=list)


def start_kafka(work: Path) -> tuple[subprocess.Popen[bytes], Target]:
    cp = kafka_dist.classpath(kafka_dist.KAFKA4)
    plain, sasl, ctrl = free_port(), free_port(), free_port()
    settings = {
        **brokers.COMMON,
        **brokers.SINGLE_NODE_SHARE_STATE,
        **brokers.kraft_settings(
            1, f"1@127.0.0.1:{ctrl}", f"127.0.0.1:{plain}", ctrl, work / "data"
        ),
        **SECURED,
        "log.dirs": f"{work / 'data'},{work / 'data2'}",
        "listeners": f"PLAINTEXT://127.0.0.1:{plain},SASL_PLAINTEXT://127.0.0.1:{sasl},"
        f"CONTROLLER://127.0.0.1:{ctrl}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{plain},SASL_PLAINTEXT://127.0.0.1:{sasl}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
        "CONTROLLER:PLAINTEXT",
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": f"{SCRAM_LOGIN} required;",
    }
    props = work / "server.properties"
    props.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    # KRaft has no running broker to take AlterUserScramCredentials before its first start:
    # the users go into the bootstrap metadata, as Kafka's documentation does it.
    scram = [
        a
        for user, password in USERS.items()
        for a in ("--add-scram", f"SCRAM-SHA-256=[name={user},password={password}]")
    ]
    subprocess.run(
        ["java", *TOOL_JVM, "-cp", cp, "kafka.tools.StorageTool", "format", "-t",
         brokers.new_cluster_id(), "-c", str(props), *scram],
        check=True, capture_output=True,
    )  # fmt: skip
    log4j = work / "log4j2.properties"
    log4j.write_text(
        "appender.f.type=File\nappender.f.name=F\n"
        f"appender.f.fileName={work / 'server.log'}\n"
        "appender.f.layout.type=PatternLayout\nappender.f.layout.pattern=[%d] %p %m (%c)%n\n"
        "rootLogger.level=INFO\nrootLogger.appenderRef.f.ref=F\n"
    )
    with open(work / "broker.out", "wb") as out:
        proc = subprocess.Popen(
            ["java", *brokers.KAFKA_JVM, f"-Dlog4j2.configurationFile={log4j}", "-cp", cp,
             "kafka.Kafka", str(props)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=work,
        )  # fmt: skip
    try:
        brokers.wait_port(sasl, 120, proc)
        node = wait_ready(f"127.0.0.1:{plain}")
    except BaseException:
        stop(proc)
        raise
    return proc, Target("Kafka 4.4", "kafka", f"127.0.0.1:{sasl}", f"127.0.0.1:{plain}", node, work)


def start_ferrolog(work: Path) -> tuple[EmbeddedBroker, Target]:
    plain, sasl = free_port(), free_port()
    broker = EmbeddedBroker(
        overrides={
            **brokers.COMMON,
            **SECURED,
            "log.dirs": f"{work / 'data'},{work / 'data2'}",
            "listeners": f"PLAINTEXT://127.0.0.1:{plain},SASL_PLAINTEXT://127.0.0.1:{sasl}",
        },
        startup_timeout=60,
    )
    broker.start()
    try:
        node = wait_ready(f"127.0.0.1:{plain}")
        # Kafka's users came with the format; ferrolog takes them through its own API.
        add_scram_users(f"127.0.0.1:{plain}", USERS, ("SCRAM-SHA-256",))
    except BaseException:
        broker.close()
        raise
    return broker, Target(
        "ferrolog", "ferrolog", f"127.0.0.1:{sasl}", f"127.0.0.1:{plain}", node, work
    )


def wait_ready(plaintext: str, timeout: float = 60) -> int:
    """Waits until the broker answers Metadata with itself in it; returns its node id (the
    id the broker-entity commands name)."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": plaintext})
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = admin.list_topics(timeout=5).brokers
            if found:
                return int(next(iter(found)))
        except Exception:
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise RuntimeError(f"{plaintext} lists no broker after {timeout}s")
        time.sleep(0.5)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# Running the tools


_LOG_PREFIX = re.compile(r"^\[[^\]]*\] ")
_ERROR = re.compile(r"error|exception|not authorized|denied|failed", re.I)


def first_error_line(stdout: str, stderr: str) -> str:
    """The line a user would read as the reason: the first one naming an error or exception
    (stack frames aside), stderr before stdout; else the first line at all. A tool's generic
    "Error while executing ... with args ..." says nothing, so the exception after it is
    shown instead."""
    lines = [
        _LOG_PREFIX.sub("", ln.strip())
        for ln in (stderr + "\n" + stdout).splitlines()
        if ln.strip() and not ln.strip().startswith(("at ", "..."))
    ]
    errors = [ln for ln in lines if _ERROR.search(ln)]
    if not errors:
        return lines[0] if lines else "(no output)"
    if " with args " in errors[0]:
        detail = [ln for ln in errors if "Exception" in ln]
        if detail:
            return detail[0]
    return errors[0]


def fill(template: str, ctx: dict[str, str], *, regex: bool = False) -> str:
    # Captured values (a token's base64 HMAC) hold regex characters.
    return template.format(**({k: re.escape(v) for k, v in ctx.items()} if regex else ctx))


def run_step(step: Step, command: list[str], ctx: dict[str, str], work: Path) -> Outcome:
    start = time.monotonic()
    try:
        done = subprocess.run(
            command, input=step.stdin or "", capture_output=True, text=True,
            timeout=TIMEOUT_S, cwd=work,
        )  # fmt: skip
    except subprocess.TimeoutExpired as timed_out:
        note = f"timed out after {TIMEOUT_S}s; " + first_error_line(
            _text(timed_out.stdout), _text(timed_out.stderr)
        )
        return Outcome(None, False, note, time.monotonic() - start, "", "")
    seconds = time.monotonic() - start
    note = ""
    if done.returncode != 0:
        note = first_error_line(done.stdout, done.stderr)
    elif step.expect is not None:
        pattern = fill(step.expect, ctx, regex=True)
        if not re.search(pattern, done.stdout + done.stderr):
            note = f"exit 0 but no /{pattern}/ in the output: " + first_error_line(
                done.stdout, done.stderr
            )
    if done.returncode == 0 and step.capture is not None:
        step.capture(done.stdout, ctx, work)
    return Outcome(done.returncode, not note, note, seconds, done.stdout, done.stderr)


def run_all(target: Target, logs: Path | None) -> Run:
    work = target.workdir
    ctx = {
        "bootstrap": target.sasl,
        "node": str(target.node_id),
        "topic": TOPIC,
        "group": "g1",
        "work": str(work),
        "hmac": "no-token-created",
        "token_id": "no-token-created",
        "to_dir": "no-log-dir-described",
    }
    for user in USERS:
        (work / f"{user}.properties").write_text(client_properties(user))
    log4j = work / "tools-log4j2.properties"
    log4j.write_text(TOOLS_LOG4J2)
    (work / "move.json").write_text(json.dumps({"version": 1, "topics": [{"topic": TOPIC}]}))
    plan = [{"topic": TOPIC, "partition": p, "replicas": [target.node_id]} for p in range(4)]
    (work / "plan.json").write_text(json.dumps({"version": 1, "partitions": plan}))
    cp = kafka_dist.classpath(kafka_dist.KAFKA4)
    run = Run(target)
    for i, step in enumerate(steps(), 1):
        ctx["config"] = str(work / f"{step.user}.properties")
        command = ["java", *TOOL_JVM, f"-Dlog4j2.configurationFile={log4j}", "-cp", cp,
                   step.tool, *(fill(a, ctx) for a in step.args)]  # fmt: skip
        outcome = run_step(step, command, ctx, work)
        run.outcomes.append(outcome)
        if logs is not None:
            # Both brokers' answers side by side, for the rows both pass: exit 0 is not
            # the same output.
            slug = re.sub(r"[^a-z0-9]+", "-", step.label.lower()).strip("-")
            (logs / f"{i:02d}-{slug}.{target.key}.txt").write_text(
                f"$ {' '.join(command[-len(step.args) :])}\nexit {outcome.code}\n"
                f"--- stdout\n{outcome.stdout}--- stderr\n{outcome.stderr}"
            )
        status = "pass" if outcome.passed else "FAIL"
        print(f"[{target.name}] {status} {outcome.code} {outcome.seconds:5.1f}s  {step.label}"
              + (f"  -- {outcome.note}" if outcome.note else ""), flush=True)  # fmt: skip
    return run


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


# The table


def cell(o: Outcome) -> str:
    code = "timeout" if o.code is None else str(o.code)
    return f"{'pass' if o.passed else '**fail**'} ({code})"


def md(text: str, limit: int = 220) -> str:
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("|", "\\|").replace("`", "'")


def report(kafka: Run, ours: Run) -> str:
    labels = [s.label for s in steps()]
    kinds = {"both pass": 0, "Kafka only passes": 0, "ferrolog only passes": 0, "both fail": 0}
    rows, regressions = [], []
    for i, (label, k, f) in enumerate(zip(labels, kafka.outcomes, ours.outcomes, strict=True)):
        kind = {
            (True, True): "both pass",
            (True, False): "Kafka only passes",
            (False, True): "ferrolog only passes",
            (False, False): "both fail",
        }[(k.passed, f.passed)]
        kinds[kind] += 1
        notes = "; ".join(
            f"{side}: {md(o.note)}" for side, o in (("Kafka", k), ("ferrolog", f)) if o.note
        )
        rows.append(f"| {i + 1} | `{label}` | {cell(k)} | {cell(f)} | {notes} |")
        if kind == "Kafka only passes":
            regressions.append(f"- #{i + 1} `{label}`: ferrolog {cell(f)}: {md(f.note)}")
    now = datetime.datetime.now(datetime.UTC)
    return "\n".join([
        "# Apache Kafka 4.4.0's CLI tools: Kafka 4.4 vs ferrolog",
        "",
        f"{now:%Y-%m-%d %H:%M} UTC; `python -m bench.cli_tools_table`. Each command is the "
        "tool's main class from Kafka 4.4.0's jars (what `bin/kafka-*.sh` runs), run as `admin` "
        "(super user) unless the row says alice, over SASL_PLAINTEXT with SCRAM-SHA-256 and "
        "`--command-config`, against a fresh single-node broker of each with two log "
        f"directories and `authorizer.class.name={AUTHORIZER}` (Kafka in KRaft mode, node id "
        f"{kafka.target.node_id}; ferrolog node id {ours.target.node_id}). A pass is exit code "
        "0 and, where the script names one, the expected text in the output; each command "
        f"gets {TIMEOUT_S} s (a timeout is a fail).",
        "",
        ", ".join(f"{kind}: {n}" for kind, n in kinds.items()),
        "",
        "## Kafka passes, ferrolog fails",
        "",
        *(regressions or ["None."]),
        "",
        "## All commands",
        "",
        "| # | command | Kafka 4.4 | ferrolog | note (first error line) |",
        "|---|---|---|---|---|",
        *rows,
        "",
    ])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("bench/results/cli-tools-latest.md"))
    parser.add_argument("--logs", type=Path, help="write each command's output here")
    args = parser.parse_args()
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
    kafka_dist.fetch(kafka_dist.KAFKA4)
    with tempfile.TemporaryDirectory(prefix="cli-tools-kafka-") as kdir:
        proc, target = start_kafka(Path(kdir))
        try:
            kafka = run_all(target, args.logs)
        finally:
            stop(proc)
    with tempfile.TemporaryDirectory(prefix="cli-tools-ferrolog-") as fdir:
        broker, target = start_ferrolog(Path(fdir))
        try:
            ours = run_all(target, args.logs)
        finally:
            broker.close()
    args.out.write_text(report(kafka, ours))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
