"""ACLs (Kafka's authorizer model): what they are (`model`) and the manager that keeps them in
the metadata store and pushes them to the native authorizer (`manager`)."""
