"""GET /corpus/sentence/{id}/neighbors/?k=10: the k most similar sentences, from compute.

400 JSON for a bad k, 404 for an unknown sentence, 503 JSON with Retry-After when compute
gives no answer (down, too slow, or the client's circuit breaker is open).
"""

from __future__ import annotations

import math

from django.conf import settings
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from compute_contract.computeidl.ttypes import BadRequest, UnknownSentence
from entryeditor_service.compute.client import ComputeUnavailable
from entryeditor_service.compute.shared import compute_client
from entryeditor_service.corpus import params
from entryeditor_service.errors import ApiError, error_body


class NeighborParams(serializers.Serializer):
    k = serializers.IntegerField(min_value=1, max_value=settings.COMPUTE_MAX_K, default=10)


@api_view(["GET"])
def neighbors(request: Request, sentence_id: str) -> Response:
    k = params.parse(NeighborParams, request.query_params)["k"]
    try:
        found = compute_client().neighbors(int(sentence_id), k)
    except UnknownSentence as error:
        raise ApiError(404, "not_found", f"No sentence {sentence_id}") from error
    except BadRequest as error:
        raise ApiError(400, "invalid", error.message) from error
    except ComputeUnavailable as error:
        retry_after = str(max(1, math.ceil(error.retry_after)))
        body = error_body(
            "compute_unavailable",
            "The compute service is unavailable; try again later.",
            retry_after=int(retry_after),
        )
        return Response(body, status=503, headers={"Retry-After": retry_after})
    return Response(
        {
            "sentence_id": int(sentence_id),
            "k": k,
            "neighbors": [
                {"id": n.sentence_id, "text": n.text, "score": round(n.score, 6)} for n in found
            ],
        }
    )
