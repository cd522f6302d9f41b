"""`servelab soak FAMILY [--quick|--full]`: one variant of the family at half its measured
capacity for 1 minute (quick) or 10 minutes (full), its memory, file descriptors, database
connections and temporary files sampled every few seconds; each must stay flat after the
warm-up. Writes the section soak-<family> of docs/results/reliability.md.

targets says what each family loads, sampling what is measured, run runs and judges it,
section writes it.
"""
