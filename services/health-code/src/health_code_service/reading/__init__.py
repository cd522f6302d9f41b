"""Reading a screenshot: decoding within bounds, the QR code and its colour, the text the
OCR finds, and the fields parsed from it."""
