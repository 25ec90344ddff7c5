"""Device presets from the papers. A ``nand`` config section may name one with ``preset:``;
keys given next to it override the preset's. Values the paper does not give are marked
``assumed`` below and are parameters, not facts."""

from __future__ import annotations

from typing import Any

from skftl.errors import ConfigError

# The PPB paper's Table 1 device (Samsung V-NAND): capacity, page size and timing; the
# SK-FTL preset borrows it, as that paper gives no timing of its own.
PPB_VNAND: dict[str, Any] = {
    "capacity_gib": 64,
    "page_size": 16384,
    "t_read_us": 49.0,
    "t_prog_us": 600.0,
    "t_erase_us": 4000.0,
    "channel_mb_s": 533.0,
}

PRESETS: dict[str, dict[str, Any]] = {
    # SK-FTL (Yang et al.): "64 GB with 16KB pages" (Sec. IV-A). Pages per block are not
    # given; Fig. 2 shows page 255 in block 0, implying 256. Organisation and timing are not
    # given (the paper reports NAND latency only relatively, Fig. 14): assumed 8 ch x 4 chips
    # and the PPB paper's Samsung V-NAND timing.
    "sk-ftl": {
        **PPB_VNAND,
        "pages_per_block": 256,
        "channels": 8,
        "chips_per_channel": 4,
        "planes_per_chip": 1,
        "page_speed": "uniform",
    },
    # PPB (Chen et al., DAC'17) Table 1: 64 GB, 16 KB pages (8 KB also studied), 384 pages
    # per block, page write 600 us, read 49 us, erase 4 ms, "533Mbps" transfer. We read the
    # latter as 533 MT/s on an 8-bit ONFI bus = 533 MB/s (the literal 533 Mbit/s would make a
    # 16 KB transfer take 246 us, five times the page read; set channel_mb_s: 66.6 for it).
    # Page speed differs 2x-5x across a block, the last-written pages being fastest.
    # Channels/chips are not given: assumed 8 x 4.
    "ppb": {
        **PPB_VNAND,
        "pages_per_block": 384,
        "channels": 8,
        "chips_per_channel": 4,
        "planes_per_chip": 1,
        "page_speed": "charge_trap_3d",
        "speed_ratio": 2.0,
        "fast_end": "last",
    },
    # MTPM (Table IV): 1 channel x 8 ways, tPROG LSB 770 us / MSB 1.022 ms, tR 52 us,
    # tBER 7.4 ms. Capacity, page size and pages per block are not given: assumed 16 GiB,
    # 16 KB, 256; channel rate assumed 800 MB/s (its ref. [17], an 800 Mb/s-per-pin I/O).
    "mtpm": {
        "capacity_gib": 16,
        "page_size": 16384,
        "pages_per_block": 256,
        "channels": 1,
        "chips_per_channel": 8,
        "planes_per_chip": 1,
        "t_read_us": 52.0,
        "t_prog_us": 770.0,
        "t_prog_msb_us": 1022.0,
        "t_erase_us": 7400.0,
        "channel_mb_s": 800.0,
        "page_speed": "lsb_msb",
    },
    # MQSim's default device (ssdconfig.xml of CMU-SAFARI/MQSim, commit 7ec40e3): 8 channels
    # x 4 chips x 2 dies x 2 planes, 2048 blocks per plane x 256 pages of 8 KiB = 512 GiB;
    # page read 75 us, program 750 us, erase 3.8 ms (MLC, same for LSB/CSB/MSB); an 8-bit
    # NV-DDR2 channel at 333 MT/s = 333 MB/s; GC without copyback (Use_Copyback_for_GC).
    # Geometry chips are dies here: 8 per channel, grouped 2 to a chip that runs one command
    # at a time unless dies join it (multi-die), as MQSim's Flash_Chip does.
    # Data_Cache_Capacity 256 MiB, Caching_Mechanism ADVANCED, flows in WRITE_CACHE mode:
    # a write-back cache evicting the least recently used slot
    # (Data_Cache_Manager_Flash_Advanced::write_to_destage_buffer, Evict_one_slot_lru).
    # A read of a never-written LPA is served from flash: translate_lpa_to_ppa calls
    # online_create_entry_for_reads (Address_Mapping_Unit_Page_Level.cpp), which maps the LPA
    # to a page of its statically allocated plane and issues the array read.
    # Not expressible here (see docs/peers.md, "Cross-validation against MQSim"): the cache's
    # eager write-back of first-written LPAs and its back-pressure limit, the CMT (2 MiB) and
    # its mapping reads, GC at 5 % free blocks per plane (ftl section: gc_low_blocks), RGA
    # victims, read-first transaction scheduling, erase suspension, wear levelling, the PCIe
    # and DRAM transfer times. 7 % over-provisioning = the ftl default spare_factor 0.07.
    "mqsim": {
        "channels": 8,
        "chips_per_channel": 8,
        "die_model": "shared_chip",
        "dies_per_chip": 2,
        "planes_per_chip": 2,
        "blocks_per_plane": 2048,
        "pages_per_block": 256,
        "page_size": 8192,
        "t_read_us": 75.0,
        "t_prog_us": 750.0,
        "t_erase_us": 3800.0,
        "channel_mb_s": 333.0,
        "page_speed": "uniform",
        "gc_copyback": False,
        "unmapped_read": "array_read",
        "write_cache": {"capacity_mib": 256, "policy": "lru"},
    },
}


def resolve_nand(section: dict[str, Any]) -> dict[str, Any]:
    """A ``nand`` section with its ``preset`` (if any) expanded; explicit keys win."""
    section = dict(section or {})
    name = section.pop("preset", None)
    if name in (None, "", "none"):
        return section
    if name not in PRESETS:
        raise ConfigError(f"nand section: unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return {**PRESETS[name], **section}
