"""The health-code run on a machine with an NVIDIA GPU, lent now and then for minutes.

`bundle` assembles here everything that machine lacks (wheels for its Python, k6, saved
screenshots) into one folder; `run` runs there, in one command, the matrix of
`[device]` of loadtests/families/health-code.toml (CPU modes against GPU modes, its GPU memory
sampled) and the accuracy of each engine, and writes one JSON; `report` turns that JSON into
docs/results/health-code.gpu.md. `python -m servelab.bench.device bundle|run` (scripts/device/).
"""
