"""The contracts' schema version and the fingerprint of the JSON schemas published for each version.

A change to any contract model changes the generated JSON schemas. ``tests/contracts`` fails unless
(1) the schemas checked in under ``docs/schemas/`` equal the generated ones and (2) the fingerprint of
the generated schemas is the one recorded here for :data:`SCHEMA_VERSION`. So changing a contract
means: bump ``SCHEMA_VERSION``, add a migration for episode records, regenerate the schemas
(``python -m mirrorcraft.run contracts export docs/schemas``) and record the new fingerprint below —
nobody changes a contract silently.
"""

SCHEMA_VERSION = 4

#: schema version → SHA-256 over the exported schema files (see ``schemas.schema_fingerprint``).
#: Version 1 was the draft contract at the issue's time (records only; it never had exported schemas).
SCHEMA_FINGERPRINTS: dict[int, str] = {
    2: "adefae0423fca0b7b57a8f561088a95b8ca12aa0f99e95724a3c274daf1d7e1f",
    #: 3 (unreleased while issues 21 and 24 land): ``blocks_placed`` and the escapes (issue 21), and the team
    #: skills farm, use, give, chat, break_at, place_at, cook with their caps and limits (issue 24), folded
    #: into the same version, and the team skill ``take`` (issue 25's opponents take eggs, buckets, bowls and
    #: coal out of the arena's containers); all only add, so the 2 -> 3 migration covers them.
    3: "3e326117a1a35f58db90819425fe72fe088d93a756320723f5065c7aafe960ae",
    #: 4 (issue 27): each action's ``position`` (the player's feet when the call returned), the episode
    #: viewer's path; optional, so the 3 -> 4 migration only moves the stamp.
    4: "435b020234c7b857acdc5b33d8f19ad93aeb8fcff175686e9ee20ad1490e8a73",
}
