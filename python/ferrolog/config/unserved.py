"""Kafka 4.4's broker properties that ferrolog knows by name, type and default but does not
act on, grouped by why. With the served properties of `table.py` they make the one config
table (`BROKER_CONFIGS`), so a `server.properties` written for Kafka 4.4 never meets an
unknown name, and `kafka-configs --describe --all` lists what Kafka lists.

A group is `refused` when its properties ask for a feature or a promise ferrolog does not
keep (tiered storage, OAUTHBEARER, a per-IP connection limit, a Java plugin): any value but
Kafka's default (or one `accepted` as the same thing) stops the broker at start, and a dynamic
change is refused, with the reason. The other groups tune Kafka's own machinery, which
ferrolog's native core does not have or sizes itself (its JVM threads and buffers, purgatory
purges, the streams group settings of what Kafka 4.4 does not do either): a value is
accepted, listed as given, and logged once at start as having no effect.

Each property is (name, Kafka's type, Kafka's default as DescribeConfigs shows it, dynamic
in Kafka), read from Kafka 4.4.0's `AbstractKafkaConfig.CONFIG_DEF` and
`DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS`; `tests/config/test_kafka_properties.py` reads them
again from the jars and checks this file against them.
"""

from __future__ import annotations

from dataclasses import dataclass

Property = tuple[str, str, str | None, bool]


@dataclass(frozen=True)
class Unserved:
    reason: str
    refused: bool
    properties: tuple[Property, ...]
    # Values other than the default that mean what ferrolog does (a refused group accepts them).
    accepted: tuple[str, ...] = ()


# fmt: off
UNSERVED: tuple[Unserved, ...] = (
    Unserved(
        "KRaft's metadata quorum: ferrolog has none (its controller runs on ZooKeeper, or alone "
        "on one node)",
        refused=False,
        properties=(
            ('broker.heartbeat.interval.ms', 'INT', '2000', False),
            ('broker.session.timeout.ms', 'INT', '9000', False),
            ('controller.performance.always.log.threshold.ms', 'LONG', '2000', False),
            ('controller.performance.sample.period.ms', 'LONG', '60000', False),
            ('controller.quorum.append.linger.ms', 'INT', '25', False),
            ('controller.quorum.auto.join.enable', 'BOOLEAN', 'false', False),
            ('controller.quorum.election.backoff.max.ms', 'INT', '1000', False),
            ('controller.quorum.election.timeout.ms', 'INT', '1000', False),
            ('controller.quorum.fetch.max.bytes', 'INT', '1048576', False),
            ('controller.quorum.fetch.snapshot.max.bytes', 'INT', '1048576', False),
            ('controller.quorum.fetch.timeout.ms', 'INT', '2000', False),
            ('controller.quorum.request.timeout.ms', 'INT', '2000', False),
            ('controller.quorum.retry.backoff.ms', 'INT', '20', False),
            ('early.start.listeners', 'LIST', None, False),
            ('initial.broker.registration.timeout.ms', 'INT', '60000', False),
            ('internal.metadata.delete.delay.millis', 'LONG', '60000', False),
            ('internal.metadata.log.segment.bytes', 'INT', None, False),
            ('internal.metadata.max.batch.size.in.bytes', 'INT', '8388608', False),
            ('metadata.log.dir', 'STRING', None, False),
            ('metadata.log.max.record.bytes.between.snapshots', 'LONG', '20971520', False),
            ('metadata.log.max.snapshot.interval.ms', 'LONG', '3600000', False),
            ('metadata.log.segment.bytes', 'INT', '1073741824', False),
            ('metadata.log.segment.ms', 'LONG', '604800000', False),
            ('metadata.max.idle.interval.ms', 'INT', '500', False),
            ('metadata.max.retention.bytes', 'LONG', '104857600', False),
            ('metadata.max.retention.ms', 'LONG', '604800000', False),
            ('sasl.mechanism.controller.protocol', 'STRING', 'GSSAPI', False),
            ('server.max.startup.time.ms', 'LONG', '9223372036854775807', False),
        ),
    ),
    Unserved(
        'tiered storage (KIP-405) is not built: every log is kept on local disk',
        refused=True,
        properties=(
            ('follower.fetch.last.tiered.offset.enable', 'BOOLEAN', 'false', True),
            ('log.local.retention.bytes', 'LONG', '-2', True),
            ('log.local.retention.ms', 'LONG', '-2', True),
            ('log.remote.copy.lag.bytes', 'LONG', '-1', True),
            ('log.remote.copy.lag.ms', 'LONG', '0', True),
            ('remote.fetch.max.wait.ms', 'INT', '500', True),
            ('remote.list.offsets.request.timeout.ms', 'LONG', '30000', True),
            ('remote.log.index.file.cache.total.size.bytes', 'LONG', '1073741824', True),
            ('remote.log.index.file.cache.ttl.ms', 'LONG', '900000', False),
            ('remote.log.manager.copier.thread.pool.size', 'INT', '10', True),
            ('remote.log.manager.copy.max.bytes.per.second', 'LONG', '9223372036854775807', True),
            ('remote.log.manager.copy.quota.window.num', 'INT', '11', False),
            ('remote.log.manager.copy.quota.window.size.seconds', 'INT', '1', False),
            ('remote.log.manager.expiration.thread.pool.size', 'INT', '10', True),
            ('remote.log.manager.fetch.max.bytes.per.second', 'LONG', '9223372036854775807', True),
            ('remote.log.manager.fetch.quota.window.num', 'INT', '11', False),
            ('remote.log.manager.fetch.quota.window.size.seconds', 'INT', '1', False),
            ('remote.log.manager.follower.thread.pool.size', 'INT', '2', True),
            ('remote.log.manager.task.interval.ms', 'LONG', '30000', False),
            ('remote.log.manager.task.retry.backoff.max.ms', 'LONG', '30000', False),
            ('remote.log.manager.task.retry.backoff.ms', 'LONG', '500', False),
            ('remote.log.manager.task.retry.jitter', 'DOUBLE', '0.2', False),
            ('remote.log.manager.thread.pool.size', 'INT', '2', False),
            ('remote.log.metadata.custom.metadata.max.bytes', 'INT', '128', False),
            (
                'remote.log.metadata.manager.class.name',
                'STRING',
                'org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager',
                False,
            ),
            ('remote.log.metadata.manager.class.path', 'STRING', None, False),
            ('remote.log.metadata.manager.impl.prefix', 'STRING', 'rlmm.config.', False),
            ('remote.log.metadata.manager.listener.name', 'STRING', None, False),
            ('remote.log.reader.max.pending.tasks', 'INT', '100', False),
            ('remote.log.reader.threads', 'INT', '10', True),
            ('remote.log.storage.manager.class.name', 'STRING', None, False),
            ('remote.log.storage.manager.class.path', 'STRING', None, False),
            ('remote.log.storage.manager.impl.prefix', 'STRING', 'rsm.config.', False),
            ('remote.log.storage.system.enable', 'BOOLEAN', 'false', False),
        ),
    ),
    Unserved(
        'a Java class or provider: ferrolog loads no Java plugins',
        refused=True,
        properties=(
            ('alter.config.policy.class.name', 'CLASS', None, False),
            ('client.quota.callback.class', 'CLASS', None, False),
            ('config.providers', 'LIST', '', True),
            ('create.topic.policy.class.name', 'CLASS', None, False),
            (
                'group.share.dlq.manager.class.name',
                'STRING',
                'org.apache.kafka.server.share.dlq.DefaultShareGroupDLQManager',
                False,
            ),
            (
                'group.share.persister.class.name',
                'STRING',
                'org.apache.kafka.server.share.persister.DefaultStatePersister',
                False,
            ),
            ('group.streams.topology.description.plugin.class', 'CLASS', None, False),
            ('kafka.metrics.reporters', 'LIST', '', False),
            ('metric.reporters', 'LIST', 'org.apache.kafka.common.metrics.JmxReporter', True),
            (
                'principal.builder.class',
                'CLASS',
                'org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder',
                True,
            ),
            ('replica.selector.class', 'STRING', None, False),
            ('sasl.client.callback.handler.class', 'CLASS', None, False),
            ('sasl.login.callback.handler.class', 'CLASS', None, False),
            ('sasl.login.class', 'CLASS', None, False),
            ('sasl.server.callback.handler.class', 'CLASS', None, False),
            ('security.providers', 'STRING', None, False),
            ('ssl.engine.factory.class', 'CLASS', None, True),
        ),
    ),
    Unserved(
        "SASL's GSSAPI and OAUTHBEARER mechanisms and re-authentication (KIP-368) are not served: "
        "PLAIN and SCRAM are",
        refused=True,
        properties=(
            ('connections.max.reauth.ms', 'LONG', '0', False),
            ('sasl.kerberos.kinit.cmd', 'STRING', '/usr/bin/kinit', True),
            ('sasl.kerberos.min.time.before.relogin', 'LONG', '60000', True),
            ('sasl.kerberos.principal.to.local.rules', 'LIST', 'DEFAULT', True),
            ('sasl.kerberos.service.name', 'STRING', None, True),
            ('sasl.kerberos.ticket.renew.jitter', 'DOUBLE', '0.05', True),
            ('sasl.kerberos.ticket.renew.window.factor', 'DOUBLE', '0.8', True),
            ('sasl.login.connect.timeout.ms', 'INT', None, False),
            ('sasl.login.read.timeout.ms', 'INT', None, False),
            ('sasl.login.refresh.buffer.seconds', 'SHORT', '300', True),
            ('sasl.login.refresh.min.period.seconds', 'SHORT', '60', True),
            ('sasl.login.refresh.window.factor', 'DOUBLE', '0.8', True),
            ('sasl.login.refresh.window.jitter', 'DOUBLE', '0.05', True),
            ('sasl.login.retry.backoff.max.ms', 'LONG', '10000', False),
            ('sasl.login.retry.backoff.ms', 'LONG', '100', False),
            ('sasl.oauthbearer.allow.unverified.audience', 'BOOLEAN', 'false', False),
            ('sasl.oauthbearer.allow.unverified.issuer', 'BOOLEAN', 'false', False),
            ('sasl.oauthbearer.assertion.algorithm', 'STRING', 'RS256', False),
            ('sasl.oauthbearer.assertion.claim.aud', 'STRING', None, False),
            ('sasl.oauthbearer.assertion.claim.exp.seconds', 'INT', '300', False),
            ('sasl.oauthbearer.assertion.claim.iss', 'STRING', None, False),
            ('sasl.oauthbearer.assertion.claim.jti.include', 'BOOLEAN', 'false', False),
            ('sasl.oauthbearer.assertion.claim.nbf.seconds', 'INT', '60', False),
            ('sasl.oauthbearer.assertion.claim.sub', 'STRING', None, False),
            ('sasl.oauthbearer.assertion.file', 'STRING', None, False),
            ('sasl.oauthbearer.assertion.private.key.file', 'STRING', None, False),
            ('sasl.oauthbearer.assertion.private.key.passphrase', 'PASSWORD', None, False),
            ('sasl.oauthbearer.assertion.template.file', 'STRING', None, False),
            ('sasl.oauthbearer.client.credentials.client.id', 'STRING', None, False),
            ('sasl.oauthbearer.client.credentials.client.secret', 'PASSWORD', None, False),
            ('sasl.oauthbearer.clock.skew.seconds', 'INT', '30', False),
            ('sasl.oauthbearer.expected.audience', 'LIST', '', False),
            ('sasl.oauthbearer.expected.issuer', 'STRING', None, False),
            ('sasl.oauthbearer.jwks.endpoint.refresh.ms', 'LONG', '3600000', False),
            ('sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms', 'LONG', '10000', False),
            ('sasl.oauthbearer.jwks.endpoint.retry.backoff.ms', 'LONG', '100', False),
            ('sasl.oauthbearer.jwks.endpoint.url', 'STRING', None, False),
            (
                'sasl.oauthbearer.jwt.retriever.class',
                'CLASS',
                'org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever',
                False,
            ),
            (
                'sasl.oauthbearer.jwt.validator.class',
                'CLASS',
                'org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator',
                False,
            ),
            ('sasl.oauthbearer.scope', 'STRING', None, False),
            ('sasl.oauthbearer.scope.claim.name', 'STRING', 'scope', False),
            ('sasl.oauthbearer.sub.claim.name', 'STRING', 'sub', False),
            ('sasl.oauthbearer.token.endpoint.url', 'STRING', None, False),
        ),
    ),
    Unserved(
        "JSSE's names: ferrolog's TLS is rustls, with its own cipher suites and certificate checks",
        refused=True,
        properties=(
            ('ssl.allow.dn.changes', 'BOOLEAN', 'false', False),
            ('ssl.allow.san.changes', 'BOOLEAN', 'false', False),
            ('ssl.cipher.suites', 'LIST', '', True),
            ('ssl.keymanager.algorithm', 'STRING', 'SunX509', True),
            ('ssl.provider', 'STRING', None, True),
            ('ssl.secure.random.implementation', 'STRING', None, True),
            ('ssl.trustmanager.algorithm', 'STRING', 'PKIX', True),
        ),
    ),
    Unserved(
        'two-phase commit (KIP-939) is not served yet',
        refused=True,
        properties=(
            ('transaction.two.phase.commit.enable', 'BOOLEAN', 'false', False),
        ),
    ),
    Unserved(
        'a limit the native core does not enforce yet',
        refused=True,
        properties=(
            ('log.cleaner.io.max.bytes.per.second', 'DOUBLE', '1.7976931348623157E308', True),
            ('unstable.api.versions.enable', 'BOOLEAN', 'false', False),
        ),
    ),
    Unserved(
        "the broker recompresses at each codec's default level (zlib 6, zstd 3, lz4's fast mode)",
        refused=True,
        properties=(
            ('compression.gzip.level', 'INT', '-1', True),
            ('compression.lz4.level', 'INT', '9', True),
            ('compression.zstd.level', 'INT', '3', True),
        ),
    ),
    Unserved(
        "the native core bounds a batch's decompressed records at 64 MiB, whatever this says",
        refused=True,
        properties=(
            ('max.decompressed.message.bytes', 'INT', '2147483639', True),
        ),
    ),
    Unserved(
        "share groups' machinery that ferrolog does not have (KIP-932): the assignor's offload, "
        "the share coordinator's threads, buffers and cold snapshots, the fetch purgatory",
        refused=False,
        properties=(
            ('group.share.assignor.offload.enable', 'BOOLEAN', 'true', True),
            ('share.coordinator.append.linger.ms', 'INT', '-1', False),
            ('share.coordinator.cached.buffer.max.bytes', 'INT', '1048588', True),
            ('share.coordinator.cold.partition.snapshot.interval.ms', 'INT', '300000', False),
            ('share.coordinator.load.buffer.size', 'INT', '5242880', False),
            ('share.coordinator.state.topic.compression.codec', 'INT', '0', False),
            ('share.coordinator.threads', 'INT', '1', False),
            ('share.coordinator.write.timeout.ms', 'INT', '5000', False),
            ('share.fetch.purgatory.purge.interval.requests', 'INT', '1000', False),
        ),
    ),
    Unserved(
        'streams group settings of what Kafka 4.4 does not do either (warm-up tasks, rack-aware '
        'standbys in its sticky assignor, offloading the assignor, dead-letter queues)',
        refused=False,
        properties=(
            ('errors.deadletterqueue.auto.create.topics.enable', 'BOOLEAN', 'false', True),
            ('errors.deadletterqueue.topic.name.prefix', 'STRING', 'dlq.', True),
            ('group.streams.assignor.offload.enable', 'BOOLEAN', 'true', True),
            ('group.streams.max.warmup.replicas', 'INT', '20', False),
            ('group.streams.num.warmup.replicas', 'INT', '2', False),
            ('group.streams.rack.aware.assignment.tags', 'LIST', '', False),
        ),
    ),
    Unserved(
        "ferrolog's quotas of every kind keep quota.window.num windows of "
        "quota.window.size.seconds",
        refused=False,
        properties=(
            ('alter.log.dirs.replication.quota.window.num', 'INT', '11', False),
            ('alter.log.dirs.replication.quota.window.size.seconds', 'INT', '1', False),
            ('controller.quota.window.num', 'INT', '11', False),
            ('controller.quota.window.size.seconds', 'INT', '1', False),
            ('replication.quota.window.num', 'INT', '11', False),
            ('replication.quota.window.size.seconds', 'INT', '1', False),
        ),
    ),
    Unserved(
        "a thread or buffer of Kafka's JVM: ferrolog's native core sizes its own (num.io.threads, "
        "num.network.threads)",
        refused=False,
        properties=(
            ('background.threads', 'INT', '10', True),
            ('delete.records.purgatory.purge.interval.requests', 'INT', '1', False),
            ('fetch.purgatory.purge.interval.requests', 'INT', '1000', False),
            ('group.coordinator.append.linger.ms', 'INT', '-1', False),
            ('group.coordinator.background.threads', 'INT', '2', False),
            ('group.coordinator.cached.buffer.max.bytes', 'INT', '1048588', True),
            ('group.coordinator.threads', 'INT', '4', False),
            ('log.cleaner.backoff.ms', 'LONG', '15000', True),
            ('log.cleaner.dedupe.buffer.size', 'LONG', '134217728', True),
            ('log.cleaner.io.buffer.load.factor', 'DOUBLE', '0.9', True),
            ('log.cleaner.io.buffer.size', 'INT', '524288', True),
            ('log.cleaner.threads', 'INT', '1', True),
            ('num.replica.alter.log.dirs.threads', 'INT', None, False),
            ('num.replica.fetchers', 'INT', '1', True),
            ('offsets.load.buffer.size', 'INT', '5242880', False),
            ('producer.purgatory.purge.interval.requests', 'INT', '1000', False),
            ('replica.socket.receive.buffer.bytes', 'INT', '65536', False),
            ('socket.listen.backlog.size', 'INT', '50', False),
            ('socket.receive.buffer.bytes', 'INT', '102400', False),
            ('socket.send.buffer.bytes', 'INT', '102400', False),
            ('transaction.state.log.load.buffer.size', 'INT', '5242880', False),
        ),
    ),
    Unserved(
        "a timer of Kafka's own machinery, which ferrolog's does not have",
        refused=False,
        properties=(
            ('add.partitions.to.txn.retry.backoff.max.ms', 'INT', '100', False),
            ('add.partitions.to.txn.retry.backoff.ms', 'INT', '20', False),
            ('controller.socket.timeout.ms', 'INT', '30000', False),
            ('group.consumer.assignment.interval.ms', 'INT', '1000', True),
            ('group.consumer.assignor.offload.enable', 'BOOLEAN', 'true', True),
            ('group.consumer.max.assignment.interval.ms', 'INT', '15000', False),
            ('group.consumer.min.assignment.interval.ms', 'INT', '0', False),
            ('group.consumer.regex.refresh.interval.ms', 'INT', '600000', False),
            ('kafka.metrics.polling.interval.secs', 'INT', '10', False),
            ('leader.imbalance.check.interval.seconds', 'LONG', '300', False),
            ('log.dir.failure.timeout.ms', 'LONG', '30000', False),
            ('log.flush.start.offset.checkpoint.interval.ms', 'INT', '60000', False),
            ('log.initial.task.delay.ms', 'LONG', '30000', False),
            ('metrics.num.samples', 'INT', '2', False),
            ('metrics.recording.level', 'STRING', 'INFO', False),
            ('metrics.sample.window.ms', 'LONG', '30000', False),
            ('producer.id.expiration.check.interval.ms', 'INT', '600000', False),
            ('replica.high.watermark.checkpoint.interval.ms', 'LONG', '5000', False),
            ('request.timeout.ms', 'INT', '30000', False),
            ('socket.connection.setup.timeout.max.ms', 'LONG', '30000', False),
            ('socket.connection.setup.timeout.ms', 'LONG', '10000', False),
            ('unclean.leader.election.interval.ms', 'LONG', '300000', False),
        ),
    ),
    Unserved(
        'the log cleaner always runs: compacted topics, __consumer_offsets among them, need it',
        refused=False,
        properties=(
            ('log.cleaner.enable', 'BOOLEAN', 'true', False),
        ),
    ),
    Unserved(
        "the controller moves leaders back to their preferred replica only when asked (kafka-"
        "leader-election)",
        refused=False,
        properties=(
            ('auto.leader.rebalance.enable', 'BOOLEAN', 'true', False),
        ),
    ),
    Unserved(
        'internal topics are written uncompressed',
        refused=False,
        properties=(
            ('offsets.topic.compression.codec', 'INT', '0', False),
        ),
    ),
    Unserved(
        'client telemetry (KIP-714) is not served',
        refused=False,
        properties=(
            ('telemetry.max.bytes', 'INT', '1048576', False),
        ),
    ),
    Unserved(
        "cordoning log directories (KIP-1066) is KRaft's: ferrolog places new partitions on every "
        "log directory",
        refused=False,
        properties=(
            ('cordoned.log.dirs', 'LIST', '', True),
        ),
    ),
    Unserved(
        'ferrolog serves the classic and consumer protocols whatever this says (streams not yet)',
        refused=True,
        properties=(
            ('group.coordinator.rebalance.protocols', 'LIST', 'classic,consumer,streams', False),
        ),
        accepted=('classic,consumer', 'consumer,classic'),
    ),
)
# fmt: on
