"""The ``mqsim`` device preset: MQSim's default ssdconfig.xml (commit 7ec40e3) in skftl terms."""

from skftl.nand import Ftl, FtlConfig, Geometry, Timing, resolve_nand
from skftl.nand.geometry import GIB


def test_mqsim_preset_is_mqsim_default_device():
    nand = resolve_nand({"preset": "mqsim"})
    geo = Geometry.from_config(nand)
    # 8 channels x 4 chips x 2 dies (one operation at a time each) x 2 planes x 2048 blocks
    assert (geo.channels, geo.n_chips, geo.planes_per_chip) == (8, 64, 2)
    assert (geo.blocks_per_plane, geo.pages_per_block, geo.page_size) == (2048, 256, 8192)
    assert geo.capacity_bytes == 512 * GIB
    t = Timing.from_config(nand)
    assert (t.t_read_ns, t.t_prog_ns, t.t_erase_ns) == (75_000, 750_000, 3_800_000)
    assert not t.copyback  # Use_Copyback_for_GC = false
    # 333 MT/s x 8 bit: an 8 KiB page crosses the channel in 8192 B / 333 MB/s = 24.6 us
    assert abs(t.transfer_ns(8192) - 8192 / 333e6 * 1e9) <= 1


def test_mqsim_preset_keys_can_be_overridden():
    nand = resolve_nand({"preset": "mqsim", "blocks_per_plane": 64})
    assert Geometry.from_config(nand).capacity_bytes == 16 * GIB
    # MQSim's 7 % over-provisioning is the default spare factor of the ftl section
    ftl = Ftl(Geometry.from_config(nand), Timing.from_config(nand), FtlConfig())
    assert ftl.n_lpn == int(ftl.geometry.n_pages * 0.93)
