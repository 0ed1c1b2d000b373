"""Making a plan: the question asked, answered by the exact methods of ``metrics._power``
(and, for non-inferiority over several trials, by simulating compare's rule)."""

from __future__ import annotations

import math
from typing import Literal, get_args

from assay.metrics import (
    DEFAULT_INTERVAL,
    IntervalSetting,
    cases_for_drop,
    cases_for_half_width,
    cases_with_trials,
    clustered_observations,
    intraclass,
    mcnemar_power,
    rate_half_width,
    smallest_effect,
    trials_drop_table,
)
from assay.planning._model import Answer, Forecast, Pilot, Plan
from assay.planning._noninferiority import (
    STEADY,
    PairedCells,
    cases_for_noninferiority,
    noninferiority_power,
    normal_guess,
    worst_rate,
)
from assay.planning._simulate import (
    REPLICATIONS,
    SEED,
    TrialsModel,
    cases_for_simulated_noninferiority,
)

Question = Literal["rate", "drop", "noninferiority", "detectable"]
QUESTIONS: tuple[str, ...] = get_args(Question)

_CP = "Clopper & Pearson (1934), Biometrika 26:404"
_WILSON = "Wilson (1927), JASA 22:209"
_MCNEMAR = (
    "McNemar (1947), Psychometrika 12:153; exact conditional power as in Fagerland, "
    "Lydersen & Laake (2013), BMC Med Res Methodol 13:91"
)
_SIGN = (
    "Dixon & Mood (1946), JASA 41:557 (the sign test; McNemar's at one trial); the "
    "beta-binomial model of trials of one case: Skellam (1948), JRSS B 10:257"
)
_NEWCOMBE = (
    "Newcombe (1998), Statistics in Medicine 17:2635, method 10 (the paired interval of "
    "assay compare at one trial per case)"
)
_RAO_SCOTT = (
    "Rao & Scott (1992), Biometrics 48:577 (the design-effect-adjusted table); Newcombe "
    "(1998), Statistics in Medicine 17:2635, method 10 (the paired interval); the "
    "beta-binomial model of trials of one case: Skellam (1948), JRSS B 10:257"
)


def plan(
    question: Question,
    *,
    width: float | None = None,
    expected_rate: float | None = None,
    assurance: float = 0.95,
    drop: float | None = None,
    margin: float | None = None,
    difference: float = 0.0,
    discordance: float | None = None,
    baseline_rate: float | None = None,
    cases: int | None = None,
    power: float = 0.8,
    trials: int = 1,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    pilot: Pilot | None = None,
    concurrency: int | None = None,
    replications: int = REPLICATIONS,
    seed: int = SEED,
) -> Plan:
    """How many cases ``question`` needs, each answer with the exact method it is computed
    by (docs/planning.md):

    - ``"rate"``: estimate a rate to ±``width`` at the interval's level, for the worst case
      or an ``expected_rate`` (the pilot's rate when a pilot is given), with ``assurance``;
    - ``"drop"``: detect a drop of ``drop`` with ``power`` by the exact McNemar test at
      α = 1 − confidence, two-sided;
    - ``"noninferiority"``: show the candidate no worse than the baseline by more than
      ``margin`` (true ``difference``, candidate − baseline) by ``assay compare``'s own rule:
      at one trial its exact power, summed over every paired table; with ``trials`` above
      one, its power simulated ``replications`` times from ``seed`` on a beta-binomial model
      of the trials;
    - ``"detectable"``: for ``cases`` cases, the half-width, the smallest drop and the
      smallest margin reached with ``power``.

    The paired questions need the share of cases whose outcome flips between two runs of
    the same system (``discordance``): given, measured on the ``pilot``'s trials, or, from
    a known rate p (``baseline_rate`` or the pilot's), the 2p(1 − p) of runs that agree no
    more than by chance. With ``trials`` above one, the rate's cases come from the pilot's
    design effect. A ``pilot`` with usage gives the forecast (calls, tokens, cost, and the
    wall time at ``concurrency``). Raises ValueError naming what is wrong with the inputs.
    """
    if question not in QUESTIONS:
        raise ValueError(f"unknown question {question!r}; choose one of {', '.join(QUESTIONS)}")
    _check_open("power", power)
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    notes: list[str] = []
    alpha = 1 - interval.confidence
    answers: list[Answer] = []
    rate_known = baseline_rate if baseline_rate is not None else _pilot_rate(pilot)
    if question == "rate":
        if width is None:
            raise ValueError("the rate question needs a half-width (width)")
        expected = _expected(expected_rate, pilot, notes)
        answers.append(
            _rate_answer(width, expected, assurance, interval, trials, pilot, notes, None)
        )
    elif question == "detectable":
        if cases is None or cases < 2:
            raise ValueError("the detectable question needs a number of cases (at least 2)")
        expected = _expected(expected_rate, pilot, notes)
        answers.append(
            _rate_answer(None, expected, assurance, interval, trials, pilot, notes, cases)
        )
        flips = _discordance(discordance, pilot, rate_known, notes)
        _one_trial(trials, notes)
        answers.append(_detectable_drop(cases, flips, rate_known, alpha, power))
        answers.append(
            _detectable_margin(
                cases, flips, difference, rate_known, interval.confidence, power, notes
            )
        )
    elif question == "drop" and trials > 1:
        if drop is None:
            raise ValueError("the drop question needs the drop to detect (drop)")
        answers.append(
            _trials_drop_answer(drop, trials, discordance, pilot, rate_known, alpha, power, notes)
        )
    elif question == "noninferiority" and trials > 1:
        if margin is None:
            raise ValueError("the noninferiority question needs a margin")
        if replications < 100:
            raise ValueError(f"replications must be at least 100, got {replications}")
        answers.append(
            _trials_margin_answer(
                margin,
                trials,
                difference,
                discordance,
                pilot,
                rate_known,
                interval.confidence,
                power,
                notes,
                replications,
                seed,
            )
        )
    else:
        flips = _discordance(discordance, pilot, rate_known, notes)
        if question == "drop":
            if drop is None:
                raise ValueError("the drop question needs the drop to detect (drop)")
            answers.append(_drop_answer(drop, flips, rate_known, alpha, power))
        else:
            if margin is None:
                raise ValueError("the noninferiority question needs a margin")
            answers.append(
                _margin_answer(
                    margin, flips, difference, rate_known, interval.confidence, power, notes
                )
            )
    made = Plan(
        question=question,
        confidence=interval.confidence,
        interval_method=interval.method,
        power=power,
        answers=answers,
        assumptions=notes,
    )
    needed = made.cases
    if pilot is not None and needed is not None:
        kept_trials = max(a.trials for a in answers)
        made = made.model_copy(
            update={"forecast": forecast(pilot, needed, kept_trials, concurrency)}
        )
    return made


def forecast(pilot: Pilot, cases: int, trials: int, concurrency: int | None) -> Forecast:
    """Calls, tokens, cost and wall time of ``cases`` × ``trials`` calls at the pilot's
    usage per call; wall time = calls × mean latency / concurrency."""
    calls = cases * trials

    def scaled(per_call: float | None) -> int | None:
        return None if per_call is None else round(per_call * calls)

    wall = (
        None
        if pilot.latency_s is None or concurrency is None
        else calls * pilot.latency_s / concurrency
    )
    return Forecast(
        from_run=pilot.run_id,
        cases=cases,
        trials=trials,
        calls=calls,
        input_tokens=scaled(pilot.input_tokens_per_call),
        output_tokens=scaled(pilot.output_tokens_per_call),
        cost_usd=None if pilot.cost_per_call_usd is None else pilot.cost_per_call_usd * calls,
        concurrency=concurrency,
        wall_s=wall,
    )


def _rate_answer(
    width: float | None,
    expected: float | None,
    assurance: float,
    interval: IntervalSetting,
    trials: int,
    pilot: Pilot | None,
    notes: list[str],
    cases: int | None,
) -> Answer:
    level = f"{_pct(interval.confidence)}"
    which = "Clopper–Pearson" if interval.method == "clopper-pearson" else "Wilson"
    if expected is None:
        spread = "the largest half-width over every outcome x = 0 … n (any true rate)"
    else:
        spread = (
            f"the half-width reached with probability ≥ {_pct(assurance)} when the true rate "
            f"is {expected:g}"
        )
    method = f"{level} {which} interval, half-width = max(x/n − lower, upper − x/n); {spread}"
    icc = _icc(trials, pilot, notes)
    if trials > 1:
        method += (
            f"; {trials} trials per case counted as the clustered interval counts them: "
            f"K·N / (1 + (K − 1)·{icc:.3g}), with the degrees-of-freedom factor"
        )
    reference = _CP if interval.method == "clopper-pearson" else _WILSON
    if trials > 1:
        reference += "; Korn & Graubard (1998), Survey Methodology 24:193; Kish (1965)"
    if cases is not None:
        effective = clustered_observations(cases, trials, icc, interval.confidence)
        achieved = rate_half_width(
            math.floor(effective), expected, interval=interval, assurance=assurance
        )
        return Answer(
            question="rate",
            asked=f"the half-width of a rate over {cases} cases at {level}",
            cases=cases,
            trials=trials,
            effect=achieved,
            target=achieved,
            achieved=achieved,
            effective_cases=effective if trials > 1 else None,
            method=method,
            reference=reference,
        )
    assert width is not None
    effective_needed = cases_for_half_width(width, expected, interval=interval, assurance=assurance)
    needed = cases_with_trials(effective_needed, trials, icc, interval.confidence)
    achieved = rate_half_width(effective_needed, expected, interval=interval, assurance=assurance)
    return Answer(
        question="rate",
        asked=f"estimate the rate to ±{_pct(width)} at {level}",
        cases=needed,
        trials=trials,
        effect=width,
        target=width,
        achieved=achieved,
        effective_cases=(
            clustered_observations(needed, trials, icc, interval.confidence) if trials > 1 else None
        ),
        method=method,
        reference=reference,
    )


def _icc(trials: int, pilot: Pilot | None, notes: list[str]) -> float:
    if trials <= 1:
        return 0.0
    icc = _pilot_icc(pilot, notes)
    if icc is not None:
        if icc >= 1:
            notes.append(
                "at ρ = 1 a case's further trials add nothing to the rate: the cases alone "
                "decide it (run trials only to measure consistency)"
            )
        return icc
    notes.append(
        "no pilot run with several trials measured the between-case spread: trials of one "
        "case are assumed to agree fully (ρ = 1, each case one observation)"
    )
    return 1.0


def _pilot_icc(pilot: Pilot | None, notes: list[str]) -> float | None:
    """How the trials of one case correlate, from the design effect of a pilot with several
    trials (said in the notes); None without one."""
    if pilot is None or pilot.trials <= 1 or pilot.design_effect is None:
        return None
    icc = intraclass(pilot.design_effect, pilot.trials)
    notes.append(
        f"design effect {pilot.design_effect:.3g} measured on run {pilot.run_id} "
        f"({pilot.cases} cases × {pilot.trials} trials): trials of one case correlate "
        f"with ρ = {icc:.3g}"
    )
    return icc


def _one_trial(trials: int, notes: list[str]) -> None:
    if trials > 1:
        notes.append("the paired questions are planned at one trial per case")


def _discordance(
    given: float | None, pilot: Pilot | None, rate: float | None, notes: list[str]
) -> float:
    """The share of cases whose outcome flips between two runs of the same system."""
    if given is not None:
        _check_closed("discordance", given)
        notes.append(f"discordance {given:g} as given")
        return given
    if pilot is not None and pilot.discordance is not None:
        notes.append(
            f"discordance {pilot.discordance:.3g} measured on run {pilot.run_id}: the share of "
            "pairs of trials of one case that disagree"
        )
        if pilot.discordance == 0:
            notes.append(
                "no case's trials disagreed: only the change itself is counted discordant, "
                "which is optimistic when the candidate also fixes and breaks other cases; "
                "give a discordance for a more cautious plan"
            )
        return pilot.discordance
    if rate is not None:
        flips = 2 * rate * (1 - rate)
        notes.append(
            f"discordance {flips:.3g} = 2p(1 − p) at the baseline rate p = {rate:.3g}: runs "
            "assumed to agree no more than by chance (the largest discordance for runs that "
            "do not disagree on purpose); a pilot with several trials measures a smaller one"
        )
        return flips
    notes.append(
        "discordance 0.5 assumed (the largest at any rate); give a discordance, a baseline "
        "rate or a pilot run for a smaller plan"
    )
    return 0.5


def _drop_table(drop: float, flips: float, rate: float | None) -> tuple[float, float]:
    """(p_broken, p_fixed) for a drop on top of the runs' own flips: half the flips each
    way, plus the drop broken."""
    broken, fixed = flips / 2 + drop, flips / 2
    if broken + fixed > 1:
        raise ValueError(
            f"a drop of {drop:g} on top of a discordance of {flips:.3g} leaves more than every "
            "case discordant"
        )
    if rate is not None and broken > rate + 1e-12:
        raise ValueError(
            f"a drop of {drop:g} with discordance {flips:.3g} breaks more cases than the "
            f"baseline's rate {rate:.3g} passes"
        )
    return broken, fixed


def _drop_method(alpha: float) -> str:
    return (
        f"exact conditional McNemar test, two-sided at α = {alpha:g}, counted as detecting "
        "the drop when it rejects with more broken than fixed cases; power = Σ_d P(D = d) · "
        "P(the exact test rejects | d)"
    )


def _drop_answer(
    drop: float, flips: float, rate: float | None, alpha: float, power: float
) -> Answer:
    _check_open("drop", drop)
    broken, fixed = _drop_table(drop, flips, rate)
    needed = cases_for_drop(broken, fixed, alpha=alpha, power=power)
    return Answer(
        question="drop",
        asked=f"detect a drop of {_pct(drop)} with power {_pct(power)}",
        cases=needed,
        effect=drop,
        target=power,
        achieved=mcnemar_power(needed, broken, fixed, alpha),
        method=_drop_method(alpha),
        reference=_MCNEMAR,
    )


def _trials_drop_answer(
    drop: float,
    trials: int,
    given: float | None,
    pilot: Pilot | None,
    rate: float | None,
    alpha: float,
    power: float,
    notes: list[str],
) -> Answer:
    """A drop detected over cases of several trials each, by the exact sign test over
    cases that ``assay compare`` runs, its per-case table from a beta-binomial model."""
    _check_open("drop", drop)
    rate = _trials_rate("drop", rate)
    icc = _paired_icc(given, pilot, rate, notes)
    if drop > rate:
        raise ValueError(f"a drop of {drop:g} is more than the baseline's rate {rate:.3g}")
    broken, fixed = trials_drop_table(rate, icc, trials, drop)
    needed = cases_for_drop(broken, fixed, alpha=alpha, power=power)
    one = cases_for_drop(*trials_drop_table(rate, icc, 1, drop), alpha=alpha, power=power)
    notes.append(_trials_model(rate, icc, -drop))
    notes.append(
        f"per case: P(fewer candidate trials pass) = {broken:.4g}, P(more pass) = {fixed:.4g}; "
        f"the same model at one trial per case needs {one:,} cases"
    )
    if needed >= one:
        notes.append(
            "more trials need no fewer cases here: the sign test counts a case by the "
            "direction of its change alone, and more trials make chance differences between "
            "the two runs' counts more frequent"
        )
    return Answer(
        question="drop",
        asked=f"detect a drop of {_pct(drop)} with power {_pct(power)} at {trials} trials per case",
        cases=needed,
        trials=trials,
        effect=drop,
        target=power,
        achieved=mcnemar_power(needed, broken, fixed, alpha),
        method=(
            f"exact sign test over cases (the test of assay compare at several trials: a case "
            f"is broken when fewer of its {trials} candidate trials pass than baseline trials, "
            f"fixed when more), two-sided at α = {alpha:g}, counted when it rejects with more "
            "broken than fixed cases; power = Σ_d P(D = d) · P(the exact test rejects | d), "
            "with the per-case table of a beta-binomial model of the trials"
        ),
        reference=_SIGN,
    )


def _trials_rate(question: str, rate: float | None) -> float:
    """The baseline's rate a paired plan over several trials models a case's trials around."""
    if rate is None:
        raise ValueError(
            f"with several trials, the {question} question needs the baseline's rate (a "
            "baseline rate, or a pilot run): a case's trials are modelled around it"
        )
    return rate


def _paired_icc(given: float | None, pilot: Pilot | None, rate: float, notes: list[str]) -> float:
    """How the trials of one case correlate, for a paired plan over trials: from a given
    discordance ψ₀ = 2p(1 − p)(1 − ρ) at the rate p, else from the pilot's design effect."""
    if given is not None:
        _check_closed("discordance", given)
        spread = 2 * rate * (1 - rate)
        icc = 1.0 if spread == 0 else min(1.0, max(0.0, 1 - given / spread))
        notes.append(
            f"discordance {given:g} as given: at the rate {rate:.3g}, trials of one case "
            f"correlate with ρ = 1 − ψ₀ / (2p(1 − p)) = {icc:.3g}"
        )
        return icc
    measured = _pilot_icc(pilot, notes)
    if measured is not None:
        return measured
    raise ValueError(
        "with several trials, a paired question needs how the trials of one case agree: a "
        "pilot run with several trials (whose design effect measures it), or a discordance "
        "with the baseline's rate"
    )


def _detectable_drop(
    cases: int, flips: float, rate: float | None, alpha: float, power: float
) -> Answer:
    top = 1 - flips if rate is None else min(1 - flips, rate - flips / 2)

    def good(drop: float) -> bool:
        broken, fixed = flips / 2 + drop, flips / 2
        return mcnemar_power(cases, broken, fixed, alpha) >= power

    found = smallest_effect(good, 0.0, top) if top > 0 else None
    achieved = None
    if found is not None:
        achieved = mcnemar_power(cases, flips / 2 + found, flips / 2, alpha)
    return Answer(
        question="drop",
        asked=f"the smallest drop {cases} cases detect with power {_pct(power)}",
        cases=cases,
        effect=found,
        target=power,
        achieved=achieved,
        method=_drop_method(alpha),
        reference=_MCNEMAR,
    )


def _margin_table(flips: float, difference: float) -> tuple[float, float]:
    broken = flips / 2 + max(-difference, 0.0)
    fixed = flips / 2 + max(difference, 0.0)
    if broken + fixed > 1:
        raise ValueError(
            f"a difference of {difference:g} on top of a discordance of {flips:.3g} leaves more "
            "than every case discordant"
        )
    return broken, fixed


def _margin_cells(
    flips: float,
    difference: float,
    rate: float | None,
    notes: list[str],
    at: tuple[int, float, float] | None = None,
) -> PairedCells:
    """The paired outcomes at one trial: the runs' own flips split evenly, the difference
    on top, around the baseline's rate; without one, the rate at which compare's rule has
    the least power at ``at`` = (cases, margin, confidence), else at the normal
    approximation's cases."""
    broken, fixed = _margin_table(flips, difference)
    if rate is None:
        if at is None:
            raise ValueError("the baseline's rate is needed")
        rate = worst_rate(broken, fixed, *at)
        notes.append(
            f"baseline rate {rate:g} assumed: of the rates 0.05 … 0.95 the discordance allows, "
            "the one at which compare's paired interval has the least power; give a baseline "
            "rate or a pilot run for a plan at the real rate"
        )
    return PairedCells.of(rate, broken, fixed)


def _margin_method(confidence: float, difference: float) -> str:
    return (
        f"exact power of assay compare's rule at one trial per case: Newcombe's "
        f"{_pct(confidence)} paired interval of the difference wholly above −margin, true "
        f"difference {difference:g}; summed over every paired table (both, fixed, broken, "
        f"neither) of the cases; the smallest number of cases from which {STEADY} in a row "
        "reach the power (the exact power is a saw-tooth in the cases)"
    )


def _margin_answer(
    margin: float,
    flips: float,
    difference: float,
    rate: float | None,
    confidence: float,
    power: float,
    notes: list[str],
) -> Answer:
    _check_open("margin", margin)
    if rate is None:
        start = PairedCells.of(0.5, *_margin_table(flips, difference))
        at = (normal_guess(start, margin, confidence, power), margin, confidence)
    cells = _margin_cells(flips, difference, rate, notes, None if rate is not None else at)
    guess = normal_guess(cells, margin, confidence, power)
    needed = cases_for_noninferiority(cells, margin, confidence, power, guess)
    return Answer(
        question="noninferiority",
        asked=f"show the candidate no worse than the baseline by more than {_pct(margin)} "
        f"with power {_pct(power)}",
        cases=needed,
        effect=margin,
        target=power,
        achieved=noninferiority_power(needed, cells, margin, confidence),
        method=_margin_method(confidence, difference),
        reference=_NEWCOMBE,
    )


def _trials_margin_answer(
    margin: float,
    trials: int,
    difference: float,
    given: float | None,
    pilot: Pilot | None,
    rate: float | None,
    confidence: float,
    power: float,
    notes: list[str],
    replications: int,
    seed: int,
) -> Answer:
    """Non-inferiority over cases of several trials each, by the simulated power of the
    rule ``assay compare`` applies: the Rao–Scott-adjusted Newcombe interval wholly above
    −margin."""
    _check_open("margin", margin)
    rate = _trials_rate("noninferiority", rate)
    icc = _paired_icc(given, pilot, rate, notes)
    model = TrialsModel(rate=rate, icc=icc, trials=trials, difference=difference)
    cells = PairedCells.of(rate, *model.one_trial_table())
    one = cases_for_noninferiority(
        cells, margin, confidence, power, normal_guess(cells, margin, confidence, power)
    )
    guess = max(2, math.ceil(one * (1 + (trials - 1) * icc) / trials))
    found = cases_for_simulated_noninferiority(
        model, margin, confidence, power, guess, replications=replications, seed=seed
    )
    notes.append(_trials_model(rate, icc, difference))
    notes.append(
        f"the plan at one trial per case (the exact power of compare's rule on the same "
        f"model) needs {one:,} cases"
    )
    if icc >= 1:
        notes.append(
            f"more trials do not reduce the cases: the trials of one case agree fully (ρ = 1), "
            f"so the design effect compare measures is {trials} and its interval over "
            f"{trials} trials is its interval over one; the further trials add nothing"
        )
    elif found.cases >= one:
        notes.append(
            "more trials do not reduce the cases here: the trials of one case agree so "
            "closely that the design effect compare measures on the two runs takes back "
            "what they add"
        )
    return Answer(
        question="noninferiority",
        asked=f"show the candidate no worse than the baseline by more than {_pct(margin)} "
        f"with power {_pct(power)} at {trials} trials per case",
        cases=found.cases,
        trials=trials,
        effect=margin,
        target=power,
        achieved=found.power,
        achieved_se=found.se,
        method=(
            f"simulated power of assay compare's rule: Rao–Scott-adjusted Newcombe interval "
            f"above −m (the {_pct(confidence)} paired interval of the difference over "
            f"{trials} trials per case, its table divided by the design effect measured on "
            f"the two runs, wholly above −{margin:g}), true difference {difference:g}; "
            f"{replications:,} replications, seed {seed}, Monte Carlo s.e. "
            f"±{found.se * 100:.2f} points; the smallest number of cases by bisection, "
            "each number of cases simulated with its own seed"
        ),
        reference=_RAO_SCOTT,
    )


def _trials_model(rate: float, icc: float, difference: float) -> str:
    """The beta-binomial model of the trials, with the candidate's true ``difference``."""
    return (
        f"model of the trials: each case passes a trial with its own probability, spread "
        f"around the rate {rate:.3g} with intraclass correlation ρ = {icc:.3g} (beta-binomial); "
        + _difference_model(difference, rate)
    )


def _difference_model(difference: float, rate: float) -> str:
    if difference < 0:
        return (
            f"the candidate breaks a share {-difference / rate:.3g} of the cases outright "
            "(every trial fails) and leaves the others as they were"
        )
    if difference > 0:
        return (
            f"the candidate fixes a share {difference / (1 - rate):.3g} of the cases outright "
            "(every trial passes) and leaves the others as they were"
        )
    return "the candidate passes each case as often as the baseline (true difference 0)"


def _detectable_margin(
    cases: int,
    flips: float,
    difference: float,
    rate: float | None,
    confidence: float,
    power: float,
    notes: list[str],
) -> Answer:
    low = max(0.0, -difference)
    # without a rate: the worst one at the margin the normal approximation gives these cases
    z = _z(1 - (1 - confidence) / 2) + _z(power)
    rough = min(0.999, low + z * math.sqrt(max(flips, 1e-4) / cases))
    cells = _margin_cells(flips, difference, rate, notes, (cases, rough, confidence))

    def good(margin: float) -> bool:
        return noninferiority_power(cases, cells, margin, confidence) >= power

    found = smallest_effect(good, low, 0.999)
    return Answer(
        question="noninferiority",
        asked=f"the smallest non-inferiority margin {cases} cases show with power {_pct(power)}",
        cases=cases,
        effect=found,
        target=power,
        achieved=(None if found is None else noninferiority_power(cases, cells, found, confidence)),
        method=_margin_method(confidence, difference),
        reference=_NEWCOMBE,
    )


def _pilot_rate(pilot: Pilot | None) -> float | None:
    return None if pilot is None else pilot.rate


def _expected(given: float | None, pilot: Pilot | None, notes: list[str]) -> float | None:
    """The rate a rate's width is planned at: given, else the pilot's (said in the notes),
    else none (the worst case)."""
    if given is not None or pilot is None:
        return given
    notes.append(
        f"expected rate {pilot.rate:.3g}: the task success of run {pilot.run_id} over its "
        "recorded case-trials"
    )
    return pilot.rate


def _z(q: float) -> float:
    from scipy.special import ndtri  # deferred: scipy loads only when a plan is made

    return float(ndtri(q))


def _pct(x: float) -> str:
    return f"{x * 100:.4g}%"


def _check_open(name: str, value: float) -> None:
    if not (0 < value < 1):
        raise ValueError(f"{name} must be between 0 and 1 (exclusive), got {value:g}")


def _check_closed(name: str, value: float) -> None:
    if not (0 <= value <= 1):
        raise ValueError(f"{name} must be between 0 and 1, got {value:g}")
