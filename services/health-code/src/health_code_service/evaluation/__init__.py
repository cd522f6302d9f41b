"""Accuracy per field on generated or saved screenshots (`health-code-eval`)."""
