"""What servelab's services share: one error shape, its handlers per framework, one probe,
metrics, request ids and access logs."""
