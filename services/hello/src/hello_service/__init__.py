"""A 4 KB JSON hello served by many Python servers: what each server costs per request."""
