// Prints every broker property of the Kafka on the class path, one per line:
// name <TAB> type <TAB> dynamic|static <TAB> default as DescribeConfigs shows it (or <none>).
// Run as a single-file program: java -cp <kafka libs> KafkaBrokerProperties.java
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;

public class KafkaBrokerProperties {
    public static void main(String[] args) throws Exception {
        ConfigDef def = (ConfigDef) Class.forName("org.apache.kafka.server.config.AbstractKafkaConfig")
            .getField("CONFIG_DEF").get(null);
        @SuppressWarnings("unchecked")
        Set<String> dynamic = (Set<String>) Class.forName("org.apache.kafka.server.config.DynamicBrokerConfig")
            .getField("ALL_DYNAMIC_CONFIGS").get(null);
        for (ConfigDef.ConfigKey key : new TreeMap<>(def.configKeys()).values()) {
            String shown = "<none>";
            if (key.hasDefault()) {
                shown = key.defaultValue == null ? "<null>" : ConfigDef.convertToString(key.defaultValue, key.type);
            }
            System.out.println(String.join("\t", key.name, key.type.name(),
                dynamic.contains(key.name) ? "dynamic" : "static", shown));
        }
    }
}
