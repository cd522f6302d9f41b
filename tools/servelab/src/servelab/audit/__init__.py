"""`servelab audit`: the locked dependencies (uv.lock, the web app's package-lock.json) checked
against the advisory databases, each finding either fixed or accepted with its reason in
audit-ignore.toml."""
