"""Entry endpoints under /entryeditor/entryeditor/."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.response import Response

from entryeditor_service.corpus.fields import WORD_SCHEMA
from entryeditor_service.entries import builder, store
from entryeditor_service.entries.diff import diff
from entryeditor_service.entries.execute import execute
from entryeditor_service.entries.models import Entry
from entryeditor_service.entries.serializers import (
    SUMMARY_FIELDS,
    CommandSerializer,
    EntrySerializer,
    EntrySummarySerializer,
    EntryUpdateSerializer,
    InitSerializer,
    ListSearch,
    VersionSerializer,
)
from entryeditor_service.head import api_view
from entryeditor_service.openapi import READ_ERRORS, WRITE_ERRORS, errors, id_parameter


class Pages(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request: Request) -> int:
        """DRF's, but a page_size that is no positive integer is a 400, not ignored, and
        so is a page or a page_size given twice (DRF would read the last) or empty (DRF
        would read page 1)."""
        for name in (self.page_query_param, self.page_size_query_param):
            values = request.query_params.getlist(name)
            if len(values) > 1:
                raise serializers.ValidationError({name: ["given more than once"]})
            if values == [""]:
                raise serializers.ValidationError({name: ["may not be empty"]})
        raw = request.query_params.get(self.page_size_query_param)
        if raw is not None and not (raw.isdecimal() and int(raw) > 0):
            raise serializers.ValidationError({"page_size": ["must be a positive integer"]})
        return int(super().get_page_size(request) or self.page_size)


def _version(request: Request) -> int:
    serializer = VersionSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    version: int = serializer.validated_data["version"]
    return version


ENTRY_ID = id_parameter("entry_id", "The entry's id.")
PAGE = [
    OpenApiParameter("page", int, description="1 for the first page."),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1},
        description="Entries a page (20; more than 100 is 100).",
    ),
]
PAGE_OF_ENTRIES = inline_serializer(
    "EntryPage",
    {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": EntrySummarySerializer(many=True),
    },
)


@extend_schema(
    methods=["GET"],
    operation_id="entry_list",
    parameters=[
        *PAGE,
        OpenApiParameter(
            "word", WORD_SCHEMA, description="Only entries whose word starts with this."
        ),
    ],
    responses={200: PAGE_OF_ENTRIES, **errors(404), **READ_ERRORS},
)
@extend_schema(
    methods=["POST"],
    operation_id="entry_create",
    request=EntrySerializer,
    responses={201: EntrySerializer, **WRITE_ERRORS},
)
@api_view(["GET", "POST"])
def entry_list(request: Request) -> Response:
    if request.method == "POST":
        serializer = EntrySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entry = Entry.objects.create(**{**store.BLANK, **serializer.validated_data})
        headers = {"Location": f"/entryeditor/entryeditor/{entry.pk}"}
        return Response(
            EntrySerializer(entry).data, status=status.HTTP_201_CREATED, headers=headers
        )
    pages = Pages()
    rows = Entry.objects.order_by("id").values(*SUMMARY_FIELDS)
    if "word" in request.query_params:
        search = ListSearch(data=request.query_params)
        search.is_valid(raise_exception=True)
        rows = rows.filter(word__startswith=search.validated_data["word"])
    page = pages.paginate_queryset(rows, request)
    return pages.get_paginated_response(page)


@extend_schema(
    methods=["GET"],
    operation_id="entry_get",
    parameters=[ENTRY_ID],
    responses={200: EntrySerializer, **errors(404), **READ_ERRORS},
)
@extend_schema(
    methods=["PUT", "PATCH"],
    parameters=[ENTRY_ID],
    request=EntryUpdateSerializer,
    responses={200: EntrySerializer, **errors(404, 409), **WRITE_ERRORS},
)
@api_view(["GET", "PUT", "PATCH"])
def entry_detail(request: Request, entry_id: str) -> Response:
    pk = int(entry_id)
    if request.method in SAFE_METHODS:
        return Response(EntrySerializer(store.get(pk)).data)
    partial = request.method == "PATCH"
    serializer = EntrySerializer(data=request.data, partial=partial)
    serializer.is_valid(raise_exception=True)
    version = _version(request)
    data = dict(serializer.validated_data)
    if not partial:
        data = {**store.BLANK, **data}
    return Response(EntrySerializer(store.update(pk, data, version)).data)


@extend_schema(
    operation_id="entry_execute",
    parameters=[ENTRY_ID],
    request=CommandSerializer,
    responses={200: OpenApiTypes.OBJECT, **errors(404), **WRITE_ERRORS},
)
@api_view(["POST"])
def entry_execute(request: Request, entry_id: str) -> Response:
    """Run a query-language command; the pattern defaults to the entry's word."""
    pk = int(entry_id)
    serializer = CommandSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    word = Entry.objects.filter(pk=pk).values_list("word", flat=True).first()
    if word is None:
        raise store.EntryNotFound(pk)
    result = execute(serializer.validated_data["command"], word)
    return Response({"entry": pk, **result})


@extend_schema(
    operation_id="entry_init",
    parameters=[ENTRY_ID],
    request=InitSerializer,
    responses={200: EntrySerializer, 201: EntrySerializer, **errors(404, 409), **WRITE_ERRORS},
)
@api_view(["POST"])
def entry_init(request: Request, entry_id: str) -> Response:
    """(Re)fill entry `entry_id` for a word from the corpus, or empty; creates it if new."""
    pk = int(entry_id)
    serializer = InitSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    word = serializer.validated_data["word"]
    data = builder.empty(word) if serializer.validated_data["empty"] else builder.from_corpus(word)
    entry, created = store.put(pk, data, serializer.validated_data.get("version"))
    return Response(
        EntrySerializer(entry).data,
        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
    )


@extend_schema(
    operation_id="entry_diff",
    parameters=[ENTRY_ID, id_parameter("other_id", "The entry to compare with.")],
    responses={200: OpenApiTypes.OBJECT, **errors(404), **READ_ERRORS},
)
@api_view(["GET"])
def entry_diff(request: Request, entry_id: str, other_id: str) -> Response:
    a, b = int(entry_id), int(other_id)
    entries = Entry.objects.in_bulk([a, b])
    for pk in (a, b):
        if pk not in entries:
            raise store.EntryNotFound(pk)
    return Response(diff(entries[a], entries[b]))
