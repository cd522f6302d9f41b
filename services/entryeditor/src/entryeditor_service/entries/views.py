"""Entry endpoints under /entryeditor/entryeditor/."""

from __future__ import annotations

from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from entryeditor_service.entries import store
from entryeditor_service.entries.models import Entry
from entryeditor_service.entries.serializers import (
    SUMMARY_FIELDS,
    EntrySerializer,
    VersionSerializer,
)


class Pages(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


def _version(request: Request) -> int:
    serializer = VersionSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data["version"]


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
    page = pages.paginate_queryset(rows, request)
    return pages.get_paginated_response(page)


@api_view(["GET", "PUT", "PATCH"])
def entry_detail(request: Request, entry_id: str) -> Response:
    pk = int(entry_id)
    if request.method == "GET":
        return Response(EntrySerializer(store.get(pk)).data)
    partial = request.method == "PATCH"
    serializer = EntrySerializer(data=request.data, partial=partial)
    serializer.is_valid(raise_exception=True)
    version = _version(request)
    data = dict(serializer.validated_data)
    if not partial:
        data = {**store.BLANK, **data}
    return Response(EntrySerializer(store.update(pk, data, version)).data)
