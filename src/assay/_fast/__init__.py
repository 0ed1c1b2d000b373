"""Where assay reaches into the interpreter or into pydantic's internals for speed.

Every such trick lives here, in a module named after what it does, and stays only while
bench/RESULTS.md (section ``speed_tricks``, written by ``bench/speed_tricks.py``) shows it
saving at least a tenth of a figure a user sees: a command's CPU or wall time, its peak
memory, its start-up. ``tests/test_architecture.py`` holds that no module elsewhere uses
them. Importing this package imports none of its modules.
"""
