from django.db import migrations, models

from entryeditor_service.collation import binary_tables


class Migration(migrations.Migration):
    initial = True

    dependencies = ()

    operations = (
        migrations.CreateModel(
            name="Entry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("word", models.CharField(db_index=True, max_length=64)),
                (
                    "pos",
                    models.CharField(
                        blank=True, default="", help_text="main POS tag", max_length=8
                    ),
                ),
                (
                    "senses",
                    models.JSONField(
                        default=list,
                        help_text='[{"pos": "v", "definition": "...", "examples": ["..."]}]',
                    ),
                ),
                ("frequency", models.IntegerField(default=0)),
                (
                    "pos_distribution",
                    models.JSONField(default=dict, help_text='{"v": 812, "d": 3}'),
                ),
                (
                    "examples",
                    models.JSONField(default=list, help_text='[{"sentence_id": 1, "text": "..."}]'),
                ),
                ("collocates", models.JSONField(default=list, help_text="top collocates by PMI")),
                ("version", models.PositiveIntegerField(default=1)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "db_table": "entries_entry",
                "ordering": ("id",),
            },
        ),
        migrations.RunPython(
            binary_tables("entries_entry"), migrations.RunPython.noop, atomic=False
        ),
    )
