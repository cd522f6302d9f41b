"""Where a request's CPU time goes, stage by stage (`health-code-profile`)."""
