"""Prometheus metrics that stay right under multi-process servers (servicekit.metrics).

`http` holds the request metrics every service records; `exposition` renders them, merged
across worker processes when PROMETHEUS_MULTIPROC_DIR is set; `multiprocess` prepares that
directory and cleans up after dead workers. Needs the `metrics` extra.
"""
