#!/usr/bin/env python3
"""Writes ../kernel.ptx and a.bin, b.bin, c.bin (numpy seed 20261128) from the video campaign's form list
(docs/numerics/video/forms.py): every 37th form of the campaign plus the immediate-operand forms, 128 lanes."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "docs", "numerics", "video"))
import forms  # noqa: E402

lines = forms.golden_lines()
with open(os.path.join(here, "..", "kernel.ptx"), "w") as f:
    f.write("// The video instructions (PTX ISA 9.0 section 9.7.16), one form per line: written by inputs/gen.py\n")
    f.write(forms.ptx(lines, 128))
for name, v in zip("abc", forms.golden_operands(128)):
    v.tofile(os.path.join(here, name + ".bin"))
print(len(lines), "forms")
