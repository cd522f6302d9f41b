"""The write-ups' questions answered from saved runs, each answer with how sure it is:
docs/findings.md, and the summary each report opens with."""
