"""The ``mqsim`` device preset: MQSim's default ssdconfig.xml (commit 7ec40e3) in skftl terms."""

import numpy as np

from skftl.nand import Ftl, FtlConfig, Geometry, Timing, resolve_nand
from skftl.nand.geometry import GIB


def test_mqsim_preset_is_mqsim_default_device():
    nand = resolve_nand({"preset": "mqsim"})
    geo = Geometry.from_config(nand)
    # 8 channels x 4 chips x 2 dies x 2 planes x 2048 blocks: the geometry's chips are dies
    assert (geo.channels, geo.n_chips, geo.planes_per_chip) == (8, 64, 2)
    assert (geo.blocks_per_plane, geo.pages_per_block, geo.page_size) == (2048, 256, 8192)
    assert geo.capacity_bytes == 512 * GIB
    t = Timing.from_config(nand)
    assert (t.t_read_ns, t.t_prog_ns, t.t_erase_ns) == (75_000, 750_000, 3_800_000)
    assert not t.copyback  # Use_Copyback_for_GC = false
    # 333 MT/s x 8 bit: an 8 KiB page crosses the channel in 8192 B / 333 MB/s = 24.6 us
    assert abs(t.transfer_ns(8192) - 8192 / 333e6 * 1e9) <= 1
    # Die_No_Per_Chip 2 sharing one chip; Data_Cache_Capacity 268435456 B, LRU eviction;
    # never-written LPAs read from flash (online_create_entry_for_reads)
    assert (t.die_model, t.dies_per_chip) == ("shared_chip", 2)
    assert (t.write_cache_mib, t.write_cache_policy) == (256, "lru")
    assert t.cache_pages(8192) == 268435456 // 8192
    assert t.unmapped_read == "array_read"


def _small_mqsim(**override) -> Ftl:
    nand = resolve_nand({"preset": "mqsim", "blocks_per_plane": 64, **override})
    return Ftl(Geometry.from_config(nand), Timing.from_config(nand), FtlConfig())


def test_mqsim_preset_keys_can_be_overridden():
    ftl = _small_mqsim()
    assert ftl.geometry.capacity_bytes == 16 * GIB
    # MQSim's 7 % over-provisioning is the default spare factor of the ftl section
    assert ftl.n_lpn == int(ftl.geometry.n_pages * 0.93)


def test_mqsim_preset_semantics_reach_the_device():
    """A write is acknowledged from the cache (0 us), a read of a never-written page costs
    an array read plus the transfer; without the cache the write waits for its program."""
    ops = (np.array([0, 100_000], np.int32), np.array([1, 0], np.int8))  # write 0, read 100000
    done = _small_mqsim().run_pages(*ops).tolist()  # completion (ns); all arrive at 0
    bare = _small_mqsim(write_cache={"capacity_mib": 0}, unmapped_read="complete_at_arrival")
    t_xfer = round(8192 / 333e6 * 1e9)
    assert done[0] == 0
    assert done[1] >= 75_000 + t_xfer
    assert bare.run_pages(*ops).tolist() == [t_xfer + 750_000, 0]
