"""Planning an evaluation before it runs: how many cases (and trials) a decision needs,
what a dataset of a given size can detect, and what such a run costs."""

from assay.planning._build import QUESTIONS, Question, forecast, plan
from assay.planning._fit import BudgetFit, LimitCheck, budget_fit
from assay.planning._model import Answer, Forecast, Pilot, Plan

__all__ = [
    "QUESTIONS",
    "Answer",
    "BudgetFit",
    "Forecast",
    "LimitCheck",
    "Pilot",
    "Plan",
    "Question",
    "budget_fit",
    "forecast",
    "plan",
]
