"""Where the files live: the storage and its metadata, ids, checksums, and how a download
reads what it sends."""
