"""Where each fragment of a phrase comes from: the table's voice pack, else synthesis.

Both sources keep the same two caches (converted PCM on disk, then in memory), so after
`prerender` every fragment of a table is in memory whichever source it came from, and an
announcement starts on the next frame either way. Only the fragments the pack lacks (or
cannot use) are ever synthesised.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from . import audio
from .pack import VoicePack
from .phrases import Catalogue, Fragment
from .synth import Synthesizer

PACK_BATCH = 16  # recordings converted per job while prerendering


class Speech:
    """A catalogue's fragments as 48 kHz PCM, from `pack` where it has them."""

    def __init__(
        self, catalogue: Catalogue, synthesizer: Synthesizer, pack: VoicePack | None = None
    ) -> None:
        self.catalogue = catalogue
        self.synthesizer = synthesizer
        self.pack = pack

    def recorded(self, fragment: Fragment) -> bool:
        """Whether the fragment is said from the pack (not synthesised)."""
        return self.pack is not None and self.pack.says(fragment.key, fragment.reading)

    def cached(self, fragments: Sequence[Fragment]) -> list[np.ndarray | None]:
        """Each fragment's PCM if it is in memory (never touches the disk or espeak)."""
        voice = self.catalogue.voice
        return [
            self.pack.cached(f.key)
            if self.pack is not None and self.recorded(f)
            else self.synthesizer.cached(f.text, voice)
            for f in fragments
        ]

    def render(self, fragments: Sequence[Fragment]) -> list[np.ndarray]:
        """Each fragment's PCM, loading or synthesising what no cache has. Blocks."""
        if self.pack is not None:
            self.pack.load(f.key for f in fragments if f.key is not None and self.recorded(f))
        texts = [f.text for f in fragments if not self.recorded(f)]
        self.synthesizer.render(texts, self.catalogue.voice)
        return self._from_memory(fragments)

    async def render_async(self, fragments: Sequence[Fragment]) -> list[np.ndarray]:
        """`render` for the event loop: the disk and espeak are read off the loop."""
        keys = [f.key for f in fragments if f.key is not None and self.recorded(f)]
        if self.pack is not None and any(self.pack.cached(k) is None for k in keys):
            await asyncio.get_running_loop().run_in_executor(None, self.pack.load, keys)
        texts = [f.text for f in fragments if not self.recorded(f)]
        await self.synthesizer.render_async(texts, self.catalogue.voice)
        return self._from_memory(fragments)

    def phrase(self, key: str, params: Mapping[str, Any]) -> np.ndarray:
        """One announcement as 48 kHz mono int16 PCM (blocking), e.g. for `autohost say`."""
        fragments = self.catalogue.fragments(key, params)
        return audio.assemble([f.text for f in fragments], self.render(fragments))

    async def prerender_async(self, seats: Iterable[int]) -> int:
        """Cache every fragment a table with these seats can need, in small batches; the
        pack's first (a recording it cannot use is then synthesised). Returns how many
        pieces were cached: recordings plus synthesised chunk texts."""
        fragments = self.catalogue.chunk_fragments(seats)
        keys = sorted({f.key for f in fragments if f.key is not None and self.recorded(f)})
        if self.pack is not None:
            loop = asyncio.get_running_loop()
            for at in range(0, len(keys), PACK_BATCH):
                await loop.run_in_executor(None, self.pack.load, keys[at : at + PACK_BATCH])
        texts = sorted({f.text for f in fragments if not self.recorded(f)})
        await self.synthesizer.render_batches_async(texts, self.catalogue.voice)
        pack = self.pack
        return sum(1 for k in keys if pack is not None and pack.has(k)) + len(texts)

    def _from_memory(self, fragments: Sequence[Fragment]) -> list[np.ndarray]:
        # After a load every recorded key is in memory or marked unusable (and so was
        # synthesised), so nothing is missing here.
        found = self.cached(fragments)
        missing = [f.text for f, pcm in zip(fragments, found, strict=True) if pcm is None]
        if missing:
            raise RuntimeError(f"fragments neither recorded nor synthesised: {missing}")
        return [pcm for pcm in found if pcm is not None]
