"""Apache Kafka's released jars, resolved from Maven Central with Maven into `bench/cache/`.

Only the jars are fetched (not the binary tarball): the broker `kafka_2.13`, the tools jar
(ProducerPerformance, ConsumerPerformance, EndToEndLatency live in `org.apache.kafka.tools`)
and a logging backend, with all their runtime dependencies. A small pom is generated per
version and `mvn dependency:copy-dependencies` copies the closure into `cache/kafka-<v>/libs`.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

CACHE = Path(__file__).resolve().parent.parent / "cache"

KAFKA4 = "4.4.0"
KAFKA3 = "3.9.1"

# kafka-configs' main class in KAFKA4 (Kafka 4.4 moved it from `kafka.admin` to the tools jar).
CONFIG_COMMAND = "org.apache.kafka.tools.ConfigCommand"

# Kafka 4 logs through log4j2, Kafka 3.9 through reload4j; the broker jar does not pull a
# backend in itself (the tarball ships one), so each version names the one it shipped with.
_LOGGING = {
    "4": [("org.apache.logging.log4j", "log4j-slf4j-impl", "2.24.3"),
          ("org.apache.logging.log4j", "log4j-core", "2.24.3")],
    "3": [("org.slf4j", "slf4j-reload4j", "1.7.36")],
}

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>ferrolog.bench</groupId>
  <artifactId>kafka-jars-{version}</artifactId>
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
    libs = libs_dir(version)
    marker = libs / ".complete"
    if marker.exists():
        return libs
    work = libs.parent
    work.mkdir(parents=True, exist_ok=True)
    coords = [("org.apache.kafka", "kafka_2.13", version),
              ("org.apache.kafka", "kafka-tools", version),
              *_LOGGING[version.split(".")[0]]]
    deps = "\n".join(_DEP.format(g=g, a=a, v=v) for g, a, v in coords)
    (work / "pom.xml").write_text(_POM.format(version=version, deps=deps))
    if libs.exists():
        shutil.rmtree(libs)
    subprocess.run(
        ["mvn", "-q", "-B", "-f", str(work / "pom.xml"), "dependency:copy-dependencies",
         "-DincludeScope=runtime", f"-DoutputDirectory={libs}"],
        check=True,
    )
    marker.touch()
    return libs


def classpath(version: str) -> str:
    return ":".join(str(p) for p in sorted(fetch(version).glob("*.jar")))


if __name__ == "__main__":
    for v in (KAFKA4, KAFKA3):
        print(v, fetch(v))
