#!/usr/bin/env python3
"""Writes a.bin and b.bin: the 512 operand pairs of ../../video_intrinsics (its inputs/gen.py, numpy seed
20261127), copied here."""
import os
import runpy
import shutil

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "..", "video_intrinsics", "inputs")
runpy.run_path(os.path.join(src, "gen.py"))
for x in "ab":
    shutil.copy(os.path.join(src, x + ".bin"), os.path.join(here, x + ".bin"))
