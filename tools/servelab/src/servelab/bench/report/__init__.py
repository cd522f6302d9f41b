"""Writing reports: the Markdown report and its charts, the write-up's figures, saved
results and the ratios they read."""
