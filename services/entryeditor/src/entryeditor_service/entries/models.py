"""Dictionary entries, versioned for optimistic concurrency."""

from __future__ import annotations

from django.db import models

# Fields an edit may change, in the order diff reports them.
CONTENT_FIELDS = (
    "word",
    "pos",
    "senses",
    "frequency",
    "pos_distribution",
    "examples",
    "collocates",
)


class Entry(models.Model):
    word = models.CharField(max_length=64, db_index=True)
    pos = models.CharField(max_length=8, blank=True, default="", help_text="main POS tag")
    senses = models.JSONField(
        default=list, help_text='[{"pos": "v", "definition": "...", "examples": ["..."]}]'
    )
    frequency = models.IntegerField(default=0)
    pos_distribution = models.JSONField(default=dict, help_text='{"v": 812, "d": 3}')
    examples = models.JSONField(default=list, help_text='[{"sentence_id": 1, "text": "..."}]')
    collocates = models.JSONField(default=list, help_text="top collocates by PMI")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "entries_entry"
        ordering = ("id",)

    def __str__(self) -> str:
        return f"{self.word} ({self.pos or '-'}) v{self.version}"
