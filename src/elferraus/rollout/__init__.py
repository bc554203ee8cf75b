"""Determinized rollouts: the search primitive of the ``hard``/``expert`` players.

:func:`search` evaluates candidate moves for the seat to move (the
*searcher*) by sampling the cards it cannot see many times (the other hands
and the pile order: a *determinization*) and playing every candidate out to
the end of the game on each sample with fast policies. This module is the
pure-Python reference; ``elferraus._core`` has the same functions in C with
bit-identical results (``tests/rollout/test_rollout.py`` checks that), and the
callers use the compiled one when it was built::

    from elferraus._core import search      # or: from elferraus.rollout import search

Functions (all arguments keyword-only except in :func:`random_playouts`):

- :func:`search`: win counts, playout counts and penalty sums per candidate;
- :func:`search_rounds`: :func:`search` of one sample for each of a list of (policies, seed), the
  wins of each candidate per sample;
- :func:`sample_deals`: the determinizations :func:`search` plays (hands,
  pile, playout seed), for tests and diagnostics;
- :func:`playout`: the moves of one playout from a fully known position;
- :func:`random_playouts`: whole games from fresh deals (a benchmark).

Cards are indices ``colour * 20 + number - 1``; hands, ``unknown`` and
``fit`` are int bitmasks over them, and ``fit``, ``laid``, ``draws`` and
``last_drawn`` mean what they mean in :class:`elferraus._pystate.PyState`
(``_fit_mask()`` and ``_phase()``). Move codes: a card index lays that card,
``-1`` draws, ``-2`` passes. The rules engine inside a playout is PyState's,
move for move: the same legal moves in the same order (lays by increasing
index, then draw or pass), the opening 11 and "a drawn card laid ends the
turn" (``ends_after_draw``) ending the turn by themselves. One difference,
at the opening only (before any 11 is on the table): the legal move is the
lowest-index 11 *in the mover's hand*, where PyState takes the holder of the
lowest 11 over all hands. The two agree in every real position (the mover
at the opening holds the lowest dealt 11); a sampled deal may put a lower 11
in another hand, and the search does not let that change whose turn it is.

Random numbers
--------------
Everything random comes from SplitMix64 streams (:class:`SplitMix64`):
``next()`` adds ``0x9E3779B97F4A7C15`` to the state and mixes it; a random
integer in ``[0, n)`` is ``(next() * n) >> 64`` and a random float in
``[0, 1)`` is ``(next() >> 11) * 2**-53``. A Fisher-Yates shuffle of a list
``a`` of ``n`` items is: for ``i`` from ``n - 1`` down to ``1``, ``j =``
random integer in ``[0, i + 1)``, swap ``a[i]`` and ``a[j]``.

:func:`search` and :func:`sample_deals` draw from one stream seeded with
``seed mod 2**64``, in this order, for each determinization in turn:

1. the unknown cards, as a list in increasing index order, are shuffled
   (Fisher-Yates; ``n - 1`` numbers for ``n`` cards);
2. the cards are dealt in that shuffled order, one random float per card:
   the destinations are the other seats in increasing seat order, then the
   pile; destination ``d`` with ``r_d`` places left has the weight
   ``p_d = r_d * w_d(card)`` (``0.0`` when ``r_d == 0``; ``w = 1.0`` where
   the seat's weights are None, and ``w = 1.0`` for the pile). Weights of
   exactly 0 are kept whenever the deal allows it: while the cards not dealt
   yet can still all be placed where their weight is positive (Hall's
   condition over the sets of destinations), a destination after which they
   could not gets ``p_d = 0.0``. (Without weights of 0 this never happens:
   the look-ahead changes nothing.) If all ``p_d`` are ``0.0``, ``p_d =
   r_d`` (as a float) for the seats instead. With ``total`` the sum of the
   ``p_d`` (in that order) and ``u = float * total``, the card goes to the
   first destination ``d`` with ``p_d > 0`` and ``u < acc``, where ``acc``
   is the running sum of the ``p_d`` up to and including ``d``; if rounding
   leaves no such ``d``, to the last destination with ``p_d > 0``;
3. the cards dealt to the pile, in the order they were dealt, are shuffled
   (Fisher-Yates) and that is the pile, top (drawn first) first;
4. one 64-bit number from the stream is the *playout seed*.

Then, for each candidate in the given order, a fresh SplitMix64 stream seeded
with the playout seed drives that candidate's playout (common random
numbers: every candidate of a determinization sees the same stream). A
playout draws from its stream only when a seat with the random policy has
more than one legal move (one random integer per such decision); the greedy
and medium policies draw nothing.

:func:`random_playouts` uses one stream seeded with ``seed mod 2**64`` for
everything, game after game: the deal (the 80 cards ``0..79`` in order,
shuffled with Fisher-Yates; seat ``s`` gets the cards at positions
``s * h`` to ``(s + 1) * h - 1``, the rest is the pile, top first; the whole
deal is repeated from a fresh ``0..79`` while no 11 is in a hand), then the
game's random-policy decisions.

Policies
--------
Inside a playout every policy sees where every card is (perfect
information); ties go to the lowest card index.

- ``0`` random: uniform over the legal moves;
- ``1`` greedy: the lowest-index legal lay, else draw if legal, else pass
  (the first legal move);
- ``2`` medium: :mod:`elferraus.bots.medium` with perfect information.
  Laying card ``x`` is scored by a walk from the next card beyond ``x`` in its
  row's direction (from both 10 and 12 for an opening 11, summed): that card
  is *free* if it is the mover's own or beyond 1..20; otherwise *released*
  is the number of consecutive cards from there that are in other hands, and
  if that run ends at a card of the mover's, *unlocked* is the length of the
  mover's consecutive run from there (else 0). ``score = 1 + 0.5 * free -
  w * released + 20 * unlocked``, ``w = 1.6`` if some other seat holds at most
  3 cards else ``1.0``, times ``0.6`` if the mover holds at most 2 cards.
  Decision: a single legal move is taken; a mover who can lay its whole hand
  this turn from the current table (not in the phase after a draw) lays its
  lowest legal card; else the best-scoring lay is laid if its score is above
  the threshold (``-0.4`` when pass is legal after drawing, ``0`` when pass
  is legal otherwise or when draw is legal; no threshold when neither is),
  else it passes or draws. Scores are computed exactly, in hundredths
  (``100 + 50 * free - W * released + 2000 * unlocked`` with ``W`` in
  {100, 160, 60, 96}): this makes the same decisions as the floating-point
  formula (no two different scores are closer than 0.04 and none equals a
  threshold) and the same in C and Python by construction.
- ``3`` blocker, ``4`` tight-blocker, ``5`` one-lay: the players of
  :mod:`elferraus.bots.blocking`, which read only their own hand and the
  table, so perfect information changes nothing for them. Each legal lay
  opens one *door* (two for an 11, which always opens its row) beyond the
  card: its *gap* is the run of numbers outward not in the mover's hand, its
  *unlocks* the run of the mover's own cards right after. Lays are ordered
  by the gaps' sum, then the most unlocked, then the lowest index.
  one-lay passes once it has laid this turn, else lays the first lay, else
  draws or passes. blocker and tight-blocker lay the first lay when the
  mover can lay its whole hand this turn (in the phase after a draw with
  ``ends_after_draw``: when it holds one card); else the first lay they
  accept (blocker: every door has gap 0, or gap at most ``LEAD_GAP`` (2)
  before an own card; tight-blocker: every gap is 0); else they draw or
  pass when that is legal, else lay the first lay. Under ``must_play`` that
  is the must-play version of each style: the legal moves leave it no
  other choice.
- ``6`` hoarder: lays only to go out (as medium does: the whole hand from
  the current table, not in the phase after a draw) or when it may neither
  draw nor pass (an empty pile, or ``must_play``), and then lays medium's
  choice; otherwise it draws, or ends its turn keeping every card. It holds
  the cards the others need, drains the pile, and then lays one card a
  turn: against players who lay whatever they can or who block it wins
  most games (docs/research.md), so it is ``expert-reads``' model of
  itself.
"""

from __future__ import annotations

from elferraus.rollout.search import playout, random_playouts, sample_deals, search, search_rounds
from elferraus.rollout.simulation import (
    MAX_ACTIONS,
    POLICY_BLOCKER,
    POLICY_GREEDY,
    POLICY_HOARDER,
    POLICY_MEDIUM,
    POLICY_ONE_LAY,
    POLICY_RANDOM,
    POLICY_TIGHT_BLOCKER,
    SplitMix64,
)

__all__ = [
    "MAX_ACTIONS",
    "POLICY_BLOCKER",
    "POLICY_GREEDY",
    "POLICY_HOARDER",
    "POLICY_MEDIUM",
    "POLICY_ONE_LAY",
    "POLICY_RANDOM",
    "POLICY_TIGHT_BLOCKER",
    "SplitMix64",
    "playout",
    "random_playouts",
    "sample_deals",
    "search",
    "search_rounds",
]
