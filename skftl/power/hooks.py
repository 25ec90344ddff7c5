"""The hooks of a power-management scheme, their contract, and no management's (NPM)
implementation of each (the defaults).

A scheme **family** is a module that defines some of the hooks below as Numba functions
(``skftl.power.chip.inline``); every hook it leaves out is this module's. The families:
``hooks`` (NPM), ``schemes_ppm`` (PPM's pre-charge lock), ``schemes_dcc`` (DCC's controller
schedule), ``schemes_ring`` (MTPM, KMTPM atomic and sub-atomic, the no-key ring) and
``schemes_controller`` (CTRL, the controller's token pool). ``skftl.power.schemes`` registers
each scheme by name under its family and routes the kernel's calls to that family's hooks; a
family tells its schemes apart by ``S.prm[PARAM_SCHEME]``. The kernel (``skftl.power.kernel``)
orders the events and calls the hooks; a hook changes the state only through ``S`` and the
chip primitives (``skftl.power.chip``: ``start_atomic``, ``chain``, ``request_channel``).

Hooks (``S`` is the ``PowerState``, ``c`` a chip, ``t`` the time of the current event):

* ``init(S)``: put the scheme's tokens in place before the first event (a ring's tokens
  and key leave its first chip at slot 0; the controller's pool fills).
* ``attempt(S, c, t)``: chip ``c`` waits for its atomic operation ``S.chip[c, CHIP_ATOMIC]``
  (``CHIP_NEED`` tokens, waiting since ``CHIP_WAIT_SINCE``), called when it begins waiting and
  at every event the scheme gives it: its timer (``S.event_time[c]``), a packet it absorbed.
  The hook starts the atomic operation (``start_atomic``, then ``chain`` where the rest needs
  no decision), sets the chip's timer to when it may start, or leaves it waiting for another
  event of the scheme (a packet, a release) to start it.
* ``release(S, c, t, tokens, boundary)``: chip ``c`` reached a boundary of its running
  operation at ``t`` and no longer uses ``tokens``: ``SUBATOMIC_END`` (under
  ``PARAM_SUBATOMIC_STEPS``; the surplus is already off ``CHIP_USED_TOKENS``), ``ATOMIC_END``
  (the chip now waits for its next atomic operation; ``CHIP_USED_TOKENS`` is 0) or
  ``OPERATION_END`` (that was the operation's last; the chip takes its next operation after
  this).
* ``earliest_packet(S, te, i)`` -> ``(te, i)``: the earliest of the scheme's packet events
  (event index ``S.prm[PARAM_CHIPS] + p``) if earlier than ``te`` (event ``i``), else
  ``(te, i)``; among equal times the lowest index.
* ``on_packet(S, p, t)`` -> a chip: packet ``p`` arrives at its target; the chip that should
  attempt its atomic operation now, or -1.
* ``grant_channel(S, c, t)``: an arbitrated channel is free at ``t`` and granted to chip
  ``c``'s channel atomic operation (its attempt started it with ``start_atomic``, which asked
  for the channel): the hook starts it (``chip.begin_atomic``) or sets when it will.
* ``check(S)``: under ``PARAM_CHECK_TOKENS``, after every event: count conservation errors
  (``STAT_CONSERVATION_ERRORS``) and the like.

Order within an event: the kernel first applies the event (a timer, a release, a packet),
then calls ``attempt`` for at most one chip, then ``check``.

On the Python side a family may define ``undecided_types(arrays) -> int``: bit ``ty`` set when
no atomic operation of an operation of type ``ty`` waits for a decision (``arrays``: the
tables, ``sim.Tables.arrays``), so the kernel runs such an operation whole as soon as its
transfer is booked; without it, none (NPM: every type).
"""

from __future__ import annotations

from skftl.power.chip import begin_atomic, chain, start_atomic
from skftl.power.state import A_DUR, CHIP_ATOMIC, CHIP_CHANNEL, TMPL_LEN, inline, lookup

HOOKS = (
    "init",
    "attempt",
    "release",
    "earliest_packet",
    "on_packet",
    "grant_channel",
    "check",
)


@inline
def init(S):
    pass


@inline
def attempt(S, c, t):
    """No management: every atomic operation starts at once, the whole operation in one go."""
    start_atomic(S, c, t, 0, False)
    chain(S, c, 0, False)


@inline
def release(S, c, t, tokens, boundary):
    pass


@inline
def earliest_packet(S, te, i):
    return te, i


@inline
def on_packet(S, p, t):
    return -1


@inline
def grant_channel(S, c, t):
    k = S.chip[c, CHIP_CHANNEL]
    a = S.chip[c, CHIP_ATOMIC]
    S.channel_free[k] = t + lookup(S, A_DUR, a)
    begin_atomic(S, c, a, t)


@inline
def check(S):
    pass


def undecided_types(arrays: tuple) -> int:
    """Every operation type: nothing is ever decided."""
    return (1 << len(arrays[TMPL_LEN])) - 1
