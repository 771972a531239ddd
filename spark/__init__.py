"""ferrolog's PySpark data source: `format("ferrolog")`, a Kafka-protocol reader and writer
with the options and schema of Spark's `format("kafka")`.

    from ferrolog.spark import register
    register(spark)
    df = (spark.read.format("ferrolog")
          .option("kafka.bootstrap.servers", "127.0.0.1:9092")
          .option("subscribe", "orders")
          .load())
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ferrolog.spark.source import FerrologDataSource

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["FerrologDataSource", "register"]


def register(spark: SparkSession) -> None:
    """Makes `format("ferrolog")` available in this Spark session."""
    spark.dataSource.register(FerrologDataSource)
