"""Bytes in and out: the upload and download strategies, byte ranges, request bodies and
the limits on them."""
