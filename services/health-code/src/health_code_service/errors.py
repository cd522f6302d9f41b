"""The health-code service's errors: where the core's failures become answers.

The core (imaging, analyzer) raises ImageError and AnalysisError, and the image budget
BudgetExhausted, each naming its code, status and message, and builds no HTTP error;
api_error() is the one place they become servicekit's ApiError (a busy budget's with
Retry-After), answered in the shape {"error": {"code", "message"}} by the
handlers servicekit.errors.fastapi registers.
"""

from health_code_service.reading.analyzer import AnalysisError
from health_code_service.reading.imaging import ImageError
from health_code_service.serving.budget import BudgetExhausted
from servicekit.errors import ApiError

__all__ = ["ApiError", "CoreError", "api_error"]

CoreError = ImageError | AnalysisError | BudgetExhausted


def api_error(error: CoreError) -> ApiError:
    if isinstance(error, BudgetExhausted):
        headers = {"Retry-After": str(error.retry_after)}
        return ApiError(error.status, error.code, error.message, headers=headers)
    return ApiError(error.status, error.code, error.message)
