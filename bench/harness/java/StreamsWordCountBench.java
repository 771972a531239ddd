// The word count of tests/groups/StreamsWordCount.java (lines split on spaces, repartitioned
// by word, counted into an in-memory store "counts" logged to a changelog, every count sent to
// the output topic as <word, Long>), made to be timed by bench/streams_bench.py: the words are
// counted just after the repartition topic (a peek before the count, in the same task), so the
// app itself says when the last expected word has reached the store. The output alone cannot
// say it in time: the store's cache sends counts on commit only, every 30 s under
// at_least_once's default commit.interval.ms.
//
// The repartition is explicit (selectKey, then repartition) where the test app's groupBy makes
// it implicitly: the same two subtopologies and topics, with a place for the peek.
//
// Prints, each with System.nanoTime() (CLOCK_MONOTONIC on Linux, Python's time.monotonic_ns):
//   STARTED <ns>          just before KafkaStreams.start()
//   STATE <state> <ns>    on every state change of the client
//   COUNTED <ns>          when the words counted reach <expected words>
//   PEEKED <n>            on SIGTERM: words counted in all (more than expected: reprocessing)
// SIGTERM closes the client (leaving the group) and exits.
//
// Usage (Java's single-file source launcher, Kafka 4.4 and Kafka Streams' jars on the path):
//   java -cp <jars> StreamsWordCountBench.java <bootstrap> <application.id> <input topic>
//       <output topic> <state dir> <expected words> [<streams property>=<value> ...]

import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.Stores;

public class StreamsWordCountBench {
    public static void main(String[] args) {
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                  BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class);
        for (int i = 6; i < args.length; i++) {
            String[] property = args[i].split("=", 2);
            props.put(property[0], property[1]);
        }
        long expected = Long.parseLong(args[5]);
        AtomicLong counted = new AtomicLong();

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args[2], Consumed.with(Serdes.String(), Serdes.String()))
            .flatMapValues(line -> Arrays.asList(line.split(" ")))
            .selectKey((key, word) -> word)
            .repartition(Repartitioned.with(Serdes.String(), Serdes.String()).withName("words"))
            .peek((word, unused) -> {
                if (counted.incrementAndGet() == expected) {
                    say("COUNTED " + System.nanoTime());
                }
            })
            .groupByKey()
            .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts"))
                   .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
            .toStream()
            .to(args[3], Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        streams.setStateListener((now, before) -> say("STATE " + now + " " + System.nanoTime()));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(CloseOptions.timeout(Duration.ofSeconds(30))
                .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
            say("PEEKED " + counted.get());
        }));
        say("STARTED " + System.nanoTime());
        streams.start();
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
