"""SCRAM credentials: the model (`model`) and the manager that keeps them (`manager`)."""
