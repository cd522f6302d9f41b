"""Accuracy per field on generated screenshots, and the time each image took, for each split
of the generator: `tune` (what the analyzer was developed on) and `held-out` (a layout and a
font it never was), reported apart.

The screenshots come from the generator (which draws Chinese text in Debian's CJK fonts), or
from a folder `save_samples` wrote: the same images scored on a machine without those fonts
(a GPU machine, say), so two engines or devices are compared on identical bytes."""

import json
import statistics
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from health_code_service.reading.analyzer import READ_SIDE, AnalysisError, Analyzer
from health_code_service.reading.imaging import ImageLimits, decode_image
from health_code_service.settings import Settings
from health_code_service.synth import SPLITS, generate
from health_code_service.usages import Usage

FIELDS: dict[Usage, tuple[str, ...]] = {
    Usage.HEALTH_CODE: ("colour", "qr_text", "name", "updated_at"),
    Usage.TRIP_CODE: ("phone", "updated_at", "cities", "star"),
    Usage.NUCLEIC_ACID: ("name", "result", "sampled_at"),
}


@dataclass
class UsageScore:
    usage: Usage
    split: str = "tune"
    images: int = 0
    errors: int = 0
    correct: dict[str, int] = field(default_factory=dict)
    cpu_ms: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def accuracy(self, name: str) -> float:
        return self.correct.get(name, 0) / self.images if self.images else 0.0


@dataclass(frozen=True)
class Sample:
    """One screenshot and the fields the service should read from it."""

    usage: Usage
    split: str
    seed: int
    jpeg: bytes
    truth: dict[str, Any]


def generated(
    count: int,
    seed: int = 0,
    usages: Iterable[Usage] = tuple(Usage),
    splits: Sequence[str] = SPLITS,
) -> Iterator[Sample]:
    """`count` generated screenshots per usage and split (seeds seed .. seed+count-1), split
    by split."""
    for split in splits:
        for usage in usages:
            for image_seed in range(seed, seed + count):
                jpeg, truth = generate(usage, image_seed, split=split)
                yield Sample(usage, split, image_seed, jpeg, truth)


INDEX = "samples.json"


def save_samples(samples: Iterable[Sample], folder: Path) -> int:
    """Write each sample's JPEG and an index of their truths into `folder`; how many."""
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for sample in samples:
        name = f"{sample.split}-{sample.usage}-{sample.seed}.jpg"
        (folder / name).write_bytes(sample.jpeg)
        entry = {"file": name, "usage": str(sample.usage), "split": sample.split}
        index.append({**entry, "seed": sample.seed, "truth": sample.truth})
    (folder / INDEX).write_text(json.dumps(index, ensure_ascii=False, indent=1) + "\n")
    return len(index)


def saved(folder: Path, usages: Iterable[Usage] = tuple(Usage)) -> Iterator[Sample]:
    """The samples `save_samples` wrote into `folder`, of `usages` only."""
    index = folder / INDEX
    if not index.is_file():
        raise FileNotFoundError(f"no {INDEX} in {folder}: not a folder of saved samples")
    wanted = {str(usage) for usage in usages}
    for entry in json.loads(index.read_text()):
        if entry["usage"] in wanted:
            jpeg = (folder / entry["file"]).read_bytes()
            usage = Usage(entry["usage"])
            yield Sample(usage, entry["split"], entry["seed"], jpeg, entry["truth"])


def evaluate(settings: Settings, samples: Iterable[Sample]) -> list[UsageScore]:
    """Analyse every sample; one score per split and usage, in the order they first come."""
    analyzer = Analyzer(settings)
    scores: dict[tuple[str, Usage], UsageScore] = {}
    for sample in samples:
        key = (sample.split, sample.usage)
        score = scores.setdefault(key, UsageScore(sample.usage, sample.split))
        _score(analyzer, settings, score, sample)
    return list(scores.values())


def _score(analyzer: Analyzer, settings: Settings, score: UsageScore, sample: Sample) -> None:
    started = time.process_time()
    try:
        answer = analyzer.analyze(
            sample.usage,
            decode_image(
                sample.jpeg, ImageLimits(settings.max_pixels, settings.max_image_side), READ_SIDE
            ),
        )
        found = answer.model_dump(mode="json")
    except AnalysisError as error:
        found = {}
        score.errors += 1
        score.misses.append(f"seed {sample.seed}: {error.code}")
    score.cpu_ms.append((time.process_time() - started) * 1000)
    score.images += 1
    for name in FIELDS[sample.usage]:
        if found.get(name) == sample.truth[name]:
            score.correct[name] = score.correct.get(name, 0) + 1
        elif found:
            score.misses.append(
                f"seed {sample.seed} {name}: {found.get(name)!r} != {sample.truth[name]!r}"
            )


def as_json(scores: Sequence[UsageScore]) -> list[dict[str, Any]]:
    """Each score's accuracy per field, images and errors: what a machine reads."""
    return [
        {
            "usage": str(score.usage),
            "split": score.split,
            "images": score.images,
            "errors": score.errors,
            "accuracy": {name: round(score.accuracy(name), 4) for name in FIELDS[score.usage]},
        }
        for score in scores
    ]


SPLIT_TITLES = {
    "tune": "split tune: the layouts and the font the analyzer was developed on",
    "held-out": "split held-out: layouts and a font it was never tuned on",
}


def render(scores: Sequence[UsageScore], engine: str, misses: bool = False) -> str:
    """A plain-text table per split: accuracy per field, then CPU time per image (decode +
    analyse), then (`misses`) each wrong field or failed image."""
    out = [f"engine {engine}"]
    for split in dict.fromkeys(score.split for score in scores):
        out.extend(["", SPLIT_TITLES.get(split, f"split {split}")])
        out.extend(_split_table([score for score in scores if score.split == split]))
    if misses:
        out.extend(
            f"{score.split} {score.usage} {miss}" for score in scores for miss in score.misses
        )
    return "\n".join(out)


def _split_table(scores: Sequence[UsageScore]) -> list[str]:
    out = [f"{'usage':<14}{'field':<12}{'accuracy':>9}"]
    for score in scores:
        for name in FIELDS[score.usage]:
            out.append(f"{score.usage:<14}{name:<12}{score.accuracy(name):>8.1%}")
    out.append("")
    out.append(f"{'usage':<14}{'images':>7}{'errors':>7}{'cpu ms p50':>11}{'p95':>7}{'mean':>7}")
    for score in scores:
        cpu = sorted(score.cpu_ms)
        p95 = cpu[min(len(cpu) - 1, round(0.95 * (len(cpu) - 1)))] if cpu else 0.0
        out.append(
            f"{score.usage:<14}{score.images:>7}{score.errors:>7}"
            f"{statistics.median(cpu) if cpu else 0:>11.0f}{p95:>7.0f}"
            f"{statistics.fmean(cpu) if cpu else 0:>7.0f}"
        )
    return out
