// A share group member on Kafka 4.4's KafkaShareConsumer, for tests/groups/test_share_java.py:
// it subscribes to one topic and, for every record delivered, prints
// "<partition> <offset> <delivery count> <value>" and acknowledges it explicitly:
//   REJECT when the value starts with "reject",
//   RELEASE when the value starts with "release" and this is not yet delivery <release-until>,
//   ACCEPT otherwise.
// After each poll that brought records it prints "- <records in the poll>".
// It stops after <max-records> deliveries (0: never) or <idle-ms> without one, committing
// what it acknowledged; it never closes early on its own, so a test can SIGKILL it.
//
// Run as a single-file source program: java -cp <kafka jars> ShareWorker.java <bootstrap>
//   <group> <topic> <max-records> <idle-ms> <release-until> [<client property>=<value> ...]

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

public class ShareWorker {
    public static void main(String[] args) {
        String bootstrap = args[0];
        String group = args[1];
        String topic = args[2];
        long maxRecords = Long.parseLong(args[3]);
        long idleMs = Long.parseLong(args[4]);
        int releaseUntil = Integer.parseInt(args[5]);
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", group);
        props.put("share.acknowledgement.mode", "explicit");
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        for (int i = 6; i < args.length; i++) {
            String[] property = args[i].split("=", 2);
            props.put(property[0], property[1]);
        }
        long seen = 0;
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            long lastRecord = System.currentTimeMillis();
            while (maxRecords == 0 || seen < maxRecords) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, String> record : records) {
                    int count = record.deliveryCount().orElse((short) 0);
                    String value = record.value() == null ? "" : record.value();
                    System.out.println(record.partition() + " " + record.offset() + " " + count + " " + value);
                    AcknowledgeType type = AcknowledgeType.ACCEPT;
                    if (value.startsWith("reject")) {
                        type = AcknowledgeType.REJECT;
                    } else if (value.startsWith("release") && count < releaseUntil) {
                        type = AcknowledgeType.RELEASE;
                    }
                    consumer.acknowledge(record, type);
                    seen++;
                }
                if (!records.isEmpty()) {
                    System.out.println("- " + records.count());
                    consumer.commitSync();
                    System.out.flush();
                    lastRecord = System.currentTimeMillis();
                } else if (System.currentTimeMillis() - lastRecord > idleMs) {
                    break;
                }
            }
        }
        System.out.flush();
    }
}
