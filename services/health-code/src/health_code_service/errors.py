"""The health-code service's errors: where the core's failures become answers.

The core (imaging, analyzer) raises ImageError and AnalysisError, each naming its code,
status and message, and builds no HTTP error; api_error() is the one place they become
servicekit's ApiError, answered in the shape {"error": {"code", "message"}} by the
handlers servicekit.errors.fastapi registers.
"""

from health_code_service.reading.analyzer import AnalysisError
from health_code_service.reading.imaging import ImageError
from servicekit.errors import ApiError

__all__ = ["ApiError", "CoreError", "api_error"]

CoreError = ImageError | AnalysisError


def api_error(error: CoreError) -> ApiError:
    return ApiError(error.status, error.code, error.message)
