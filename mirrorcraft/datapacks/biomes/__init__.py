"""The five shipped kind=biome specs as JSON data (loaded by mirrorcraft.datapacks.biome.load_biome_spec)."""
