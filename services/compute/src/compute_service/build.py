"""`compute-build` (python -m compute_service.build): build the model for the corpus now in
the database, unless an artifact for that corpus and these training settings exists.

The server calls the same ensure_model at start, so running this first only moves the
training out of the server's start-up.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from compute_service import artifact
from compute_service.corpus import corpus_checksum, read_sentences
from compute_service.model import Model, Training, train
from compute_service.pool import ConnectionPool
from compute_service.settings import Settings

log = logging.getLogger("compute.build")


def configure_logging() -> None:
    """Our progress at INFO; gensim's per-epoch chatter only when it warns."""
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    logging.getLogger("gensim").setLevel(logging.WARNING)


class BuildError(RuntimeError):
    """The database holds nothing to build a model from."""


@dataclass(frozen=True)
class Built:
    model: Model
    path: Path
    built: bool
    seconds: float


def ensure_model(settings: Settings, pool: ConnectionPool) -> Built:
    started = time.perf_counter()
    training = Training.from_settings(settings)
    with pool.connection() as conn:
        checksum = corpus_checksum(conn)
    path = artifact.artifact_path(settings.model_dir, training.key(checksum))
    model = artifact.load(path)
    if model is not None:
        log.info("model %s is up to date for corpus %s", path, checksum[:12])
        return Built(model, path, False, time.perf_counter() - started)
    log.info("building the model for corpus %s", checksum[:12])
    with pool.connection() as conn:
        sentence_ids, sentences = read_sentences(conn)
    if not sentence_ids:
        raise BuildError("the corpus is empty: run `entryeditor-manage load_corpus` first")
    model = train(checksum, sentence_ids, sentences, training)
    artifact.save(model, path)
    seconds = time.perf_counter() - started
    log.info(
        "built %s: %d sentences, %d words in %.1f s",
        path,
        len(model.sentence_ids),
        len(model.words),
        seconds,
    )
    return Built(model, path, True, seconds)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="compute-build", description="Build the compute model for the corpus in DATABASE_URL."
    )
    parser.parse_args(argv)
    configure_logging()
    settings = Settings.from_env()
    pool = ConnectionPool(settings.database_address(), 1)
    try:
        built = ensure_model(settings, pool)
    except BuildError as error:
        print(f"compute-build: {error}", file=sys.stderr)
        return 1
    finally:
        pool.close_idle()
    state = f"built in {built.seconds:.1f} s" if built.built else "up to date"
    print(f"{built.path}: {len(built.model.sentence_ids)} sentences, {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
