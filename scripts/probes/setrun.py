"""What the probe check scripts (mip_cube_check.py, tex_linear_check.py, grad_check.py) share: a
probe set written as a ptxrun launch file (one texture, the set's inputs, one f32 output, the
count), run through ptxrun, and its row of the mismatch table."""
import os
import subprocess

import numpy as np


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return repr(v)


def write_launch(work, ptx, name, entry, n, texels, tex, inputs, in_size, out_len):
    """WORK/NAME.toml: `entry` over n samples (256 a block), the texture over file `texels` with
    the settings `tex`, the raw inputs (in_size bytes a sample), an f32 output of out_len."""
    lines = [f'kernel = "{ptx}"', f'entry = "{entry}"', f"grid = {(n + 255) // 256}", "block = 256", "",
             "[[params]]", 'texture = "texels"', f'init = "{texels}"']
    lines += [f"{k} = {toml_value(v)}" for k, v in tex.items()]
    lines += ["", "[[params]]", 'buffer = "inputs"', 'type = "u8"', f"len = {n * in_size}",
              f'init = "{inputs}"', "", "[[params]]", 'buffer = "out"', 'type = "f32"',
              f"len = {out_len}", "", "[[params]]", 'type = "i32"', f"value = {n}", "",
              "[outputs]", f'out = "{name}.out"']
    lf = os.path.join(work, name + ".toml")
    with open(lf, "w") as f:
        f.write("\n".join(lines) + "\n")
    return lf


def table_row(ptxrun, lf, allow, name, gpu, note=""):
    """Runs launch file `lf` (reading only under the folders `allow`) and compares its output
    NAME.out beside it with the GPU's words `gpu`: the table row."""
    args = [ptxrun, "run", "--no-check"]
    for d in allow:
        args += ["--allow-path", d]
    r = subprocess.run(args + [lf], capture_output=True, text=True)
    if r.returncode != 0:
        why = (r.stdout + r.stderr).strip().splitlines()
        why = next((w for w in why if "unsupported" in w or "error" in w), why[0] if why else "?")
        return f"| {name} | {gpu.size} | - | stops: {why.strip()[:160]} |"
    ours = np.fromfile(os.path.join(os.path.dirname(lf), name + ".out"), np.uint32)
    return f"| {name} | {gpu.size} | {int((ours != gpu).sum())} | {note} |"
