"""PCM (byte-addressable NVM) SSD model after Kwon, IEEE Access 2019: chips, clean/dirty
writes, refresh units, and the address-mapping schemes the paper compares."""

from skftl.pcm.device import PCMDevice
from skftl.pcm.schemes import GROUPINGS, IDLE_PICKS, SCHEMES, LogPolicy
from skftl.pcm.simulate import PCMResult, prepare_pages, simulate

__all__ = [
    "GROUPINGS",
    "IDLE_PICKS",
    "SCHEMES",
    "LogPolicy",
    "PCMDevice",
    "PCMResult",
    "prepare_pages",
    "simulate",
]
