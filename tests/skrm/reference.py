"""Plain-Python reference of the SK-RM cost model (skftl.skrm.kernel), written for
obviousness, not speed: explicit per-entry counts, per-racetrack pools as lists."""

from __future__ import annotations


def pop(x: int) -> int:
    return bin(x).count("1")


class RefModel:
    def __init__(
        self,
        W,
        K,
        n_entries,
        write,
        convention="paper",
        buffering=False,
        reach=0,
        per_skyrmion=False,
        base_shift=None,
        stack=0,
    ):
        self.W, self.K, self.write, self.conv = W, K, write, convention
        self.buffering = write == "sk" and buffering
        self.reach = reach
        self.stack = stack
        self.per_skyrmion = per_skyrmion
        self.base = 2 * W if base_shift is None else base_shift
        self.n_tracks = -(-n_entries // K)
        self.cnt = [0] * n_entries
        self.pool = [0] * self.n_tracks
        self.room = [0] * self.n_tracks
        for e in range(n_entries):
            self.room[e // K] += W
        self.c = dict.fromkeys(
            [
                "updates",
                "trims",
                "inject",
                "remove",
                "detect",
                "shift",
                "vshift",
                "reused",
                "parked",
                "successive",
                "bitdiff",
                "hamming",
                "inject_first",
            ],
            0,
        )

    def _order(self, t):
        out = [t]
        for d in range(1, self.reach + 1):
            out += [t - d, t + d]
        return [
            u
            for u in out
            if 0 <= u < self.n_tracks and (not self.stack or u // self.stack == t // self.stack)
        ]

    def _vshift(self, t, u, n):
        if u != t:
            s = abs(u - t) * (n if self.per_skyrmion else 1)
            self.c["shift"] += s
            self.c["vshift"] += s

    def update(self, e, old, new):
        t = e // self.K
        if new < 0:
            self.c["trims"] += 1
            if self.buffering and old >= 0:
                self.pool[t] += self.cnt[e]
                self.room[t] += self.W
                self.cnt[e] = 0
            return
        self.c["updates"] += 1
        if old >= 0:
            self.c["successive"] += 1
            self.c["bitdiff"] += abs(pop(new) - pop(old))
            self.c["hamming"] += pop(new ^ old)
        held, want = self.cnt[e], pop(new)
        before = self.c["inject"]
        sim = self.conv == "skrmsim"
        if self.write == "naive":
            self.c["remove"] += self.W if sim else held
            self.c["inject"] += want
            self.c["shift"] += 2 * self.W if sim else self.base
        else:
            self.c["detect"] += self.W
            self.c["shift"] += 2 * self.W + 2 if sim else self.base
            if not self.buffering:
                self.c["inject"] += max(0, want - held)
                self.c["remove"] += max(0, held - want)
            else:
                if old < 0:
                    self.room[t] -= self.W
                if want > held:
                    need = want - held
                    for u in self._order(t):
                        got = min(need, self.pool[u])
                        if got:
                            self.pool[u] -= got
                            need -= got
                            self.c["reused"] += got
                            self._vshift(t, u, got)
                    self.c["inject"] += need
                elif held > want:
                    self.c["remove"] += self._park(t, held - want)
                if self.pool[t] > self.room[t]:
                    over = self.pool[t] - self.room[t]
                    self.pool[t] = self.room[t]
                    self.c["remove"] += self._park(t, over)
        if old < 0:
            self.c["inject_first"] += self.c["inject"] - before
        self.cnt[e] = want

    def _park(self, t, extra):
        for u in self._order(t):
            put = min(extra, self.room[u] - self.pool[u])
            if put > 0:
                self.pool[u] += put
                extra -= put
                self.c["parked"] += put
                self._vshift(t, u, put)
        return extra
