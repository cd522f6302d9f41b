"""The matrix model: a family's variants x workers x endpoints, the command line's options,
the stacks kept up across cells, and where the servers write."""
