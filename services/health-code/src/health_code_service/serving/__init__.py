"""How a request reaches the engine: the serving modes (ANALYZE_MODE), micro-batches across
request threads, each worker's share of the machine, and the shared paddle engine kept only
to be measured."""
