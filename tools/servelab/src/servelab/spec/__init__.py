"""Each benchmark family's declarative spec (loadtests/families/<family>.toml), validated by typed
models: its matrix, questions, reliability targets and GPU-machine variants."""
