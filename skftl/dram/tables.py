"""The kernel's apply step: the untimed changes an operation makes to the tables once its
lookup has found its file or not (writes to the tables are posted; only reads are timed).

* a READ miss inserts the file when ``CONFIG_INSERT_ON_MISS``, a WRITE miss always: into
  the first free way, in way order, along the chain, or into a new secondary set appended
  at the chain's end when the chain is full;
* a WRITE hit remaps the file out of place to ``arg`` fresh pages;
* a DELETE invalidates the entry, frees its pages and frees a secondary set that became
  empty (unlinking it from the middle or the end of its chain);
* a DELETE_PAGE unlinks page ``arg`` (0-based) of the file's chain, from the front, the
  middle or the end; a file left with no page is deleted.

Every function takes the :data:`skftl.dram.state.Tables` as ``tables``.
"""

from __future__ import annotations

from collections import namedtuple

from skftl.dram.state import (
    BT_FIRST,
    BT_LAST,
    BT_VALID,
    CONFIG_ASSOC,
    CONFIG_INSERT_ON_MISS,
    CONFIG_PRIMARY_SETS,
    CT_DELETES,
    CT_FAIL_PAGES,
    CT_FAIL_SETS,
    CT_INSERTS,
    CT_PAGE_DELETES,
    CT_SEC_ALLOC,
    CT_SEC_FREE,
    CT_UPDATES,
    F_SINGLE,
    F_VALID,
    FREE_PAGES,
    FREE_SETS,
    OP_DELETE,
    OP_DELETE_PAGE,
    OP_READ,
    OP_WRITE,
    ST_FAILED,
    ST_HIT,
    ST_INSERTED,
    ST_MISS,
    inline,
    out_of_line,
)

# What a lookup found (kernel.lookup): the file's set and way (-1: a miss), the first free way
# along the chain (-1: none) and the chain's last set
Found = namedtuple("Found", ["set", "way", "free_set", "free_way", "last"])


@inline
def apply(op, key, arg, found, npages, config, tables, counters):
    """The change ``op`` makes after its lookup (``found``; ``npages``: the found file's
    pages); returns the operation's status."""
    status = ST_HIT if found.set >= 0 else ST_MISS
    if found.set < 0:
        if op == OP_WRITE or (op == OP_READ and config[CONFIG_INSERT_ON_MISS] != 0):
            status = insert(key, arg, found, config, tables, counters)
    elif op != OP_READ:
        status = change_found(op, arg, status, found.set, found.way, npages, config, tables,
                              counters)  # fmt: skip
    return status


@inline
def alloc_chain(n, loc, tables):
    """Pop n pages and link them as one file whose LPMT entry is at ``loc``; -1 if the
    free stack is too short."""
    top = tables.free_top
    if n < 1 or top[FREE_PAGES] < n:
        return -1
    bt_next, bt_prev, bt_flags = tables.bt_next, tables.bt_prev, tables.bt_flags
    prev = -1
    first = -1
    for i in range(n):
        top[FREE_PAGES] -= 1
        p = tables.free_pages[top[FREE_PAGES]]
        if i == 0:
            first = p
            bt_prev[p] = loc
            bt_flags[p] = BT_VALID | BT_FIRST
        else:
            bt_prev[p] = prev
            bt_next[prev] = p
            bt_flags[p] = BT_VALID
        prev = p
    bt_next[prev] = -1
    bt_flags[prev] |= BT_LAST
    return first


@inline
def free_page(p, tables):
    tables.bt_next[p] = -1
    tables.bt_prev[p] = -1
    tables.bt_flags[p] = 0
    tables.free_pages[tables.free_top[FREE_PAGES]] = p
    tables.free_top[FREE_PAGES] += 1


@inline
def free_chain(first, tables):
    p = first
    while p >= 0:
        nxt = -1 if tables.bt_flags[p] & BT_LAST else tables.bt_next[p]
        free_page(p, tables)
        p = nxt


@inline
def remove_entry(g, w, config, tables, counters):
    """Invalidate way w of set g; free the set if it is a secondary set left empty."""
    tables.ent_flags[g, w] = 0
    tables.ent_key[g, w] = -1
    tables.ent_pa[g, w] = -1
    set_next, set_prev, set_count = tables.set_next, tables.set_prev, tables.set_count
    set_count[g] -= 1
    if g >= config[CONFIG_PRIMARY_SETS] and set_count[g] == 0:
        prev, nxt = set_prev[g], set_next[g]
        set_next[prev] = nxt
        if nxt >= 0:
            set_prev[nxt] = prev
        set_next[g] = -1
        set_prev[g] = -1
        tables.free_sets[tables.free_top[FREE_SETS]] = g
        tables.free_top[FREE_SETS] += 1
        counters[CT_SEC_FREE] += 1


@inline
def insert(key, arg, found, config, tables, counters):
    """Map a file the lookup did not find; returns the status."""
    top = tables.free_top
    eg, ew = found.free_set, found.free_way
    if top[FREE_PAGES] < arg:
        counters[CT_FAIL_PAGES] += 1
        status = ST_FAILED
    elif eg < 0 and top[FREE_SETS] == 0:
        counters[CT_FAIL_SETS] += 1
        status = ST_FAILED
    else:
        if eg < 0:  # chain full: append a secondary set
            top[FREE_SETS] -= 1
            s = tables.free_sets[top[FREE_SETS]]
            tables.set_next[found.last] = s
            tables.set_prev[s] = found.last
            tables.set_next[s] = -1
            eg, ew = s, 0
            counters[CT_SEC_ALLOC] += 1
        first = alloc_chain(arg, eg * config[CONFIG_ASSOC] + ew, tables)
        tables.ent_key[eg, ew] = key
        tables.ent_pa[eg, ew] = first
        tables.ent_flags[eg, ew] = F_VALID | (F_SINGLE if arg == 1 else 0)
        tables.set_count[eg] += 1
        counters[CT_INSERTS] += 1
        status = ST_INSERTED
    return status


@out_of_line
def change_found(op, arg, status, fg, fw, npages, config, tables, counters):
    """The change of a WRITE, DELETE or DELETE_PAGE whose file the lookup found at
    (fg, fw); returns the final status. Out of line: the lookup loop then keeps fewer live
    values (its machine code spills less)."""
    if op == OP_WRITE:
        new = alloc_chain(arg, fg * config[CONFIG_ASSOC] + fw, tables)
        if new < 0:
            counters[CT_FAIL_PAGES] += 1
            status = ST_FAILED
        else:
            free_chain(tables.ent_pa[fg, fw], tables)
            tables.ent_pa[fg, fw] = new
            tables.ent_flags[fg, fw] = F_VALID | (F_SINGLE if arg == 1 else 0)
            counters[CT_UPDATES] += 1
    elif op == OP_DELETE:
        free_chain(tables.ent_pa[fg, fw], tables)
        remove_entry(fg, fw, config, tables, counters)
        counters[CT_DELETES] += 1
    elif op == OP_DELETE_PAGE and 0 <= arg < npages:
        delete_page(arg, fg, fw, npages, config, tables, counters)
        counters[CT_PAGE_DELETES] += 1
    return status


@inline
def delete_page(arg, fg, fw, npages, config, tables, counters):
    """Unlink page ``arg`` of the ``npages``-page file at (fg, fw); delete the file when it
    was its only page."""
    bt_next, bt_prev, bt_flags = tables.bt_next, tables.bt_prev, tables.bt_flags
    p = tables.ent_pa[fg, fw]
    for _ in range(arg):
        p = bt_next[p]
    prev, nxt = bt_prev[p], bt_next[p]
    is_first = bt_flags[p] & BT_FIRST != 0
    is_last = bt_flags[p] & BT_LAST != 0
    if is_first and is_last:
        free_page(p, tables)
        remove_entry(fg, fw, config, tables, counters)
        counters[CT_DELETES] += 1
    else:
        if is_first:
            bt_flags[nxt] |= BT_FIRST
            bt_prev[nxt] = prev  # the LPMT location moves to the new first page
            tables.ent_pa[fg, fw] = nxt
        elif is_last:
            bt_flags[prev] |= BT_LAST
            bt_next[prev] = -1
        else:
            bt_next[prev] = nxt
            bt_prev[nxt] = prev
        free_page(p, tables)
        if npages - 1 == 1:
            tables.ent_flags[fg, fw] |= F_SINGLE
