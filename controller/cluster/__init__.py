"""Cluster logic: the controller, elections, ISR policy."""
