"""The sampling check's statistics (app/race/sampling_stats.py, docs/DESIGN.md §5.15): pure numpy, no models."""

from __future__ import annotations

import numpy as np
import pytest

from app.race.sampling_stats import ALPHA, OTHER, compare, compare_sequences, pooled_codes, splits_for, tv_distance


def draw(probs, n, seed):
    return np.random.default_rng(seed).choice(len(probs), size=n, p=probs).tolist()


def test_tv_distance_of_counts():
    assert tv_distance(np.array([5, 5, 0]), np.array([0, 5, 5])) == pytest.approx(0.5)
    assert tv_distance(np.array([1, 0]), np.array([0, 3])) == pytest.approx(1.0)
    assert tv_distance(np.array([2, 2]), np.array([4, 4])) == 0.0


def test_rare_tokens_are_pooled_into_other():
    a, b, names = pooled_codes([1] * 6 + [2, 3], [1] * 4 + [4, 5])
    assert names == [1, OTHER]
    assert a.tolist() == [0] * 6 + [1, 1] and b.tolist() == [0] * 4 + [1, 1]


def test_identical_samples_are_the_same_and_disjoint_ones_differ():
    same = compare("token 1", [1, 2, 3] * 40, [3, 2, 1] * 40, level=0.01, seed=(1, 0))
    assert same.tv_distance == 0.0 and same.p_value == 1.0 and not same.different
    apart = compare("token 1", [1] * 50 + [2] * 50, [3] * 50 + [4] * 50, level=0.01, seed=(1, 0))
    assert apart.tv_distance == 1.0 and apart.different
    assert apart.p_value == pytest.approx(1 / (1 + splits_for(0.01)))
    one = compare("token 1", [7] * 30, [7] * 30, level=0.01, seed=(1, 0))  # a single category: nothing to test
    assert one.p_value == 1.0 and one.min_detectable_tv == 0.0


def test_derandomised_the_same_samples_give_the_same_p_value():
    a, b = draw([0.5, 0.3, 0.2], 200, 1), draw([0.4, 0.35, 0.25], 200, 2)
    first, again = compare("t", a, b, 0.01, (3, 0)), compare("t", a, b, 0.01, (3, 0))
    assert (first.p_value, first.min_detectable_tv) == (again.p_value, again.min_detectable_tv)


def test_more_samples_detect_smaller_differences():
    p = [0.4, 0.3, 0.2, 0.1]
    small = compare("t", draw(p, 100, 1), draw(p, 100, 2), 0.01, (0, 0)).min_detectable_tv
    large = compare("t", draw(p, 1600, 1), draw(p, 1600, 2), 0.01, (0, 0)).min_detectable_tv
    assert large < small / 3  # about 1/sqrt(N): 16x the samples, a quarter of the detectable TV
    assert 0.02 < large < 0.12


def test_a_real_shift_is_found_and_chance_is_not_more_often_than_alpha():
    p, q = [0.5, 0.3, 0.2], [0.3, 0.3, 0.4]  # TV 0.2
    assert compare("t", draw(p, 300, 1), draw(q, 300, 2), 0.01, (0, 0)).different
    false_alarms = sum(compare("t", draw(p, 150, 2 * i), draw(p, 150, 2 * i + 1), 0.05, (i, 0)).p_value <= 0.05
                       for i in range(200))
    assert false_alarms <= 20  # 5 % expected (10 of 200); the permutation test is exact


def test_sequences_give_one_comparison_a_position_and_the_joint_of_the_first_two():
    plain = [(1, 2, 3), (1, 3, 3), (2, 2, -1)] * 30
    out = compare_sequences(plain, list(reversed(plain)), tokens=3, seed=4)
    assert [c.label for c in out] == ["token 1", "token 2", "token 3", "tokens 1-2"]
    assert all(c.level == pytest.approx(ALPHA / 4) and not c.different for c in out)
    assert out[3].top[0][0] in {(1, 2), (1, 3), (2, 2)}
    assert [c.label for c in compare_sequences([(1,)] * 10, [(2,)] * 10, tokens=1, seed=0)] == ["token 1"]
