# Which txq/suq queries does the H100 driver load (cuModuleLoadData)? Each query in its own module.
import cupy
tq = ["width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords", "array_size",
      "num_mipmap_levels", "num_samples", "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2",
      "force_unnormalized_coords"]
sq = ["width", "height", "depth", "channel_data_type", "channel_order", "array_size", "memory_layout"]
def ptx(op):
    return """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t, .param .u64 o) {
  .reg .b64 %rd<4>; .reg .b32 %r<2>;
  ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [o];
  """ + op + """ %r1, [%rd1];
  st.global.u32 [%rd2], %r1; ret; }
"""
for kind, qs in (("txq", tq), ("suq", sq)):
    for q in qs:
        try:
            p = f"/tmp/q_{kind}_{q}.ptx"
            open(p, "w").write(ptx(f"{kind}.{q}.b32"))
            m = cupy.RawModule(path=p)
            m.get_function("k")
            print(kind, q, "loads")
        except Exception as e:
            print(kind, q, "FAILS:", str(e)[:160])
