"""The benchmarks: `servelab bench`, `servelab report` and `servelab findings` (bench.run,
bench.cli), the GPU machine's run (bench.device)."""
