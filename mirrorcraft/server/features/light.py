"""Light levels and weather at a position, as the growing blocks read them: sky light, the sky's darkening by
time and weather, block light, the biome's temperature and whether it rains there.

Why a feature: crops, stems, sweet berries and grass check ``Level.getRawBrightness`` (``max(sky light -
skyDarken, block light)``) before they grow, and snow and ice melt by block light; the world's light is the
server's chunk light (stored in the save, else derived per column: 15 above the topmost light-filtering
block, 0 at and below it — :meth:`~mirrorcraft.server.kernel.world.World.sky_light`), and the darkening
follows the admin feature's day time and weather (``Level.updateSkyBrightness``, :func:`mirrorcraft.rules.
nature.sky_darken`).

Block light is not propagated by the server (no light engine): it is **approximated** as the brightest
``emission - Manhattan distance`` over the light-emitting blocks (minecraft-data's ``emitLight``) within
reach, ignoring walls between them. It is computed only when the sky alone is too dark for the question
asked, so a farm in daylight never pays for it.

Weather (``Level.isRainingAt``): it rains at a position while the weather is rain or thunder, the sky is
visible there (sky light 15), and the biome has rain and is warm enough for it (temperature >= 0.15;
vanilla's height adjustment of the temperature above y = 80 is not modelled). Temperatures are the
biomes' base temperatures (minecraft-data).
"""

from __future__ import annotations

import numpy as np

from mirrorcraft.gamedata import biome as biome_info
from mirrorcraft.gamedata import codec_registry_ids
from mirrorcraft.rules.nature import freezing, max_light, sky_darken
from mirrorcraft.server import facts
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.kernel import Kernel
from mirrorcraft.server.kernel.world import HEIGHT, MIN_Y

Pos = tuple[int, int, int]


class Light:
    """Light queries of one game."""

    def __init__(self, kernel: Kernel, admin: Admin) -> None:
        self.kernel = kernel
        self.admin = admin
        self._emit = facts.state_tables().emit_light.astype(np.int16)
        self._max = max_light()
        self._darken_key: tuple[int, str] | None = None
        self._darken = 0
        names = {v: k for k, v in codec_registry_ids("minecraft:worldgen/biome").items()}
        infos = {i: biome_info(n.removeprefix("minecraft:")) for i, n in names.items()}
        self._temperature = {i: b.temperature for i, b in infos.items()}
        self._rainy = {i: b.precipitation != "none" for i, b in infos.items()}
        self._cold = freezing().max_temperature

    def cold_biomes(self) -> set[int]:
        """The biome registry ids colder than 0.15 (where water freezes and snow falls)."""
        return {i for i, t in self._temperature.items() if t < self._cold}

    def temperature(self, pos: Pos) -> float:
        """The base temperature of the biome at ``pos`` (its quart cell)."""
        if not MIN_Y <= pos[1] < MIN_Y + HEIGHT:
            return 1.0
        col = self.kernel.world.column(pos[0] >> 4, pos[2] >> 4)
        b = int(col.biomes[(pos[1] - MIN_Y) >> 2, (pos[2] & 15) >> 2, (pos[0] & 15) >> 2])
        return self._temperature.get(b, 1.0)

    def raining_at(self, pos: Pos) -> bool:
        """``Level.isRainingAt``: rain or thunder, the sky visible, a biome with rain that is not too cold."""
        if self.admin.weather == "clear" or self.sky(pos) < self._max:
            return False
        if not MIN_Y <= pos[1] < MIN_Y + HEIGHT:
            return False
        col = self.kernel.world.column(pos[0] >> 4, pos[2] >> 4)
        b = int(col.biomes[(pos[1] - MIN_Y) >> 2, (pos[2] & 15) >> 2, (pos[0] & 15) >> 2])
        return self._rainy.get(b, True) and self._temperature.get(b, 1.0) >= self._cold

    def darken(self) -> int:
        """``Level.skyDarken`` now (0 at noon in clear weather, 11 at midnight)."""
        a = self.admin
        key = (a.day_time % 24000, a.weather)
        if key != self._darken_key:
            rain = 0.0 if a.weather == "clear" else 1.0
            thunder = 1.0 if a.weather == "thunder" else 0.0
            self._darken_key, self._darken = key, sky_darken(a.day_time, rain, thunder)
        return self._darken

    def sky(self, pos: Pos) -> int:
        """Sky light at ``pos`` (undimmed)."""
        return self.kernel.world.sky_light(*pos)

    def block_light(self, pos: Pos, reach: int | None = None) -> int:
        """Approximate block light at ``pos``: max(emission - Manhattan distance) over emitters within ``reach``
        (default 14, the farthest any 15-emitter lights), occlusion ignored; 0 without emitters."""
        r = self._max - 1 if reach is None else reach
        if r < 0:
            return 0
        x0, y0, z0 = pos
        world = self.kernel.world
        best = 0
        ys = slice(max(y0 - r - MIN_Y, 0), min(y0 + r + 1 - MIN_Y, HEIGHT))
        if ys.start >= ys.stop:
            return 0
        for cx in range((x0 - r) >> 4, ((x0 + r) >> 4) + 1):
            for cz in range((z0 - r) >> 4, ((z0 + r) >> 4) + 1):
                col = world.column(cx, cz)
                xs = slice(max(x0 - r - cx * 16, 0), min(x0 + r + 1 - cx * 16, 16))
                zs = slice(max(z0 - r - cz * 16, 0), min(z0 + r + 1 - cz * 16, 16))
                if xs.start >= xs.stop or zs.start >= zs.stop:
                    continue
                em = self._emit[col.blocks[ys, zs, xs]]
                if not em.any():
                    continue
                iy, iz, ix = np.nonzero(em)
                d = (
                    np.abs(iy + ys.start + MIN_Y - y0)
                    + np.abs(iz + zs.start + cz * 16 - z0)
                    + np.abs(ix + xs.start + cx * 16 - x0)
                )
                best = max(best, int((em[iy, iz, ix] - d).max()))
        return max(best, 0)

    def raw_brightness(self, pos: Pos, need: int | None = None) -> int:
        """``Level.getRawBrightness(pos, 0)``: max(sky - darken, block light). With ``need``, block light is
        looked up only if the sky alone gives less (the answer is then exact up to ``need``)."""
        sky = self.sky(pos) - self.darken()
        if need is not None and sky >= need:
            return sky
        return max(sky, self.block_light(pos))
