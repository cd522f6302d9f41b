"""The compute service's client, over the contract in packages/compute-contract."""
