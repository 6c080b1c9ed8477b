"""``kvdata score``: kernel-generation results with error bars, paired comparisons and clean-subset
re-scoring. Modules: records (the Attempt record, per-model arrays, join errors), inputs and
adapters (result formats), metrics, intervals, compare, clean, scoring (the steps), report."""
from kvdata.score.inputs import ResultsFormatError, read_all, read_results
from kvdata.score.records import Attempt, Counts, JoinError, ModelResults, by_model, parse_counts
from kvdata.score.scoring import ScoreReport, ScoreSettings, score

__all__ = ["Attempt", "Counts", "JoinError", "ModelResults", "ResultsFormatError", "ScoreReport", "ScoreSettings",
           "by_model", "parse_counts", "read_all", "read_results", "score"]
