"""Helpers shared by the test modules (fixtures themselves live in the ``conftest.py`` files).

One package on pytest's ``pythonpath`` (``tests``), imported as ``support.<module>``.
"""
