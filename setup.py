"""Builds the `ferrolog` Python package: the control plane (python/ferrolog, controller/,
spark/) and its Cython extensions. The native core is the separate `ferrolog-native` wheel
built by maturin from native/; install both with `pip install ./native .`."""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

ROOT = Path(__file__).parent

# Import paths -> source folders: users import one package, `ferrolog`.
PACKAGE_DIRS = {
    "ferrolog": "python/ferrolog",
    "ferrolog.controller": "controller",
    "ferrolog.spark": "spark",
}


def find_packages() -> list[str]:
    packages = []
    for name, folder in PACKAGE_DIRS.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT / folder)
            packages.append(".".join([name, *rel.parts]))
    return sorted(set(packages))


# The Python-side protocol codec is one pure-Python source compiled twice: as itself (the twin,
# selected with FERROLOG_PURE_PYTHON=1) and by Cython through a .pyx that includes it.
extensions = cythonize(
    [Extension("ferrolog.protocol._ccodec", ["python/ferrolog/protocol/_ccodec.pyx"])],
    compiler_directives={"language_level": "3"},
    quiet=True,
)

setup(
    name="ferrolog",
    version="0.1.0",
    description="A Kafka-compatible message broker with a native data path",
    license="Apache-2.0",
    python_requires=">=3.11",
    package_dir=PACKAGE_DIRS,
    packages=find_packages(),
    package_data={"ferrolog": ["py.typed", "metrics/grafana-dashboard.json"]},
    ext_modules=extensions,
    install_requires=[
        "ferrolog-native==0.1.0",
        "uvloop>=0.19",
        "kazoo>=2.9",
        # The console tools speak the Kafka protocol through librdkafka, so they work
        # against Apache Kafka as well as ferrolog.
        "confluent-kafka>=2.3",
        "click>=8.1",
        "rich>=13",
        # The Prometheus project's own client writes /metrics' exposition format.
        "prometheus-client>=0.20",
        # `ferrolog fuzz` seals its record batches with Kafka's CRC-32C; crc32c computes it in
        # C and ships wheels.
        "crc32c>=2.4",
        # The SCRAM client of ferrolog's own clients (the Spark reader, the tools) and of the
        # control plane's connections to other brokers over a SASL inter-broker listener: a
        # maintained RFC 5802 implementation, pure Python.
        "scramp>=1.4",
    ],
    extras_require={
        "test": [
            "pytest>=8",
            "pytest-timeout>=2.3",
            "pytest-benchmark>=4",
            # `make test` runs the suite on two workers: most of its time is brokers, JVMs and
            # clients waiting on timers and each other, which a second worker overlaps.
            "pytest-xdist>=3.5",
            "hypothesis>=6.100",
            "kafka-python>=2.2",
            "aiokafka>=0.11",
            # The codecs kafka-python (snappy, zstandard, lz4) and aiokafka (cramjam) need
            # to produce compressed batches in the client tests.
            "python-snappy>=0.7",
            "zstandard>=0.22",
            "lz4>=4",
            "cramjam>=2.8",
            # The TLS tests make their CA, broker and client certificates.
            "cryptography>=42",
            # The failing-disk test (tests/broker/test_disk_eio.py) mounts a FUSE file system
            # whose writes can be made to fail (ferrolog.chaos.failing_disk); fusepy binds
            # libfuse2 through ctypes, so it needs no compiler (Debian's libfuse2 in the
            # Makefile's APT_PACKAGES).
            "fusepy>=3.0.1",
            "ruff>=0.6",
            "mypy>=1.10",
        ],
        # Spark 4.2 brought the read-limit API (maxOffsetsPerTrigger). Pinned to the newest
        # release whose spark-sql-kafka connector is on Maven Central, so that the
        # format("kafka") tests find a matching connector.
        "spark": ["pyspark==4.2.0", "pyarrow>=15"],
        # `ferrolog.secured` and the `ferrolog_secured_broker` fixture make their throwaway
        # CA with it.
        "testing": ["cryptography>=42"],
        # bench/: plots of the side-by-side runs, and the profiler its README uses.
        "bench": ["matplotlib>=3.8", "py-spy>=0.3.14"],
    },
    entry_points={
        "console_scripts": ["ferrolog = ferrolog.cli:main"],
        "pytest11": ["ferrolog = ferrolog.testing"],
    },
    zip_safe=False,
)
