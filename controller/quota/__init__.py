"""Client quotas on the control plane: Kafka's entities and quota keys, their validation, the
describe filters, and the manager that stores them and pushes them to the native core."""
