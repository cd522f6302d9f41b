"""Accuracy per field on generated screenshots, and the time each image took."""

import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from health_code_service.analyzer import AnalysisError, Analyzer
from health_code_service.imaging import decode_image
from health_code_service.settings import Settings
from health_code_service.synth import generate
from health_code_service.usages import Usage

FIELDS: dict[Usage, tuple[str, ...]] = {
    Usage.HEALTH_CODE: ("colour", "qr_text", "name", "updated_at"),
    Usage.TRIP_CODE: ("phone", "updated_at", "cities", "star"),
    Usage.NUCLEIC_ACID: ("name", "result", "sampled_at"),
}


@dataclass
class UsageScore:
    usage: Usage
    images: int = 0
    errors: int = 0
    correct: dict[str, int] = field(default_factory=dict)
    cpu_ms: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def accuracy(self, name: str) -> float:
        return self.correct.get(name, 0) / self.images if self.images else 0.0


def evaluate(
    settings: Settings, count: int, seed: int = 0, usages: Iterable[Usage] = tuple(Usage)
) -> list[UsageScore]:
    """Analyse `count` generated screenshots per usage (seeds seed .. seed+count-1)."""
    analyzer = Analyzer(settings)
    scores = []
    for usage in usages:
        score = UsageScore(usage)
        for image_seed in range(seed, seed + count):
            jpeg, truth = generate(usage, image_seed)
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
        scores.append(score)
    return scores


def render(scores: Sequence[UsageScore], engine: str, misses: bool = False) -> str:
    """A plain-text table: accuracy per field, then CPU time per image (decode + analyse),
    then (`misses`) each wrong field or failed image."""
    out = [f"engine {engine}", f"{'usage':<14}{'field':<12}{'accuracy':>9}"]
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
    if misses:
        out.extend(f"{score.usage} {miss}" for score in scores for miss in score.misses)
    return "\n".join(out)
