"""Power management of NAND flash storage devices: per-atomic-operation current profiles,
token modelling (eqs. 1-2 of You et al.), the token ring (MTPM / KMTPM) and the baseline
schemes (NPM, PPM, DCC), simulated by one event-driven Numba kernel."""
