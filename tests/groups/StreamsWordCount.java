// A Kafka Streams 4.4 word count, for tests/groups/test_streams_java.py: lines of the input
// topic are split on spaces, grouped by word (through a repartition topic) and counted into an
// in-memory store named "counts" (logged to a changelog topic); every new count goes to the
// output topic as <word, count> with a Long value. The store is in memory so that RocksDB's
// native library, though on the classpath, is never loaded.
//
// It prints "PROCESS <Streams' process id>" once started, "STATE <new state>" on each state
// change of the KafkaStreams client and "RUNNING" when it becomes RUNNING. It runs until
// killed: SIGTERM closes it (leaving the group, within 30 s) and it exits 0; if a stream thread
// dies, the client shuts down, the exception goes to stderr and it exits 1.
//
// Run as a single-file source program: java -cp <kafka and streams jars> StreamsWordCount.java
//   <bootstrap> <application.id> <input topic> <output topic> <state dir>
//   [<streams property>=<value> ...]   (group.protocol=streams, processing.guarantee=..., ...)

import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.Stores;

import sun.misc.Signal;

public class StreamsWordCount {
    public static void main(String[] args) throws InterruptedException {
        String bootstrap = args[0];
        String applicationId = args[1];
        String input = args[2];
        String output = args[3];
        String stateDir = args[4];
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        // Any store the DSL would make itself is in memory too: none here, but no RocksDB ever.
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                  BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class);
        for (int i = 5; i < args.length; i++) {
            String[] property = args[i].split("=", 2);
            props.put(property[0], property[1]);
        }

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
            .flatMapValues(line -> Arrays.asList(line.split(" ")))
            .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
            .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts"))
                   .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        // Counted down by SIGTERM, or when the client stops on its own (ERROR, NOT_RUNNING).
        CountDownLatch stop = new CountDownLatch(1);
        boolean[] failed = {false};
        streams.setStateListener((now, before) -> {
            System.out.println("STATE " + now);
            if (now == KafkaStreams.State.RUNNING) {
                System.out.println("RUNNING");
            }
            System.out.flush();
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                stop.countDown();
            }
        });
        streams.setUncaughtExceptionHandler(exception -> {
            System.err.println("stream thread died:");
            exception.printStackTrace();
            failed[0] = true;
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        // A signal handler rather than a shutdown hook: the JVM exits 143 after SIGTERM's hooks,
        // and a clean stop should say 0.
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        streams.start();
        // Streams' process id names this instance's transactional ids ("<application.id>-
        // <process id>-<thread>"); it shows in a thread's consumer client id,
        // "<application.id>-<process id>-StreamThread-1-consumer" (client.id left to Streams).
        try {
            String consumer =
                streams.metadataForLocalThreads().iterator().next().consumerClientId();
            System.out.println("PROCESS " + consumer.substring(applicationId.length() + 1,
                                                              consumer.indexOf("-StreamThread-")));
            System.out.flush();
        } catch (IllegalStateException notRunning) {
            // Already failed: the state listener and the exception handler say why.
        }
        stop.await();
        boolean died = failed[0] || streams.state() == KafkaStreams.State.ERROR
            || streams.state() == KafkaStreams.State.PENDING_ERROR;
        // Leaving the group at once (not after the session timeout) lets a test see the group
        // empty as soon as the last instance has stopped.
        boolean closed = streams.close(CloseOptions.timeout(Duration.ofSeconds(30))
            .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        System.out.flush();
        if (died) {
            System.exit(1);
        }
        if (!closed) {
            System.err.println("not closed within 30 s");
            System.exit(2);
        }
    }
}
