"""Two games of the same accounts rated at once (issue 44.9's repeat weight): made to happen, not hoped for.
The first game's writer is paused between its watched reads and its write while the second game is rated in
full; its write is then refused (WATCH), and it rates again from what the second left: the second game counts
in full and the first at 1/2, each account's history holds both, one after the other."""

from __future__ import annotations

import msgspec
import redis

from domain.engine import Outcome
from workers.jobs.account_ratings import RatingChange, history_key, pairs_key, rate_game, seat_account

ANN_WINS = Outcome(ranking=(0, 1), scores=(9, 1), winners=(0,))


def history(client: redis.Redis, account: str) -> list[RatingChange]:
    raw: list[bytes] = client.lrange(history_key("race", account), 0, -1)  # type: ignore[assignment]
    return [msgspec.json.decode(h, type=RatingChange) for h in raw]


def test_a_writer_paused_mid_rating_rates_again_after_the_other(redis_client: redis.Redis) -> None:
    for game_id in ("first", "second"):
        seat_account(redis_client, game_id, 0, "ann")
        seat_account(redis_client, game_id, 1, "bob")
    paused: list[bool] = []

    def meanwhile() -> None:
        if not paused:  # the first attempt only: the retry must write
            paused.append(True)
            assert rate_game(
                redis.Redis(connection_pool=redis_client.connection_pool), "second", "race", ANN_WINS
            )

    assert rate_game(redis_client, "first", "race", ANN_WINS, before_write=meanwhile)
    assert paused == [True]
    ann = history(redis_client, "ann")  # newest first
    assert [(c.game_id, c.weight, c.games) for c in ann] == [("first", 0.5, 2), ("second", 1.0, 1)]
    assert ann[0].before == ann[1].after  # the retry read the second game's rating, not the stale one
    assert [c.game_id for c in history(redis_client, "bob")] == ["first", "second"]
    assert redis_client.zcard(pairs_key("race", "ann,bob")) == 2
    assert not rate_game(redis_client, "first", "race", ANN_WINS)  # once only
