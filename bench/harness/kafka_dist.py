"""Apache Kafka's released jars, resolved from Maven Central with Maven into `bench/cache/`.

Only the jars are fetched (not the binary tarball): the broker `kafka_2.13`, the tools jar
(ProducerPerformance, ConsumerPerformance, EndToEndLatency live in `org.apache.kafka.tools`)
and a logging backend, with all their runtime dependencies. A small pom is generated per
version and `mvn dependency:copy-dependencies` copies the closure into `cache/kafka-<v>/libs`;
Kafka Streams (for the tests' Streams applications) likewise into `cache/kafka-streams-<v>/libs`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

CACHE = Path(__file__).resolve().parent.parent / "cache"

KAFKA4 = "4.4.0"
KAFKA3 = "3.9.1"
STREAMS_LIBS = CACHE / f"kafka-streams-{KAFKA4}" / "libs"

# kafka-configs' main class in KAFKA4 (Kafka 4.4 moved it from `kafka.admin` to the tools jar).
CONFIG_COMMAND = "org.apache.kafka.tools.ConfigCommand"

# Kafka 4 logs through log4j2, Kafka 3.9 through reload4j; the broker jar does not pull a
# backend in itself (the tarball ships one), so each version names the one it shipped with.
_LOGGING = {
    "4": [
        ("org.apache.logging.log4j", "log4j-slf4j-impl", "2.24.3"),
        ("org.apache.logging.log4j", "log4j-core", "2.24.3"),
    ],
    "3": [("org.slf4j", "slf4j-reload4j", "1.7.36")],
}

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>ferrolog.bench</groupId>
  <artifactId>{name}</artifactId>
  <version>1</version>
  <dependencies>
{deps}
  </dependencies>
</project>
"""

_DEP = """    <dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version>
    </dependency>"""


def libs_dir(version: str) -> Path:
    return CACHE / f"kafka-{version}" / "libs"


def fetch(version: str) -> Path:
    """The directory holding every jar of `version`, fetched first if it is not cached."""
    coords = [
        ("org.apache.kafka", "kafka_2.13", version),
        ("org.apache.kafka", "kafka-tools", version),
        *_LOGGING[version.split(".")[0]],
    ]
    return _copy_dependencies(f"kafka-jars-{version}", libs_dir(version), coords)


def classpath(version: str) -> str:
    return ":".join(str(p) for p in sorted(fetch(version).glob("*.jar")))


def _copy_dependencies(name: str, libs: Path, coords: list[tuple[str, str, str]]) -> Path:
    """Copies `coords` and their runtime closure into `libs` through a pom (artifact `name`)
    generated next to it; `libs/.complete` marks a finished copy, an unfinished one is done
    again."""
    marker = libs / ".complete"
    if marker.exists():
        return libs
    work = libs.parent
    work.mkdir(parents=True, exist_ok=True)
    deps = "\n".join(_DEP.format(g=g, a=a, v=v) for g, a, v in coords)
    (work / "pom.xml").write_text(_POM.format(name=name, deps=deps))
    if libs.exists():
        shutil.rmtree(libs)
    command = [
        "mvn", "-q", "-B", "-f", str(work / "pom.xml"), "dependency:copy-dependencies",
        "-DincludeScope=runtime", f"-DoutputDirectory={libs}",
    ]  # fmt: skip
    subprocess.run(command, check=True)
    marker.touch()
    return libs


def streams_libs() -> Path:
    """Kafka Streams 4.4 (`kafka-streams` and its runtime closure: kafka-clients, rocksdbjni,
    slf4j-api) in `cache/kafka-streams-<v>/libs`, fetched first if not cached.

    Apart from `fetch()`'s directory on purpose: the brokers and tools never load Streams,
    and rocksdbjni alone is ~70 MB that only the Streams tests want."""
    return _copy_dependencies(
        f"kafka-streams-jars-{KAFKA4}",
        STREAMS_LIBS,
        [("org.apache.kafka", "kafka-streams", KAFKA4)],
    )


def _artifact(jar: Path) -> str:
    """`slf4j-api-2.0.17.jar` -> `slf4j-api`: the file name without its version."""
    return re.sub(r"-\d[^-]*(-[^-]*)?$", "", jar.stem)


def streams_classpath() -> str:
    """Kafka 4.4's classpath (`classpath(KAFKA4)`: clients, tools, the log4j2 backend) with
    Kafka Streams' jars added, for Streams applications under test.

    A jar of both is taken once, Kafka 4.4's copy, matched by its artifact (the file name
    without its version) rather than its whole name: were both `slf4j-api-1.7.36` and a
    Streams-pulled `slf4j-api-2.x` on the path, which one loads would depend on their order."""
    kafka = sorted(fetch(KAFKA4).glob("*.jar"))
    known = {_artifact(p) for p in kafka}
    extra = [p for p in sorted(streams_libs().glob("*.jar")) if _artifact(p) not in known]
    return ":".join(str(p) for p in kafka + extra)


if __name__ == "__main__":
    for v in (KAFKA4, KAFKA3):
        print(v, fetch(v))
    print("streams", KAFKA4, streams_libs())
