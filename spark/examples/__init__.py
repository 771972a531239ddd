"""Runnable examples of the Spark data source (`python -m ferrolog.spark.examples.<name>`)."""
