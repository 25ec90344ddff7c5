"""Checks of the ``lpmt`` section that need no trace: every DRAM layout a run builds (each
placement with each associativity and bank count it is run with) is tried before anything
is simulated. ``run`` calls :func:`check` first; the workflow calls it while it plans, so a
dry run reports the same error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skftl.dram.layout import Layout
from skftl.dram.lpmt import LpmtConfig
from skftl.errors import ConfigError

#: placements of the sensitivity runs when ``lpmt.sensitivity.placements`` is not given
SENSITIVITY_PLACEMENTS = ("single", "set_per_bank", "interleaved")


def layouts(cfg: Mapping[str, Any]) -> list[tuple[str, str, int, int]]:
    """(config keys it comes from, placement, ways per set, banks) of every layout a run of
    ``cfg`` builds."""
    sec = cfg["lpmt"]
    sens = sec.get("sensitivity") or {}
    assoc, banks = int(sec["assoc"]), int(sec["n_banks"])
    main = [f"lpmt.placements[{i}] = {pl}" for i, pl in enumerate(sec["placements"])]
    s_pl = list(sens.get("placements", SENSITIVITY_PLACEMENTS))
    out = [(f"{k}, lpmt.assoc = {assoc}, lpmt.n_banks = {banks}", pl, assoc, banks)
           for k, pl in zip(main, sec["placements"], strict=True)]  # fmt: skip
    for pl in s_pl:
        keys = f"lpmt.sensitivity.placements: {pl}"
        out.append((f"{keys}, lpmt.assoc = {assoc}, lpmt.n_banks = {banks}", pl, assoc, banks))
        for i, a in enumerate(sens.get("assoc", [])):
            where = f"{keys}, lpmt.sensitivity.assoc[{i}] = {a}, lpmt.n_banks = {banks}"
            out.append((where, pl, int(a), banks))
        for i, nb in enumerate(sens.get("n_banks", [])):
            where = f"{keys}, lpmt.assoc = {assoc}, lpmt.sensitivity.n_banks[{i}] = {nb}"
            out.append((where, pl, assoc, int(nb)))
    return out


def check(cfg: Mapping[str, Any]) -> None:
    """Raise ConfigError naming the keys and values of the first layout that cannot be
    built (e.g. ways per bank that do not tile a DRAM row)."""
    row = LpmtConfig()  # the row and entry sizes are the cited part's, not config keys
    pages_per_block = int(cfg["lpmt"]["pages_per_block"])
    for where, placement, assoc, banks in layouts(cfg):
        try:
            Layout.build(placement, banks, assoc, 1, pages_per_block, row.row_bytes,
                         row.entry_bytes)  # fmt: skip
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
