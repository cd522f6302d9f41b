"""Writing reports: the Markdown report and its charts, findings, the write-up's figures,
saved results, comparisons of two runs and the ratios they read."""
