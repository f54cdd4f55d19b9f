"""Prompt lookup by the longest match (app/race/lookup.py): what it copies and the match length it reports."""

from __future__ import annotations

import torch

from app.race.lookup import NO_MATCH, longest_match, proposal


def ids(*xs: int) -> torch.Tensor:
    return torch.tensor(xs)


def test_the_longest_agreement_wins_over_an_earlier_short_one():
    #            0  1  2  3  4  5  6  7  8  9 10
    text = ids(5, 9, 1, 2, 3, 7, 8, 3, 4, 2, 3)  # ends with "2 3": "3" at 4 follows "2", "3" at 7 does not
    match = longest_match(text, 4)
    assert (match.start, match.length) == (5, 2)
    assert match.available == 4


def test_ties_go_to_the_most_recent_match():
    text = ids(1, 2, 1, 3, 1)  # "1" occurs at 0 and 2, each a one-token agreement
    match = longest_match(text, 3)
    assert (match.start, match.length, match.available) == (3, 1, 2)


def test_no_earlier_occurrence_means_no_match():
    assert longest_match(ids(1, 2, 3), 5) == NO_MATCH
    assert longest_match(ids(1), 5) == NO_MATCH
    assert longest_match(ids(1, 1), 0) == NO_MATCH


def test_the_copy_never_runs_past_the_text_or_the_cap():
    text = ids(*range(20), *range(5))  # ends with 0..4, which first appeared at the start
    match = longest_match(text, 8)
    assert match.start == 5 and match.length == 5 and match.available == 8
    assert longest_match(text, 100).available == len(text) - 5


def test_a_copy_stops_before_an_end_of_sequence_token():
    text = ids(4, 5, 6, 0, 7, 4, 5)  # would copy "6 0 7"; 0 ends a sequence
    copied, match = proposal(text, 3, eos_ids=torch.tensor([0]))
    assert copied.tolist() == [6] and match.length == 2
    copied, _ = proposal(text, 3)
    assert copied.tolist() == [6, 0, 7]


def test_a_loop_is_copied_a_full_draft_ahead():
    text = ids(9, 1, 2, 3, 1, 2, 3, 1, 2, 3)  # a loop of period 3: the most recent match reaches 3 tokens to the end
    copied, match = proposal(text, 7)
    assert match.length >= 3 and match.available == 3
    assert copied.tolist() == [1, 2, 3, 1, 2, 3, 1]


def test_a_tail_not_yet_seen_to_repeat_is_not_extended():
    text = ids(4, 7, 5, 6, 8, 4, 7)  # "4 7" matched (2 tokens) with 5 tokens after it: no loop seen
    copied, match = proposal(text, 8)
    assert (match.length, copied.tolist()) == (2, [5, 6, 8, 4, 7])
