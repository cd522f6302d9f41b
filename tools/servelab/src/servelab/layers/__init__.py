"""`servelab layers`: what each production layer of the services costs per request,
measured in-process (no sockets, no load generator): the shipped app with its layers
added one at a time over the bare framework app, CPU time per request in rounds."""
