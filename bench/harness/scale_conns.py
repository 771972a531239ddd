"""The scale scenario's connection phase: many idle client connections and many active
producers on one broker, with the broker's memory per connection.

A fresh broker gets a topic of `PARTITIONS` partitions. Then `idle` raw TCP connections are
opened (at most `CONNECT_CONCURRENCY` connecting at a time, so a listen backlog of Kafka's
default 50 is not what is measured), each sending one ApiVersions v3 request and reading its
answer: real Kafka connections that then stay idle. Then `producers` librdkafka producers
(`PER_WORKER` to a process) each send one 100 B acks=all record per second for `seconds`.
Afterwards every idle connection sends ApiVersions again (the broker must not have dropped
one), and the topic must hold every acknowledged record. Errors of any kind (connect or
request failures, closed connections, delivery failures, librdkafka error callbacks) are
counted; there must be none.

Broker memory: RSS with the topic only, with the idle connections, and with the producers
too; per connection it is the RSS delta over the delta of the broker's open sockets
(/proc/<pid>/fd). The clients run as their own processes (`python -m bench.harness.scale_conns
idle|producers ...`), so their descriptors and threads are not the harness's."""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import struct
import subprocess
import sys
import threading
import time
from typing import Any

from confluent_kafka import KafkaError, Producer

from bench.harness import procstat, runner, scale, workloads
from bench.harness.brokers import Broker

TOPIC = "scale-conns"
PARTITIONS = 100
PER_WORKER = 100
CONNECT_CONCURRENCY = 32
# What the harness asks for (and its children inherit): 10,000 connections on one side plus
# the broker's own files need more than the usual 1,024 or 20,000.
FD_LIMIT = 200_000

_API_VERSIONS = 18


def raise_fd_limit(want: int = FD_LIMIT) -> tuple[int, int]:
    """RLIMIT_NOFILE as high as `want` (the hard limit too when the process may raise it);
    returns the (soft, hard) limits now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), max(hard, want)))
    except (ValueError, OSError):  # not privileged: the soft limit up to the hard one
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(want, hard)), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def api_versions_request(correlation_id: int) -> bytes:
    """An ApiVersions v3 request (header v2, flexible body), size-prefixed."""
    client = b"flbench-idle"
    header = struct.pack(">hhih", _API_VERSIONS, 3, correlation_id, len(client)) + client + b"\0"
    name, version = b"flbench", b"1"
    body = bytes([len(name) + 1]) + name + bytes([len(version) + 1]) + version + b"\0"
    frame = header + body
    return struct.pack(">i", len(frame)) + frame


def api_versions_error(correlation_id: int, response: bytes) -> str | None:
    """None if `response` (without its size prefix) answers `correlation_id` with no error;
    else what is wrong with it."""
    if len(response) < 6:
        return f"short response ({len(response)} bytes)"
    corr, code = struct.unpack_from(">ih", response)
    if corr != correlation_id:
        return f"correlation id {corr}, expected {correlation_id}"
    return None if code == 0 else f"error code {code}"


async def _ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, corr: int) -> None:
    writer.write(api_versions_request(corr))
    await writer.drain()
    size = struct.unpack(">i", await reader.readexactly(4))[0]
    problem = api_versions_error(corr, await reader.readexactly(size))
    if problem is not None:
        raise RuntimeError(problem)


Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _open_all(host: str, port: int, count: int) -> tuple[list[Conn], list[str]]:
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)

    async def one(i: int) -> Conn:
        async with gate:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 30)
            await asyncio.wait_for(_ask(reader, writer, i), 30)
            return reader, writer

    results = await asyncio.gather(*(one(i) for i in range(count)), return_exceptions=True)
    conns = [r for r in results if not isinstance(r, BaseException)]
    errors = [repr(r) for r in results if isinstance(r, BaseException)]
    return conns, errors


async def _check_all(conns: list[Conn]) -> list[str]:
    gate = asyncio.Semaphore(256)

    async def one(i: int, conn: Conn) -> None:
        async with gate:
            await asyncio.wait_for(_ask(*conn, 1_000_000 + i), 30)

    results = await asyncio.gather(*(one(i, c) for i, c in enumerate(conns)),
                                   return_exceptions=True)
    return [repr(r) for r in results if isinstance(r, BaseException)]


async def idle_client(bootstrap: str, count: int) -> None:
    """Opens `count` connections and reports; on "check" asks every one again and reports;
    closes them all at the end of its input."""
    host, port = bootstrap.rsplit(":", 1)
    loop = asyncio.get_running_loop()
    start = time.monotonic()
    conns, errors = await _open_all(host, int(port), count)
    print(json.dumps({"opened": len(conns), "errors": len(errors), "samples": errors[:5],
                      "seconds": time.monotonic() - start}), flush=True)
    while (await loop.run_in_executor(None, sys.stdin.readline)).strip() == "check":
        errors = await _check_all(conns)
        print(json.dumps({"answered": len(conns) - len(errors), "errors": len(errors),
                          "samples": errors[:5]}), flush=True)
    for _, writer in conns:
        writer.close()


def producers_worker(bootstrap: str, first: int, count: int, seconds: float) -> dict[str, Any]:
    """`count` producers, each acknowledged once (then READY is printed and "go" awaited),
    then each sending one record a second for `seconds`."""
    errors: list[str] = []
    acked = failed = 0

    def on_error(err: KafkaError) -> None:
        errors.append(f"error_cb: {err}")

    def on_delivery(err: Any, _msg: Any) -> None:
        nonlocal acked, failed
        if err is None:
            acked += 1
        else:
            failed += 1
            errors.append(f"delivery: {err}")

    producers = [Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                           "message.timeout.ms": 120_000, "error_cb": on_error,
                           "log_level": 0}) for _ in range(count)]
    value = b"x" * 100

    def send(i: int) -> None:
        producers[i].produce(TOPIC, value, partition=(first + i) % PARTITIONS,
                             on_delivery=on_delivery)

    for i in range(count):
        send(i)
    deadline = time.monotonic() + 120
    while acked + failed < count and time.monotonic() < deadline:
        for p in producers:
            p.poll(0)
        time.sleep(0.01)
    print("READY", flush=True)
    sys.stdin.readline()  # "go": every worker's producers start together
    start = time.monotonic()
    sent = count
    rounds = int(seconds)
    while (elapsed := time.monotonic() - start) < seconds:
        # One record per producer per second, the producers spread over the second.
        due = min(count * rounds, int(elapsed * count))
        while sent - count < due:
            send((sent - count) % count)
            sent += 1
        for p in producers:
            p.poll(0)
        time.sleep(0.005)
    left = sum(p.flush(60) for p in producers)
    return {"producers": count, "sent": sent, "acked": acked, "failed": failed,
            "undelivered": left, "errors": len(errors), "samples": errors[:5]}


def _readline(proc: subprocess.Popen[str], what: str, timeout: float) -> str:
    """The client's next line of output; an error naming `what` if none comes in time."""
    line: list[str] = []
    assert proc.stdout is not None
    stdout = proc.stdout
    reader = threading.Thread(target=lambda: line.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    if not line or not line[0]:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        err = proc.stderr.read()[-500:] if proc.stderr else ""
        raise RuntimeError(f"{what}: no answer in {timeout}s (exit {proc.returncode}): {err}")
    return line[0].strip()


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "bench.harness.scale_conns", *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=workloads.REPO)


def _say(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def _rss(broker: Broker) -> float:
    return procstat.rss_bytes(broker.pid) / 1e6


def run(broker: Broker, idle: int, producers: int, seconds: float) -> dict[str, Any]:
    """The connection phase against one broker; the figures, error counts and samples."""
    out: dict[str, Any] = {"startup": runner.start_broker(broker)}
    workloads.create_topic(broker.bootstrap, TOPIC, PARTITIONS)
    time.sleep(2)
    out["rss_base_mb"], base_sockets = _rss(broker), scale.open_sockets(broker.pid)
    clients: list[subprocess.Popen[str]] = []
    try:
        idler = _spawn("idle", "--bootstrap", broker.bootstrap, "--count", str(idle))
        clients.append(idler)
        opened = json.loads(_readline(idler, "idle client", 600))
        out["idle_connect_s"] = opened["seconds"]
        time.sleep(2)
        out["rss_idle_mb"], idle_sockets = _rss(broker), scale.open_sockets(broker.pid)
        out["idle_connections"] = idle_sockets - base_sockets

        meter = procstat.Meter(broker.pid)
        workers = [_spawn("producers", "--bootstrap", broker.bootstrap, "--first", str(first),
                          "--count", str(min(PER_WORKER, producers - first)),
                          "--seconds", str(seconds))
                   for first in range(0, producers, PER_WORKER)]
        clients += workers
        for w in workers:
            _readline(w, "producers", 300)
        for w in workers:
            _say(w, "go")
        time.sleep(seconds / 2)
        out["rss_active_mb"], active_sockets = _rss(broker), scale.open_sockets(broker.pid)
        out["producer_connections"] = active_sockets - idle_sockets
        results = []
        for w in workers:
            results.append(json.loads(_readline(w, "producers", seconds + 300)))
        cpu, peak = meter.read()
        out["cpu_s"], out["peak_rss_mb"] = cpu, peak / 1e6

        _say(idler, "check")
        checked = json.loads(_readline(idler, "idle check", 600))
    finally:
        for c in clients:
            if c.stdin is not None:
                c.stdin.close()
            try:
                c.wait(timeout=60)
            except subprocess.TimeoutExpired:
                c.kill()
                c.wait()
            for stream in (c.stdout, c.stderr):
                if stream is not None:
                    stream.close()

    acked = sum(r["acked"] for r in results)
    out["records_acked"] = acked
    stored = scale.stored_records(broker.bootstrap, scale.partitions_of({TOPIC: PARTITIONS}),
                                  120)
    if stored < acked:
        raise scale.LostRecords(f"LOST: {TOPIC} holds {stored} records, {acked} acknowledged")
    out["idle_errors"] = opened["errors"] + checked["errors"] + (idle - opened["opened"])
    out["producer_errors"] = sum(r["errors"] + r["undelivered"] for r in results)
    out["errors"] = out["idle_errors"] + out["producer_errors"]
    samples = opened["samples"] + checked["samples"] + [s for r in results for s in r["samples"]]
    if samples:
        out["error_samples"] = samples[:10]
    if out["errors"]:
        out["broker_log"] = broker.log_tail(40)
    if out["idle_connections"] > 0:
        out["rss_per_idle_connection_kb"] = \
            (out["rss_idle_mb"] - out["rss_base_mb"]) * 1000 / out["idle_connections"]
    if out["producer_connections"] > 0:
        out["rss_per_producer_connection_kb"] = \
            (out["rss_active_mb"] - out["rss_idle_mb"]) * 1000 / out["producer_connections"]
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["idle", "producers"])
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--seconds", type=float, default=30)
    a = p.parse_args()
    raise_fd_limit()
    if a.mode == "idle":
        asyncio.run(idle_client(a.bootstrap, a.count))
    else:
        print(json.dumps(producers_worker(a.bootstrap, a.first, a.count, a.seconds)), flush=True)


if __name__ == "__main__":
    main()
