"""The peers of bench/rating_peers.py under the online protocol: exact checks on a tiny synthetic log.

Each test skips, naming the package, when the peer's PyPI package is not installed
(``pip install '.[bench]'``).
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from discrank import GameLog, Validation, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import rating_peers  # noqa: E402


def _need(module):
    return pytest.importorskip(module, reason=f"the peer needs the PyPI package {module!r} (pip install '.[bench]')")


def tiny_log(seed=0, weeks=20, draws=True):
    """12 players whose skills drift, 3 match days a week (Mon, Wed, Sat) with 4 games each; a draw
    (score 0.5) about one game in five when ``draws``."""
    rng = np.random.default_rng(seed)
    n = 12
    skill = rng.normal(0.0, 1.0, n)
    a, b, s, t = [], [], [], []
    start = np.datetime64("2021-01-04")  # a Monday
    for w in range(weeks):
        skill = skill + rng.normal(0.0, 0.2, n)
        for d in (0, 2, 5):
            day = start + np.timedelta64(7 * w + d, "D")
            for _ in range(4):
                i, j = rng.choice(n, 2, replace=False)
                p = 1.0 / (1.0 + math.exp(-(skill[i] - skill[j])))
                u = rng.random()
                score = 0.5 if draws and u < 0.2 else float(rng.random() < p)
                a.append(f"p{i:02d}"), b.append(f"p{j:02d}"), s.append(score), t.append(day)
    return GameLog(np.array(a), np.array(b), np.array(s), np.array(t, dtype="datetime64[ns]"))


def _head(log, k):
    return GameLog(log.a[:k], log.b[:k], log.score[:k], log.time[:k])


def _rows(log, lo, hi):
    return GameLog(log.a[lo:hi], log.b[lo:hi], log.score[lo:hi], log.time[lo:hi])


def _phi(x):
    """The standard normal distribution function (the formula's Phi; trueskill's own ``cdf`` is an
    approximation to 1e-7)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


CUTOFF = np.datetime64("2021-03-01")  # after 8 weeks of the 20


def test_trueskill_online_predictions_are_a_manual_loop_of_rate_1vs1():
    ts = _need("trueskill")
    log = tiny_log()
    ev = evaluate({"ts": rating_peers.TrueSkillAdapter()}, log, cutoff=CUTOFF, protocol="online")
    train = log.time < CUTOFF
    draw = float(np.mean(log.score[train] == 0.5))
    env = ts.TrueSkill(draw_probability=draw)
    margin = ts.calc_draw_margin(draw, 2, env=env)
    ratings = {}

    def rate(i, j, s):
        ri, rj = ratings.setdefault(i, env.create_rating()), ratings.setdefault(j, env.create_rating())
        if s == 1.0:
            ratings[i], ratings[j] = ts.rate_1vs1(ri, rj, env=env)
        elif s == 0.0:
            ratings[j], ratings[i] = ts.rate_1vs1(rj, ri, env=env)
        else:
            ratings[i], ratings[j] = ts.rate_1vs1(ri, rj, drawn=True, env=env)

    for k in np.flatnonzero(train):
        rate(log.a[k], log.b[k], log.score[k])
    seen = set(log.a[train]) | set(log.b[train])
    expected, outcomes = [], []
    test = np.flatnonzero(~train)
    for day in np.unique(log.time[test]):  # one group per distinct time: predicted, then rated in order
        rows = test[log.time[test] == day]
        for k in rows:
            if log.a[k] in seen and log.b[k] in seen:
                ra, rb = ratings[log.a[k]], ratings[log.b[k]]
                c = math.sqrt(2.0 * env.beta ** 2 + ra.sigma ** 2 + rb.sigma ** 2)
                win = _phi((ra.mu - rb.mu - margin) / c)
                loss = _phi((rb.mu - ra.mu - margin) / c)
                expected.append(win + 0.5 * (1.0 - win - loss))
                outcomes.append((win, 1.0 - win - loss, loss))
        for k in rows:
            rate(log.a[k], log.b[k], log.score[k])
    assert ev.n_games == len(expected) > 100
    np.testing.assert_allclose(ev.predictions["ts"], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ev.outcomes["ts"], outcomes, rtol=0, atol=1e-12)  # the three-outcome loss's input
    assert ev.fitted["ts"].n_games_ == len(log)


def _glicko_manual(glicko2, games, tau):
    """Glicko-2 by hand with glicko2.Player over complete weeks: {player: (mu, phi, vol, last week)}."""
    state = {}
    weeks = (games.time.astype("datetime64[D]").astype(np.int64) + 3) // 7
    for w in np.unique(weeks):
        rows = np.flatnonzero(weeks == w)
        start = {}
        for p in set(games.a[rows]) | set(games.b[rows]):
            if p in state:
                mu, phi, vol, last = state[p]
                start[p] = (mu, math.sqrt(phi ** 2 + (w - last - 1) * vol ** 2), vol)
            else:
                start[p] = (0.0, 350.0 / rating_peers.GLICKO_SCALE, 0.06)
        for p in sorted(start):
            opp, rd, out = [], [], []
            for k in rows:
                sides = ((games.a[k], games.b[k], games.score[k]), (games.b[k], games.a[k], 1 - games.score[k]))
                for me, op, s in sides:
                    if me == p:
                        opp.append(1500.0 + rating_peers.GLICKO_SCALE * start[op][0])
                        rd.append(rating_peers.GLICKO_SCALE * start[op][1])
                        out.append(s)
            mu, phi, vol = start[p]
            pl = glicko2.Player(1500.0 + rating_peers.GLICKO_SCALE * mu, rating_peers.GLICKO_SCALE * phi, vol)
            pl._tau = tau
            pl.update_player(opp, rd, out)
            state[p] = ((pl.rating - 1500.0) / rating_peers.GLICKO_SCALE, pl.rd / rating_peers.GLICKO_SCALE, pl.vol, w)
    return state


def _glicko_expected(state, a, b, week):
    def var(p):
        mu, phi, vol, last = state[p]
        return mu, phi ** 2 + (week - last - 1) * vol ** 2

    (ma, va), (mb, vb) = var(a), var(b)
    g = 1.0 / math.sqrt(1.0 + 3.0 * (va + vb) / math.pi ** 2)
    return 1.0 / (1.0 + math.exp(-g * (ma - mb)))


def test_glicko2_predicts_a_game_from_the_completed_periods_only():
    glicko2 = _need("glicko2")
    log = tiny_log(draws=False)
    weeks = (log.time.astype("datetime64[D]").astype(np.int64) + 3) // 7
    first = int(np.searchsorted(weeks, weeks[0] + 8))  # the first game of week 9
    w9 = weeks[first]
    mid = first + 4  # Monday's 4 games of week 9 absorbed, Wednesday's and Saturday's not
    nxt = int(np.searchsorted(weeks, w9 + 1))  # the first game of week 10
    later = _rows(log, mid, int(np.searchsorted(weeks, w9 + 2)))  # the rest of week 9 and week 10

    def adapter(k):
        return rating_peers.Glicko2Adapter(taus=(0.5,), periods=("week",)).fit(_head(log, k))

    upto_8, with_monday = adapter(first), adapter(mid)
    # the games of week 9: from the ratings at the start of week 9, Monday's games of week 9 unused
    same = _rows(log, mid, nxt)
    np.testing.assert_array_equal(with_monday.predict_games(same), upto_8.predict_games(same))
    # and equal to Glicko-2 by hand over weeks 1-8
    state = _glicko_manual(glicko2, _head(log, first), 0.5)
    hand = [_glicko_expected(state, same.a[k], same.b[k], w9) for k in range(len(same))]
    np.testing.assert_allclose(with_monday.predict_games(same), hand, rtol=0, atol=1e-12)
    # the games of week 10: week 9 is complete (everything absorbed of it is rated, on the spot)
    with_week9 = adapter(nxt)
    ten = _rows(log, nxt, later.a.size + mid)
    state = _glicko_manual(glicko2, _head(log, nxt), 0.5)
    hand = [_glicko_expected(state, ten.a[k], ten.b[k], w9 + 1) for k in range(len(ten))]
    np.testing.assert_allclose(with_week9.predict_games(ten), hand, rtol=0, atol=1e-12)
    assert not np.allclose(with_week9.predict_games(ten), upto_8.predict_games(ten))
    # the online walk through evaluate gives the same forecasts as the hand computation, week by week
    ev = evaluate({"g": rating_peers.Glicko2Adapter(taus=(0.5,), periods=("week",))}, log,
                  cutoff=log.time[first], protocol="online")
    seen = set(log.a[:first]) | set(log.b[:first])
    expected = []
    for w in np.unique(weeks[first:]):
        rows = np.flatnonzero(weeks == w)
        state = _glicko_manual(glicko2, _head(log, int(rows[0])), 0.5)
        expected += [_glicko_expected(state, log.a[k], log.b[k], w) for k in rows
                     if log.a[k] in seen and log.b[k] in seen]
    np.testing.assert_allclose(ev.predictions["g"], expected, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="before the last time absorbed"):
        with_week9.predict_games(_rows(log, first, first + 1))
    with pytest.raises(ValueError, match="updates must come in time order"):
        with_week9.update(_rows(log, first, first + 1))


ADAPTERS = {
    "Glicko2Adapter": ("glicko2", dict(taus=(0.5,), periods=("week",))),
    "TrueSkillAdapter": ("trueskill", {}),
    "OpenSkillAdapter": ("openskill", {}),
    "WHRAdapter": ("whr", dict(w2s=(8.0,))),
    "TTTAdapter": ("trueskillthroughtime", dict(gammas=(0.01,))),
    "KickScoreAdapter": ("kickscore", dict(dvars=(0.5,))),
}
YEARLY = ("TTTAdapter", "KickScoreAdapter")  # refit on every game absorbed once a calendar year


def _spy(name, adapter, monkeypatch, seen):
    """Count the games handed to the package itself."""
    if name == "Glicko2Adapter":  # each game is rated once from each side
        real = adapter._glicko2.Player.update_player

        def update_player(self, r, rd, out):
            seen.append(len(out) / 2)
            return real(self, r, rd, out)

        monkeypatch.setattr(adapter._glicko2.Player, "update_player", update_player)
    elif name == "TrueSkillAdapter":
        real = adapter._ts.rate_1vs1
        monkeypatch.setattr(adapter._ts, "rate_1vs1", lambda *x, **k: (seen.append(1), real(*x, **k))[1])
    elif name == "OpenSkillAdapter":
        real = adapter._model_cls.rate
        monkeypatch.setattr(adapter._model_cls, "rate", lambda self, *x, **k: (seen.append(1), real(self, *x, **k))[1])
    elif name == "WHRAdapter":
        real = adapter._whr.Base.create_games
        monkeypatch.setattr(adapter._whr.Base, "create_games", lambda self, g: (seen.append(len(g)), real(self, g))[1])
    elif name == "KickScoreAdapter":  # each fit: the observations of the model (every game observed so far)
        real = adapter._ks.TernaryModel.fit
        monkeypatch.setattr(adapter._ks.TernaryModel, "fit",
                            lambda self, *x, **k: (seen.append(len(self.observations)), real(self, *x, **k))[1])
    else:  # the History of the last yearly refit holds every game absorbed until then
        real = adapter._ttt.History

        def history(composition, *x, **k):
            seen.append(len(composition))
            return real(composition, *x, **k)

        monkeypatch.setattr(adapter._ttt, "History", history)


@pytest.mark.parametrize("name", list(ADAPTERS))
def test_update_absorbs_every_game_exactly_once(name, monkeypatch):
    module, kw = ADAPTERS[name]
    _need(module)
    log = tiny_log(weeks=12)
    if name in YEARLY:  # a year boundary, to force one refit: the last three weeks move to the next year
        shift = np.where(np.arange(len(log)) >= len(log) - 36, np.timedelta64(365, "D"), np.timedelta64(0, "D"))
        log = GameLog(log.a, log.b, log.score, log.time + shift)
    adapter = getattr(rating_peers, name)(**kw)
    seen = []
    _spy(name, adapter, monkeypatch, seen)
    k = 60  # five weeks fitted, seven weeks of updates
    adapter.fit(_head(log, k))
    weeks = (log.time.astype("datetime64[D]").astype(np.int64) + 3) // 7
    bounds = np.flatnonzero(np.r_[True, weeks[k + 1:] != weeks[k:-1], True]) + k
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        adapter.update(_rows(log, lo, hi))
    assert adapter.n_games_ == len(log)
    assert adapter.info["update_games"] == len(log) - k
    if name == "Glicko2Adapter":
        adapter._commit(adapter.state_)  # the last week is pending until a later game: rate it
        assert sum(seen) == len(log)
    elif name in YEARLY:
        # the fit, then one refit at the new year's first week, on every game absorbed by then
        assert seen == [k, len(log) - 24]
        refits = adapter.state_.refits if name == "TTTAdapter" else len(adapter.converged_)
        assert refits == 2
    else:
        assert sum(seen) == len(log)


def test_online_tuning_walks_the_last_tenth_and_keeps_the_best_value():
    _need("glicko2")
    log = tiny_log(draws=False)
    grid = dict(taus=(0.3, 1.2), periods=("week", "month"))
    online = rating_peers.Glicko2Adapter(**grid).fit(log, validation=Validation(online=True))
    frozen = rating_peers.Glicko2Adapter(**grid).fit(log, validation=Validation())
    assert online.info["tuning_protocol"] == "online" and frozen.info["tuning_protocol"] == "frozen"
    # each online score is the log loss of the walk from a fit on the first 90%
    part, rest, scored = rating_peers._online_split(log)
    for period in grid["periods"]:
        for tau in grid["taus"]:
            probe = rating_peers.Glicko2Adapter(taus=(tau,), periods=(period,)).fit(part)
            q = []
            weeks = (rest.time.astype("datetime64[D]").astype(np.int64) + 3) // 7
            for w in np.unique(weeks):
                rows = np.flatnonzero(weeks == w)
                keep = rows[scored[rows]]
                if keep.size:
                    query = GameLog(rest.a[keep], rest.b[keep], rest.score[keep], rest.time[keep])
                    q.append(probe.predict_games(query))
                probe.update(_rows(rest, rows[0], rows[-1] + 1))
            loss = rating_peers.log_loss(np.concatenate(q), rest.score[scored])
            assert online.info["tuning"][f"period={period}, tau={tau}"] == pytest.approx(loss, rel=0, abs=1e-15)
    best = min(online.info["tuning"], key=online.info["tuning"].get)
    assert best == f"period={online.info['params']['period']}, tau={online.info['params']['tau']}"


def test_ttt_forgets_its_last_fit_to_the_games_day():
    ttt = _need("trueskillthroughtime")
    log = tiny_log(weeks=6)
    adapter = rating_peers.TTTAdapter(gammas=(0.05,)).fit(log)
    st = adapter.state_
    game = GameLog(log.a[:1], log.b[:1], log.score[:1], log.time[-1:])
    later = GameLog(game.a, game.b, game.score, game.time + np.timedelta64(100, "D"))
    ia, ib = st.players.lookup(game.a, "t"), st.players.lookup(game.b, "t")
    day = float((log.time[-1] - log.time[0]) / np.timedelta64(1, "D"))
    for g, d in ((game, day), (later, day + 100.0)):
        va = st.sigma[ia[0]] ** 2 + (d - st.seen[ia[0]]) * 0.05 ** 2
        vb = st.sigma[ib[0]] ** 2 + (d - st.seen[ib[0]]) * 0.05 ** 2
        c = math.sqrt(2.0 * ttt.BETA ** 2 + va + vb)
        delta = st.mu[ia[0]] - st.mu[ib[0]]
        win, loss = _phi((delta - st.margin) / c), _phi((-delta - st.margin) / c)
        np.testing.assert_allclose(adapter.predict_outcomes(g)[0], [win, 1.0 - win - loss, loss], rtol=0, atol=1e-12)
        assert adapter.predict_games(g)[0] == pytest.approx(win + 0.5 * (1.0 - win - loss), abs=1e-12)
    assert adapter.state_.refits == 1 and adapter.n_games_ == len(log)


def test_kickscore_predicts_from_its_last_fit_at_the_games_time():
    ks = _need("kickscore")
    from scipy.special import ndtri

    log = tiny_log(weeks=6)
    adapter = rating_peers.KickScoreAdapter(dvars=(0.5,)).fit(log)
    st = adapter.state_
    draws = float(np.mean(log.score == 0.5))
    assert isinstance(st.model, ks.TernaryModel) and st.margin == pytest.approx(float(ndtri((1.0 + draws) / 2.0)))
    game = GameLog(log.a[:1], log.b[:1], log.score[:1], log.time[-1:])
    later = GameLog(game.a, game.b, game.score, game.time + np.timedelta64(100, "D"))
    ia, ib = st.players.lookup(game.a, "t"), st.players.lookup(game.b, "t")
    day = float((log.time[-1] - log.time[0]) / np.timedelta64(1, "D"))
    outs = []
    for g, d in ((game, day), (later, day + 100.0)):
        win, draw, loss = st.model.probabilities([int(ia[0])], [int(ib[0])], t=d / 365.25)
        outs.append(adapter.predict_outcomes(g)[0])
        np.testing.assert_allclose(outs[-1], [win, draw, loss], rtol=0, atol=1e-12)
        assert adapter.predict_games(g)[0] == pytest.approx(win + 0.5 * draw, abs=1e-12)
    assert not np.allclose(outs[0], outs[1])  # the Matern-3/2 part moves the scores on with time
    assert adapter.converged_.tolist() == [True] and adapter.n_games_ == len(log)
    # a log without draws: BinaryModel, no draw probability
    plain = rating_peers.KickScoreAdapter(dvars=(0.5,)).fit(tiny_log(weeks=6, draws=False))
    assert isinstance(plain.state_.model, ks.BinaryModel) and plain.state_.margin == 0.0
    out = plain.predict_outcomes(game)
    assert out[0, 1] == 0.0 and out[0].sum() == pytest.approx(1.0, abs=1e-12)


def test_kickscore_rates_each_advantage_column_as_an_item_on_a_side():
    _need("kickscore")
    base = tiny_log(weeks=6, draws=False)
    rng = np.random.default_rng(1)
    home = (rng.random(len(base)) < 0.7).astype(float)
    # the home side (a, when home is 1) wins three games in four, whatever the skills
    score = np.where(home == 1.0, (rng.random(len(base)) < 0.75).astype(float), base.score)
    log = GameLog(base.a, base.b, score, base.time, advantage=home[:, None], advantage_names=("home",))
    adapter = rating_peers.KickScoreAdapter(dvars=(0.5,)).fit(log)
    st = adapter.state_
    assert st.adv == ("advantage home",) and adapter.info["params"]["advantage items"] == "advantage home"
    ts, mean, _ = st.model.item["advantage home"].scores
    assert ts.size == int(home.sum()) and mean[-1] > 0.2  # one sample per home game; the edge is learned
    at_home = GameLog(log.a[:1], log.b[:1], log.score[:1], log.time[-1:], advantage=np.ones((1, 1)),
                      advantage_names=("home",))
    neutral = GameLog(at_home.a, at_home.b, at_home.score, at_home.time, advantage=np.zeros((1, 1)),
                      advantage_names=("home",))
    assert adapter.predict_games(at_home)[0] > adapter.predict_games(neutral)[0] + 0.05
    # without the columns: the model has no advantage item
    plain = rating_peers.KickScoreAdapter(dvars=(0.5,), advantage=False).fit(log)
    assert plain.state_.adv == () and "advantage home" not in plain.state_.model.item
