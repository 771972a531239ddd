"""Coordinators: replicated state machines whose state lives in internal topics."""
