"""Accuracy per field on generated screenshots, and the time each image took, for each split
of the generator: `tune` (what the analyzer was developed on) and `held-out` (a layout and a
font it never was), reported apart."""

import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from health_code_service.analyzer import AnalysisError, Analyzer
from health_code_service.imaging import decode_image
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


def evaluate(
    settings: Settings,
    count: int,
    seed: int = 0,
    usages: Iterable[Usage] = tuple(Usage),
    splits: Sequence[str] = SPLITS,
) -> list[UsageScore]:
    """Analyse `count` generated screenshots per usage and split (seeds seed .. seed+count-1);
    one score per split and usage, split by split."""
    analyzer = Analyzer(settings)
    return [
        _score(analyzer, settings, usage, split, range(seed, seed + count))
        for split in splits
        for usage in usages
    ]


def _score(
    analyzer: Analyzer, settings: Settings, usage: Usage, split: str, seeds: range
) -> UsageScore:
    score = UsageScore(usage, split)
    for image_seed in seeds:
        jpeg, truth = generate(usage, image_seed, split=split)
        started = time.process_time()
        try:
            answer = analyzer.analyze(usage, decode_image(jpeg, settings.max_pixels))
            found = answer.model_dump(mode="json")
        except AnalysisError as error:
            found = {}
            score.errors += 1
            score.misses.append(f"seed {image_seed}: {error.code}")
        score.cpu_ms.append((time.process_time() - started) * 1000)
        score.images += 1
        for name in FIELDS[usage]:
            if found.get(name) == truth[name]:
                score.correct[name] = score.correct.get(name, 0) + 1
            elif found:
                score.misses.append(
                    f"seed {image_seed} {name}: {found.get(name)!r} != {truth[name]!r}"
                )
    return score


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
