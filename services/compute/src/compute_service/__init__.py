"""Thrift compute service: word and sentence vectors, nearest neighbours."""
