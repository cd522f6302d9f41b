"""What servelab's services share: one error shape, its handlers per framework, one probe."""
