"""GET /corpus/sentence/{id}/neighbors/?k=10: the k most similar sentences, from compute.

400 JSON for a bad k, 404 for an unknown sentence, 503 JSON with Retry-After when compute
gives no answer (down, too slow, or the client's circuit breaker is open): the client's and
the contract's errors, answered by entryeditor_service.errors.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from entryeditor_service.compute.shared import compute_client
from entryeditor_service.corpus import params
from entryeditor_service.head import api_view
from entryeditor_service.openapi import READ_ERRORS, errors, id_parameter


class NeighborParams(serializers.Serializer[dict[str, Any]]):
    k = serializers.IntegerField(min_value=1, max_value=settings.COMPUTE_MAX_K, default=10)


@extend_schema(
    parameters=[id_parameter("sentence_id", "The sentence's id in the corpus."), NeighborParams],
    responses={200: OpenApiTypes.OBJECT, **errors(404), **READ_ERRORS},
)
@api_view(["GET"])
def neighbors(request: Request, sentence_id: str) -> Response:
    k = params.parse(NeighborParams, request.query_params)["k"]
    found = compute_client().neighbors(int(sentence_id), k)
    return Response(
        {
            "sentence_id": int(sentence_id),
            "k": k,
            "neighbors": [
                {"id": n.sentence_id, "text": n.text, "score": round(n.score, 6)} for n in found
            ],
        }
    )
