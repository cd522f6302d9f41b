"""Faults injected into running stacks, each a probe of the reliability suite
(`servelab probe NAME`, docs/results/reliability.md):

- dependencies: the entry editor's MariaDB and Redis cut under constant load (through a
  Proxy the probe controls), then back;
- disk-full: the files service's storage on a small tmpfs, uploads until it is full;
- aborts: clients that hang up mid-upload and mid-download, against the app server alone
  and behind nginx;
- coldstart: each family's stack started cold and sent its rated load the moment the
  runner says it is up.

`servelab soak` (servelab.reliability.soak) is the suite's long-running counterpart.
"""
