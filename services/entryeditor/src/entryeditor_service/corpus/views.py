"""Corpus endpoints: /corpus/sentence/{id} and /corpus/statistics/*."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from entryeditor_service.corpus import cached, params, queries
from entryeditor_service.corpus.patterns import Pattern
from entryeditor_service.head import api_view
from entryeditor_service.openapi import READ_ERRORS, errors, id_parameter
from servicekit.errors import ApiError

SENTENCE_ID = id_parameter("sentence_id", "The sentence's id in the corpus.")


def _read(
    parameters: list[Any], *statuses: int
) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """The schema of a corpus read: its parameters, a JSON object, the error answers."""
    return extend_schema(
        parameters=parameters,
        responses={200: OpenApiTypes.OBJECT, **errors(*statuses), **READ_ERRORS},
    )


@_read([SENTENCE_ID], 404)
@api_view(["GET"])
def sentence(request: Request, sentence_id: str) -> Response:
    row = queries.sentence(int(sentence_id))
    if row is None:
        raise ApiError(404, "not_found", f"No sentence {sentence_id}")
    return Response(row)


@_read([params.InstanceParams])
@api_view(["GET"])
def get_instance(request: Request) -> Response:
    query = params.parse(params.InstanceParams, request.query_params)
    return Response(queries.instances(**query))


@_read([params.WordParams])
@api_view(["GET"])
def get_count(request: Request) -> Response:
    query = params.parse(params.WordParams, request.query_params)
    return Response(queries.count(**query))


@_read([params.PmiParams])
@api_view(["GET"])
def get_pmi(request: Request) -> Response:
    query = params.parse(params.PmiParams, request.query_params)
    pattern = Pattern(query["word"], query["pos"])
    value, outcome = cached.collocates(
        pattern, query["window"], query["min_count"], "pmi", query["limit"]
    )
    return Response(value, headers={"X-Cache": outcome})
