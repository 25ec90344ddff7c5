"""NAND geometry: channels x chips x planes x blocks x pages, and physical page numbers.

A chip (die, "way") is the unit that executes one array operation at a time; chip ``c``
sits on channel ``c % channels`` (so consecutive chips alternate channels, which is what
LPN striping wants). Blocks are numbered globally, chip-major:
``block = chip * blocks_per_chip + block_in_chip`` with
``block_in_chip = plane * blocks_per_plane + block_in_plane``, and
``ppn = block * pages_per_block + page``. Planes only structure the address: the timing
model serialises every operation of a chip unless ``nand.multi_plane`` lets operations on
the same page index of different planes share one command (``skftl.nand.timing``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from skftl.errors import ConfigError

GIB = 1 << 30
# int32 mapping arrays hold PPNs/LPNs and use -1 as "none".
MAX_PAGES = (1 << 31) - 1


@dataclass(frozen=True)
class Geometry:
    channels: int
    chips_per_channel: int
    planes_per_chip: int
    blocks_per_plane: int
    pages_per_block: int
    page_size: int  # bytes

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, int) or v <= 0:
                raise ConfigError(f"nand geometry: {f.name} must be a positive integer, got {v!r}")
        if self.pages_per_block % 8:
            # the valid bitmap is bit-packed per block; byte-aligned blocks keep it simple
            raise ConfigError(
                "nand geometry: pages_per_block must be a multiple of 8, "
                f"got {self.pages_per_block}"
            )
        if self.n_pages > MAX_PAGES:
            raise ConfigError(
                f"nand geometry: {self.n_pages} physical pages exceed the int32 mapping limit "
                f"{MAX_PAGES}; use larger pages"
            )

    @property
    def n_chips(self) -> int:
        return self.channels * self.chips_per_channel

    @property
    def blocks_per_chip(self) -> int:
        return self.planes_per_chip * self.blocks_per_plane

    @property
    def n_blocks(self) -> int:
        return self.n_chips * self.blocks_per_chip

    @property
    def pages_per_chip(self) -> int:
        return self.blocks_per_chip * self.pages_per_block

    @property
    def n_pages(self) -> int:
        return self.n_blocks * self.pages_per_block

    @property
    def capacity_bytes(self) -> int:
        return self.n_pages * self.page_size

    def ppn(self, chip: int, block_in_chip: int, page: int) -> int:
        """Physical page number of (chip, block within chip, page)."""
        return (chip * self.blocks_per_chip + block_in_chip) * self.pages_per_block + page

    def unpack(self, ppn: int) -> dict[str, int]:
        """(channel, chip, plane, block within chip, page) of a physical page number."""
        block, page = divmod(ppn, self.pages_per_block)
        chip, bic = divmod(block, self.blocks_per_chip)
        return {
            "channel": chip % self.channels,
            "chip": chip,
            "plane": bic // self.blocks_per_plane,
            "block_in_chip": bic,
            "block": block,
            "page": page,
        }

    @classmethod
    def from_capacity(
        cls,
        capacity_bytes: int,
        page_size: int,
        pages_per_block: int,
        channels: int = 1,
        chips_per_channel: int = 1,
        planes_per_chip: int = 1,
    ) -> Geometry:
        """The geometry of a raw (physical) capacity, rounded down to whole blocks per plane
        (64 GiB of 16 KB x 384-page blocks on 32 chips is 341 blocks per chip, not 341.33)."""
        per_plane_bytes = (
            channels * chips_per_channel * planes_per_chip * pages_per_block * page_size
        )
        if capacity_bytes < per_plane_bytes:
            raise ConfigError(
                f"nand geometry: capacity {capacity_bytes} B is less than one block per plane "
                f"({per_plane_bytes} B across all planes)"
            )
        return cls(
            channels,
            chips_per_channel,
            planes_per_chip,
            capacity_bytes // per_plane_bytes,
            pages_per_block,
            page_size,
        )

    @classmethod
    def from_config(cls, section: dict) -> Geometry:
        """From a ``nand`` config section (after preset resolution, see ``resolve_nand``)."""
        s = section
        try:
            if s.get("blocks_per_plane"):
                return cls(
                    int(s["channels"]),
                    int(s["chips_per_channel"]),
                    int(s.get("planes_per_chip", 1)),
                    int(s["blocks_per_plane"]),
                    int(s["pages_per_block"]),
                    int(s["page_size"]),
                )
            return cls.from_capacity(
                int(round(float(s["capacity_gib"]) * GIB)),
                int(s["page_size"]),
                int(s["pages_per_block"]),
                int(s["channels"]),
                int(s["chips_per_channel"]),
                int(s.get("planes_per_chip", 1)),
            )
        except KeyError as exc:
            raise ConfigError(f"nand section: missing key {exc.args[0]!r}") from exc
