"""The health-code run on a machine with an NVIDIA GPU, lent now and then for minutes:
`bundle` assembles here what that machine lacks, `run` runs there, in one command, `[device]`
of loadtests/families/health-code.toml into one JSON, and `report` turns it into
docs/results/health-code.gpu.md (loadtests/README.md, "On a GPU machine")."""
