"""Pure statistics with exact expected values (p-values checked against scipy 1.17 once, by hand)."""
import math

import pytest

from wrapper.method import stats


def test_summarize_drops_none_and_counts_measured():
    assert stats.summarize([3.0, None, 1.0, 2.0, 10.0]) == {
        "n": 4, "min": 1.0, "median": 2.5, "max": 10.0, "spread": 9.0, "mad": 1.0}
    assert stats.summarize([5]) == {"n": 1, "min": 5.0, "median": 5.0, "max": 5.0, "spread": 0.0, "mad": 0.0}


def test_summarize_nothing_measured_is_none_not_zero():
    assert stats.summarize([None, None]) == {"n": 0, "min": None, "median": None, "max": None, "spread": None,
                                             "mad": None}
    assert stats.summarize([]) == {"n": 0, "min": None, "median": None, "max": None, "spread": None, "mad": None}


def test_median():
    assert stats.median([3, 1, 2]) == 2
    assert stats.median([4, 1, 3, 2]) == 2.5
    assert stats.median([None]) is None


def test_outliers_modified_z_score():
    # median 10, MAD 0.1: 0.6745 * 0.5 / 0.1 = 3.37 (kept), 0.6745 * 0.6 / 0.1 = 4.05 (outlier)
    assert stats.outliers([10.0, 10.1, 9.9, 10.0, 10.5, None, 9.4]) == [6]
    assert stats.outliers([10.0, 10.1, 9.9, 10.0, 10.6]) == [4]
    assert stats.outliers([10.0, 10.1, 9.9, 10.0, 10.5]) == []


def test_outliers_when_mad_is_zero_uses_mean_absolute_deviation():
    # MAD 0; MeanAD = 4/5 = 0.8; z = 4 / (1.253314 * 0.8) = 3.99 > 3.5
    assert stats.outliers([1.0, 1.0, 1.0, 1.0, 5.0]) == [4]
    # MeanAD = 1/4: z = 1 / (1.253314 * 0.25) = 3.19: not an outlier
    assert stats.outliers([1.0, 1.0, 1.0, 2.0]) == []
    assert stats.outliers([2.0, 2.0, 2.0]) == []


def test_outliers_need_three_values():
    assert stats.outliers([1.0, 100.0]) == []
    assert stats.outliers([1.0, None, 100.0]) == []


def test_first_run_slow():
    assert stats.first_run_slow([30.0, 10.0, 11.0, 9.0]) is True
    assert stats.first_run_slow([15.0, 10.0, 11.0, 9.0]) is False   # 15 is not > 1.5 x 10
    assert stats.first_run_slow([15.1, 10.0, 10.0]) is True
    assert stats.first_run_slow([30.0, 10.0]) is False              # fewer than 3 values
    assert stats.first_run_slow([None, 10.0, 11.0, 9.0]) is False   # first not measured
    assert stats.first_run_slow([30.0, None, 10.0]) is False        # one other measured value


def test_mann_whitney_exact_small_samples():
    assert stats.mann_whitney_u([1, 2, 3], [4, 5, 6]) == (0.0, 0.1)
    assert stats.mann_whitney_u([4, 5, 6], [1, 2, 3]) == (9.0, 0.1)
    u, p = stats.mann_whitney_u([1.1, 2.2, 3.3, 4.4], [5.5, 6.6, 7.7, 8.8])
    assert (u, p) == (0.0, pytest.approx(2 / 70))
    u, p = stats.mann_whitney_u([1, 3, 5, 7, 9], [2, 4, 6, 8, 10])
    assert u == 10.0 and p == pytest.approx(0.6904761904761905)


def test_mann_whitney_normal_approximation_with_ties():
    u, p = stats.mann_whitney_u([1, 2, 2, 3, 3, 3], [3, 4, 4, 5, 5, 6])
    # ranks of a: 1, 2.5, 2.5 and 5.5 x 3 (the four 3s share ranks 4..7) → R1 = 22.5, U = 22.5 - 21 = 1.5
    # tie groups 2, 4, 2, 2: sum(t^3 - t) = 78; variance = 36/12 * (13 - 78/132); continuity 0.5
    z = (abs(1.5 - 18) - 0.5) / math.sqrt(3 * (13 - 78 / 132))
    assert u == 1.5
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert p == pytest.approx(0.008732768512539242)  # scipy.stats.mannwhitneyu, method="asymptotic"


def test_mann_whitney_all_tied_and_empty():
    assert stats.mann_whitney_u([2, 2, 2], [2, 2]) == (3.0, 1.0)
    with pytest.raises(ValueError, match="at least one measured value on each side"):
        stats.mann_whitney_u([None], [1.0])


def test_differs_with_enough_runs_uses_mann_whitney():
    result = stats.differs([10.0, 10.2, 9.9, 10.1, 10.4], [8.0, 8.1, 7.9, 8.3, None, 8.2])
    assert result == {"test": "Mann-Whitney U (exact)", "p": 2 / 252, "beyond_noise": True,
                      "why": "Mann-Whitney U (exact), n=5 vs 5: p=0.007937 < 0.05"}
    overlap = stats.differs([1, 3, 5, 7, 9], [2, 4, 6, 8, 10])
    assert overlap["beyond_noise"] is False
    assert overlap["why"] == "Mann-Whitney U (exact), n=5 vs 5: p=0.6905 >= 0.05"


def test_differs_three_per_side_cannot_reach_significance_and_says_so():
    assert stats.differs([1, 2, 3], [7, 8, 9]) == {
        "test": "Mann-Whitney U (exact)", "p": 0.1, "beyond_noise": False,
        "why": "Mann-Whitney U (exact), n=3 vs 3: p=0.1 >= 0.05; with 3 vs 3 runs the smallest possible p is 0.1, "
               "so no difference can show at 0.05: run at least 4 per side"}


def test_differs_with_few_runs_compares_ranges():
    assert stats.differs([10.0, 11.0], [5.0, 6.0, 5.5]) == {
        "test": "range overlap", "p": None, "beyond_noise": True,
        "why": "n=2 vs 3 (< 3 on a side, no test): ranges [10, 11] vs [5, 6] don't overlap"}
    assert stats.differs([10.0], [9.0, 10.5]) == {
        "test": "range overlap", "p": None, "beyond_noise": False,
        "why": "n=1 vs 2 (< 3 on a side, no test): ranges [10, 10] vs [9, 10.5] overlap"}


def test_differs_with_an_empty_side():
    assert stats.differs([None], [1.0, 2.0]) == {"test": None, "p": None, "beyond_noise": None,
                                                 "why": "no measured values on the first side"}
    assert stats.differs([], []) == {"test": None, "p": None, "beyond_noise": None,
                                     "why": "no measured values on either side"}
