"""The style fit's logistic regression (``analysis/logit.py``) against statsmodels' GLM
(binomial, ``cov_type="cluster"``), the reference: coefficients, clustered covariance and
p-values on random designs, under separation, and the refusals a report turns into one line."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from statsmodels.genmod.families import Binomial
from statsmodels.genmod.generalized_linear_model import GLM

from judgeaudit.analysis.logit import fit_logit


def _reference(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return GLM(y, x, family=Binomial()).fit(cov_type="cluster", cov_kwds={"groups": groups})


@pytest.mark.parametrize("seed", range(12))
def test_random_designs_match_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k, g = int(rng.integers(60, 2500)), int(rng.integers(1, 7)), int(rng.integers(3, 60))
    x = np.column_stack([np.ones(n), rng.normal(size=(n, k))])
    x[:, 1] = rng.integers(-1, 2, n) if seed % 3 == 0 else x[:, 1]  # a -1/0/1 difference
    y = (rng.random(n) < 1 / (1 + np.exp(-x @ rng.normal(size=k + 1)))).astype(float)
    groups = rng.integers(0, g, n)
    ref = _reference(x, y, groups)
    ours = fit_logit(x, y, groups)
    assert ours.converged
    np.testing.assert_allclose(ours.params, ref.params, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.cov, ref.cov_params(), rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(ours.pvalues, ref.pvalues, rtol=1e-8, atol=1e-14)


def test_a_separating_term_runs_off_as_in_statsmodels() -> None:
    """whenever the sides differ in the term the same side wins: both fits run the coefficient
    far past the report's cut (|log odds| 10), where the report drops the term."""
    n = 200
    x = np.column_stack(
        [np.ones(n), np.r_[np.zeros(100), np.ones(100)], np.random.default_rng(2).normal(size=n)]
    )
    y = np.r_[np.zeros(100), np.ones(100)]
    groups = np.arange(n) % 10
    ours, ref = fit_logit(x, y, groups), _reference(x, y, groups)
    assert abs(ours.params[1]) > 10
    np.testing.assert_allclose(ours.params[:2], ref.params[:2], rtol=1e-6)


def test_one_group_is_refused() -> None:
    x = np.column_stack([np.ones(50), np.linspace(-1, 1, 50)])
    y = (np.arange(50) % 3 == 0).astype(float)
    with pytest.raises(ValueError, match="at least two tasks"):
        fit_logit(x, y, np.zeros(50, dtype=int))


def test_a_column_repeated_is_a_singular_hessian() -> None:
    rng = np.random.default_rng(5)
    a = rng.normal(size=80)
    x = np.column_stack([np.ones(80), a, a])
    y = (rng.random(80) < 0.5).astype(float)
    with pytest.raises(np.linalg.LinAlgError):
        fit_logit(x, y, np.arange(80) % 8)
