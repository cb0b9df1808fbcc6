"""Issue 43, finding 18 (its last part): ``tournament adjudicate --ranking`` kept only the parts that were
ASCII digits and dropped the rest without a word, so ``--ranking 3,١,5`` ranked players 3 and 5 only (and a
``-1`` went through as -1). Each part is a player's number in ASCII digits now, or the command is refused in
one line naming it, before anything is read or written."""

from __future__ import annotations

import argparse

import pytest

from services.cli_common import plain_numbers
from tests.integration.cli.test_cli import hm


@pytest.mark.parametrize("ranking", ["3,١,5", "0,²", "1,-1", "0,,1", "0;1", "1_0,2", "", " , "])
def test_a_ranking_with_a_part_that_is_not_a_plain_number_is_refused_in_one_line(
    redis_url: str, redis_client: object, ranking: str
) -> None:
    refused = hm(
        "tournament", "adjudicate", "t", "1", "1", "--ranking", ranking, "--reason", "r", url=redis_url
    )
    assert refused.returncode == 2, refused.stderr
    assert b"is not a player's number" in refused.stderr and b"e.g. 3,0,5" in refused.stderr
    assert b"Traceback" not in refused.stderr


def test_plain_rankings_are_read_in_order_and_others_name_the_part() -> None:
    assert plain_numbers("3,0,5") == [3, 0, 5]
    assert plain_numbers(" 3, 0 ,5 ") == [3, 0, 5]
    with pytest.raises(argparse.ArgumentTypeError, match="'١'"):
        plain_numbers("3,١,5")
