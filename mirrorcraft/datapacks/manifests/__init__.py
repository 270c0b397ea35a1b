"""The six rule-suite manifests (M01.json … M06.json), shipped as package data.

Data only: load them with :func:`mirrorcraft.contracts.rules.load_suite`. The ``__init__`` exists so that
setuptools packages the JSON files (``package-data "*.json"`` applies per package).
"""
