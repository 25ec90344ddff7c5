"""DRAM-resident address mapping: the LPMT hashed L2P table with block tables, hash
functions, DRAM bank placement and timing (LPMT paper, IEICE ELEX 2019)."""

from skftl.dram.hashes import HASHES, hash_keys, register_hash
from skftl.dram.layout import PLACEMENTS, Layout
from skftl.dram.lpmt import Lpmt, LpmtConfig, OpResult
from skftl.dram.state import OP_DELETE, OP_DELETE_PAGE, OP_READ, OP_WRITE
from skftl.dram.timing import DramTiming, case_labels, time_stream

__all__ = [
    "HASHES",
    "OP_DELETE",
    "OP_DELETE_PAGE",
    "OP_READ",
    "OP_WRITE",
    "PLACEMENTS",
    "DramTiming",
    "Layout",
    "Lpmt",
    "LpmtConfig",
    "OpResult",
    "case_labels",
    "hash_keys",
    "register_hash",
    "time_stream",
]
