"""Profile-shape variants for the sensitivity study (beyond the paper): the paper's
measured currents are unpublished, so we vary the parts of the shape it does not pin down.
Also the profiles a device runs (``device_profiles``): the shipped profiles give tR with the
data-out inside the chip, assume 3 verifies per MSB loop and carry the read peak of another
chip family; the device's read current scale, read model and verify count reshape them so
Table IV's tR and tPROG still hold."""

from __future__ import annotations

import numpy as np

from skftl.errors import ConfigError
from skftl.power.device import Device
from skftl.power.profiles import (
    ATOMICS,
    PROG_EXEC,
    PROG_VERIFY,
    READ_DATAOUT,
    READ_EXEC,
    READ_SETUP,
    SAMPLE_NS,
    Profiles,
    sub_atomic_split,
)

VARIANTS = {
    "default": "the shipped calibrated model",
    "flat_subatomic": "every sub-atomic operation held at its peak (no gap below the tokens)",
    "deep_valleys": "currents below their sub-atomic peak lowered by 40 %",
    "long_precharge": "program pre-charge (15-token phase) three times longer",
    "short_precharge": "program pre-charge half as long",
    "short_exec": "program execution half as long (32.2 us), verify stretched to 44.8 us so an LSB "
    "loop still takes 77 us (an MSB program then takes 1.67 ms instead of 1.022 ms)",
}
# (``short_read_exec``, read execution shortened in favour of the on-chip data-out, was
# dropped: with the data-out on the channel the chip part is re-stretched to tR, undoing it)


def profile_variant(prof: Profiles, name: str, interval_ns: int = 500) -> Profiles:
    """``prof`` reshaped as named in ``VARIANTS``; peaks are unchanged, and durations too
    except for ``short_exec``."""
    if name not in VARIANTS:
        raise ConfigError(f"unknown profile variant {name!r}; known: {', '.join(VARIANTS)}")
    if name == "default":
        return prof
    if name == "short_exec":
        total = len(prof.samples[PROG_EXEC]) + len(prof.samples[PROG_VERIFY])
        n_exec = len(prof.samples[PROG_EXEC]) // 2
        out = list(prof.samples)
        out[PROG_EXEC] = _resample(out[PROG_EXEC], n_exec)
        out[PROG_VERIFY] = _resample(out[PROG_VERIFY], total - n_exec)
        return Profiles(tuple(out), f"{prof.source} [variant {name}]")
    out = []
    for a in range(len(ATOMICS)):
        s = prof.samples[a].copy()
        sa = sub_atomic_split(s, interval_ns)
        if name in ("flat_subatomic", "deep_valleys"):
            for lo, hi, pk in zip(sa.start, sa.stop, sa.peak, strict=True):
                seg = s[lo:hi]
                if name == "flat_subatomic":
                    seg[:] = pk
                else:
                    seg[seg < pk] = np.round(seg[seg < pk] * 0.6).astype(np.int64)
        elif a == PROG_EXEC and len(sa.start) > 1:
            e1 = int(sa.stop[0])
            e2 = int(sa.stop[1])
            top = int(sa.peak[0])
            if name == "long_precharge":
                ext = min(2 * e1, e2 - e1 - 1)  # keep at least one sample of the next phase
                s[e1 : e1 + ext] = top
            else:  # short_precharge: the second half of the pre-charge joins the next phase
                half = e1 // 2
                s[half:e1] = s[e1]
        out.append(s)
    return Profiles(tuple(out), f"{prof.source} [variant {name}]")


def _resample(s: np.ndarray, n: int) -> np.ndarray:
    """Stretch or compress a 40 ns profile to ``n`` samples (nearest earlier sample)."""
    return s[(np.arange(n) * len(s)) // n].copy()


def read_on_channel(prof: Profiles, dataout_ns: int) -> Profiles:
    """Data-out moved from the chip to the channel: Table IV's tR (setup + execution +
    the profile's data-out, 52 us in the shipped model) becomes setup + execution, the
    execution stretched over the old data-out time (tR as datasheets define it: until the
    page is in the page buffer); the data-out keeps its current shape, stretched over
    ``dataout_ns`` (the page at the bus rate)."""
    out = list(prof.samples)
    n_exec = len(out[READ_EXEC]) + len(out[READ_DATAOUT])
    out[READ_EXEC] = _resample(out[READ_EXEC], n_exec)
    out[READ_DATAOUT] = _resample(out[READ_DATAOUT], dataout_ns // SAMPLE_NS)
    return Profiles(tuple(out), f"{prof.source} [data-out on the channel, {dataout_ns} ns]")


def resplit_verifies(prof: Profiles, verifies: int, calibrated: int = 3) -> Profiles:
    """Program execution and verify re-split for ``verifies`` per MSB loop so that both
    program times the profiles were calibrated to with ``calibrated`` verifies stay: the LSB
    loop (execution + 1 verify) and the MSB loop (execution + ``verifies`` verifies). With
    ``e + v = L`` and ``e + k v = M``: ``v = (M - L) / (k - 1)``; shapes are resampled."""
    if verifies == calibrated:
        return prof
    if verifies < 2:
        raise ConfigError(
            f"mtpm.device.msb_verifies = {verifies}: an MSB loop needs >= 2 verifies to keep "
            "tPROG (MSB) above tPROG (LSB)"
        )
    e, v = len(prof.samples[PROG_EXEC]), len(prof.samples[PROG_VERIFY])
    v_new = (calibrated - 1) * v // (verifies - 1)
    if (calibrated - 1) * v % (verifies - 1) or v_new >= e + v:
        raise ConfigError(
            f"mtpm.device.msb_verifies = {verifies}: the calibrated loop ({e + v} samples) "
            f"cannot be re-split into whole 40 ns samples"
        )
    out = list(prof.samples)
    out[PROG_EXEC] = _resample(out[PROG_EXEC], e + v - v_new)
    out[PROG_VERIFY] = _resample(out[PROG_VERIFY], v_new)
    return Profiles(tuple(out), f"{prof.source} [{verifies} verifies per MSB loop]")


def scale_read_current(prof: Profiles, scale: float) -> Profiles:
    """Every read phase's current (setup, execution, data-out) times ``scale``; the shape and
    durations stay. ``prof`` itself when ``scale`` is 1."""
    if scale == 1.0:
        return prof
    return prof.scaled({READ_SETUP: scale, READ_EXEC: scale, READ_DATAOUT: scale})


def device_profiles(prof: Profiles, device: Device, calibrated_verifies: int = 3) -> Profiles:
    """The profiles as ``device`` runs them: read current scaled (``scale_read_current``),
    verify re-split (``resplit_verifies``) and, under the channel read model, data-out on the
    channel (``read_on_channel``)."""
    out = scale_read_current(prof, device.read_current_scale)
    out = resplit_verifies(out, device.msb_verifies, calibrated_verifies)
    if device.read_model == "channel":
        out = read_on_channel(out, device.read_dataout_ns)
    return out
