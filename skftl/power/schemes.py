"""The power-management schemes by family, and the hooks the kernel calls, each routed to the
family of the run's scheme.

A family is a module of hooks (the contract: ``skftl.power.hooks``): ``hooks`` itself (NPM),
``schemes_ppm``, ``schemes_dcc``, ``schemes_ring`` (MTPM, KMTPM_A, KMTPM_SA, NOKEY) and
``schemes_controller`` (CTRL); a family tells its schemes apart by ``S.prm[PARAM_SCHEME]``.
The kernel calls the hooks below, which pass each call to the family's hook
(``S.prm[PARAM_FAMILY]``), or to NPM's where the family leaves it out. One kernel thus serves
every scheme: a kernel per family, each compiled with its hooks alone, took twice the cold
compile time for no measurable speed-up (the branch is taken the same way at every event).

Adding a scheme: a variant of a family is a new ``state.SCHEMES`` value its hooks test; a new
family is a module of hooks, a ``FAMILY_*`` id, a branch in each hook below it defines, and an
entry in ``state.KERNEL_MODULES``.
"""

from __future__ import annotations

from skftl.power import hooks, schemes_controller, schemes_dcc, schemes_ppm, schemes_ring
from skftl.power.state import (
    CTRL,
    DCC,
    KMTPM_A,
    KMTPM_SA,
    MTPM,
    NOKEY,
    NPM,
    PARAM_FAMILY,
    PPM,
    SCHEMES,
    inline,
)

FAMILY_NPM, FAMILY_PPM, FAMILY_DCC, FAMILY_RING, FAMILY_CONTROLLER = 0, 1, 2, 3, 4
#: family id -> its module of hooks
FAMILIES = {
    FAMILY_NPM: hooks,
    FAMILY_PPM: schemes_ppm,
    FAMILY_DCC: schemes_dcc,
    FAMILY_RING: schemes_ring,
    FAMILY_CONTROLLER: schemes_controller,
}
#: scheme (``state.SCHEMES`` value) -> its family
FAMILY_OF = {
    NPM: FAMILY_NPM,
    PPM: FAMILY_PPM,
    DCC: FAMILY_DCC,
    MTPM: FAMILY_RING,
    KMTPM_A: FAMILY_RING,
    KMTPM_SA: FAMILY_RING,
    NOKEY: FAMILY_RING,
    CTRL: FAMILY_CONTROLLER,
}
#: schemes whose chips return tokens at every sub-atomic boundary (``PARAM_SUBATOMIC_STEPS``)
SUBATOMIC_STEPS = (KMTPM_SA, CTRL)
assert set(FAMILY_OF) == set(SCHEMES.values())


def undecided_types(scheme: int, arrays: tuple) -> int:
    """``PARAM_UNDECIDED_TYPES`` of ``scheme`` (the family's ``undecided_types``, none without
    one) for the tables ``arrays``."""
    family = FAMILIES[FAMILY_OF[scheme]]
    return family.undecided_types(arrays) if hasattr(family, "undecided_types") else 0


@inline
def init(S):
    family = S.prm[PARAM_FAMILY]
    if family == FAMILY_RING:
        schemes_ring.init(S)
    elif family == FAMILY_CONTROLLER:
        schemes_controller.init(S)
    else:
        hooks.init(S)


@inline
def attempt(S, c, t):
    family = S.prm[PARAM_FAMILY]
    if family == FAMILY_RING:
        schemes_ring.attempt(S, c, t)
    elif family == FAMILY_DCC:
        schemes_dcc.attempt(S, c, t)
    elif family == FAMILY_CONTROLLER:
        schemes_controller.attempt(S, c, t)
    elif family == FAMILY_PPM:
        schemes_ppm.attempt(S, c, t)
    else:
        hooks.attempt(S, c, t)


@inline
def release(S, c, t, tokens, boundary):
    family = S.prm[PARAM_FAMILY]
    if family == FAMILY_RING:
        schemes_ring.release(S, c, t, tokens, boundary)
    elif family == FAMILY_CONTROLLER:
        schemes_controller.release(S, c, t, tokens, boundary)
    else:
        hooks.release(S, c, t, tokens, boundary)


@inline
def earliest_packet(S, te, i):
    if S.prm[PARAM_FAMILY] == FAMILY_RING:
        return schemes_ring.earliest_packet(S, te, i)
    return hooks.earliest_packet(S, te, i)


@inline
def on_packet(S, p, t):
    if S.prm[PARAM_FAMILY] == FAMILY_RING:
        return schemes_ring.on_packet(S, p, t)
    return hooks.on_packet(S, p, t)


@inline
def grant_channel(S, c, t):
    if S.prm[PARAM_FAMILY] == FAMILY_DCC:
        schemes_dcc.grant_channel(S, c, t)
    else:
        hooks.grant_channel(S, c, t)


@inline
def check(S):
    family = S.prm[PARAM_FAMILY]
    if family == FAMILY_RING:
        schemes_ring.check(S)
    elif family == FAMILY_CONTROLLER:
        schemes_controller.check(S)
    else:
        hooks.check(S)
