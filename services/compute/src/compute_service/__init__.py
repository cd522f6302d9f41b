"""Thrift compute service: word and sentence vectors, nearest neighbours."""

import os

# One BLAS thread per call, set before numpy loads OpenBLAS: the server already runs calls
# in parallel, and OpenBLAS threads spinning against each other made a 16-thread server
# 26x slower on two cores (services/compute/README.md). An explicit setting is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
