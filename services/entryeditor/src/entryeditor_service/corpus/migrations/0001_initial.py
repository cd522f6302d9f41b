import django.db.models.deletion
from django.db import migrations, models

from entryeditor_service.collation import binary_tables


class Migration(migrations.Migration):
    initial = True

    dependencies = ()

    operations = (
        migrations.CreateModel(
            name="CorpusLoad",
            fields=[
                ("id", models.SmallIntegerField(default=1, primary_key=True, serialize=False)),
                ("source", models.CharField(max_length=255)),
                (
                    "digest",
                    models.CharField(
                        help_text="sha256 of the file and loader version", max_length=64
                    ),
                ),
                (
                    "limit",
                    models.IntegerField(help_text="--limit of the load (sentences)", null=True),
                ),
                ("sentences", models.IntegerField()),
                ("tokens", models.BigIntegerField()),
                ("seconds", models.FloatField()),
                ("loaded_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "db_table": "corpus_load",
            },
        ),
        migrations.CreateModel(
            name="Sentence",
            fields=[
                ("id", models.IntegerField(primary_key=True, serialize=False)),
                (
                    "para",
                    models.IntegerField(
                        help_text="1-based line number of the paragraph in the file"
                    ),
                ),
                ("text", models.TextField(help_text="the words joined without tags")),
                ("n_tokens", models.IntegerField()),
            ],
            options={
                "db_table": "corpus_sentence",
            },
        ),
        migrations.CreateModel(
            name="WordFreq",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("word", models.CharField(max_length=64)),
                ("pos", models.CharField(max_length=8)),
                ("freq", models.IntegerField()),
            ],
            options={
                "db_table": "corpus_wordfreq",
                "constraints": [
                    models.UniqueConstraint(fields=("word", "pos"), name="corpus_wordfreq_word_pos")
                ],
            },
        ),
        migrations.CreateModel(
            name="Token",
            fields=[
                ("id", models.BigIntegerField(primary_key=True, serialize=False)),
                (
                    "position",
                    models.SmallIntegerField(help_text="0-based position in the sentence"),
                ),
                ("word", models.CharField(max_length=64)),
                ("pos", models.CharField(max_length=8)),
                (
                    "sentence",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tokens",
                        to="corpus.sentence",
                    ),
                ),
            ],
            options={
                "db_table": "corpus_token",
                "indexes": [
                    models.Index(
                        fields=["word", "pos", "sentence", "position"], name="corpus_token_word_pos"
                    )
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("sentence", "position"), name="corpus_token_sentence_position"
                    )
                ],
            },
        ),
        migrations.RunPython(
            binary_tables("corpus_sentence", "corpus_token", "corpus_wordfreq", "corpus_load"),
            migrations.RunPython.noop,
            atomic=False,
        ),
    )
