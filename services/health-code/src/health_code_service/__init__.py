"""Health-code OCR service."""
