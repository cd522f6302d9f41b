"""The corpus tables. Their table and column names are a contract: the compute service reads
them with raw SQL (corpus_sentence, corpus_token)."""

from __future__ import annotations

from django.db import models


class Sentence(models.Model):
    """One sentence; ids run 1..N in corpus order and are stable across loads."""

    id = models.IntegerField(primary_key=True)
    para = models.IntegerField(help_text="1-based line number of the paragraph in the file")
    text = models.TextField(help_text="the words joined without tags")
    n_tokens = models.IntegerField()

    class Meta:
        db_table = "corpus_sentence"


class Token(models.Model):
    id = models.BigIntegerField(primary_key=True)
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="tokens")
    position = models.SmallIntegerField(help_text="0-based position in the sentence")
    word = models.CharField(max_length=64)
    pos = models.CharField(max_length=8)

    class Meta:
        db_table = "corpus_token"
        constraints = (
            models.UniqueConstraint(
                fields=["sentence", "position"], name="corpus_token_sentence_position"
            ),
        )
        indexes = (
            # word lookups (its leftmost prefix), word+pos, and concordance order, covering.
            models.Index(
                fields=["word", "pos", "sentence", "position"], name="corpus_token_word_pos"
            ),
        )


class WordFreq(models.Model):
    """Frequency of each (word, pos), precomputed at load time."""

    word = models.CharField(max_length=64)
    pos = models.CharField(max_length=8)
    freq = models.IntegerField()

    class Meta:
        db_table = "corpus_wordfreq"
        constraints = (
            models.UniqueConstraint(fields=["word", "pos"], name="corpus_wordfreq_word_pos"),
        )


class CorpusLoad(models.Model):
    """The one row that says which corpus is loaded (what load_corpus compares with)."""

    id = models.SmallIntegerField(primary_key=True, default=1)
    source = models.CharField(max_length=255)
    digest = models.CharField(max_length=64, help_text="sha256 of the file and loader version")
    limit = models.IntegerField(null=True, help_text="--limit of the load (sentences)")
    sentences = models.IntegerField()
    tokens = models.BigIntegerField()
    seconds = models.FloatField()
    loaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "corpus_load"
