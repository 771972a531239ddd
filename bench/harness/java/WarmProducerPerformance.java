// Kafka's own ProducerPerformance, run twice in one JVM: a warm-up run, then the measured
// run. A fresh JVM spends its first seconds compiling the client's hot paths and fetching
// metadata, and records sent then wait hundreds of milliseconds; in a ten-second fixed-rate
// run those first seconds set the p99 for every broker alike. The measured run starts with a
// compiled client (it still opens its own producer and connections).
//
// Usage, with Kafka's jars on the class path (Java's single-file source launcher, no build):
//   java -cp <kafka libs> WarmProducerPerformance.java <warm-up args> -- <measured args>
// where both argument lists are ProducerPerformance's own.

import java.util.Arrays;

import org.apache.kafka.tools.ProducerPerformance;

public class WarmProducerPerformance {
    public static void main(String[] args) throws Exception {
        int split = Arrays.asList(args).indexOf("--");
        if (split < 0) {
            throw new IllegalArgumentException("expected <warm-up args> -- <measured args>");
        }
        ProducerPerformance.main(Arrays.copyOfRange(args, 0, split));
        System.out.println("--- measured run ---");
        ProducerPerformance.main(Arrays.copyOfRange(args, split + 1, args.length));
    }
}
