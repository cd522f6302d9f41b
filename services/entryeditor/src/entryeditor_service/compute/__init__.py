"""The compute service's client: Thrift stubs generated from services/compute/compute.thrift."""
