"""The control plane's cluster logic: metadata store, controller, elections, ISR policy."""
