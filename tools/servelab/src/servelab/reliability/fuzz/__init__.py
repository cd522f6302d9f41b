"""`servelab fuzz <family>`: every bad input tried against every stack of a family's
[fuzz] (loadtests/families/<family>.toml).

Two kinds of case run against each target (an app server alone, or nginx in front of one):
property-based requests from the service's OpenAPI schema (schemathesis and all its checks),
and hand-written requests a schema cannot produce (raw bytes, huge headers, traversal,
Range edge cases, decompression bombs and ratios, slowloris clients). Meanwhile the memory
of every process serving the target is sampled and its peak held against the recipe's
memory limit. The verdicts go to docs/results/reliability/fuzz-<family>.json, one row per
case class and target and one for its memory.
"""
