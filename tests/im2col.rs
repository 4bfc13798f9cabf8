//! im2col tensor copies: the load-time form checks (`ir::tensor-copy-form`, what ptxas 13.0
//! rejects for sm_90a) and the launch-file errors of malformed im2col tensor maps.

use ptxrun::api::Module;
use std::path::PathBuf;

fn module(ins: &str) -> Result<Module, ptxrun::api::Error> {
    Module::parse(&format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n\
         .visible .entry k(.param .align 64 .b8 tm[128])\n{{\n\
         .reg .b32 %r<12>;\n.reg .b16 %h<4>;\n.reg .b64 %rd<4>;\n\
         .shared .align 1024 .b8 buf[4096];\n.shared .align 8 .b64 bar;\n\
         mov.b64 %rd1, tm;\nmov.u32 %r1, buf;\nmov.u32 %r2, bar;\n{ins}\nret;\n}}\n"
    ))
}

const LD: &str = "cp.async.bulk.tensor";

#[test]
fn im2col_forms_ptxas_rejects_are_load_errors() {
    for ok in [
        format!("{LD}.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4, %r5}}], [%r2], {{%h1}};"),
        format!("{LD}.5d.shared::cta.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4, %r5, %r6, %r7}}], [%r2], {{%h1, %h2, %h3}};"),
        format!("{LD}.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [%r1], [%rd1, {{%r3, %r4, %r5, %r6}}], [%r2], {{%h1, 2}}, %h3, %rd2;"),
        "cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%rd1, {%r3, %r4, %r5, %r6}], {%h1, %h2};".into(),
        format!("{LD}.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {{%r3, %r4, %r5}}], [%r1];"),
        format!("{LD}.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4}}], [%r2];"),
    ] {
        assert!(module(&ok).is_ok(), "{ok}: {:?}", module(&ok).err());
    }
    for (bad, why) in [
        (
            format!("{LD}.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4}}], [%r2], {{%h1}};"),
            "3 to 5 dimensions",
        ),
        (
            format!("{LD}.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4, %r5}}], [%r2], {{%h1, %h2}};"),
            "one im2col offset per spatial dimension",
        ),
        (
            format!("{LD}.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4, %r5}}], [%r2];"),
            "one im2col offset per spatial dimension",
        ),
        (
            format!("{LD}.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4, %r5, %r6}}], [%r2], {{%r7, %r8}};"),
            "16-bit",
        ),
        (
            format!("{LD}.3d.shared::cluster.global.im2col_no_offs.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4, %r5}}], [%r2];"),
            "not .im2col_no_offs",
        ),
        (
            format!("{LD}.4d.global.shared::cta.im2col.bulk_group [%rd1, {{%r3, %r4, %r5, %r6}}], [%r1];"),
            "stores and reductions take .im2col_no_offs",
        ),
        (
            "cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%rd1, {%r3, %r4, %r5, %r6}], {%h1};".into(),
            "one im2col offset per spatial dimension",
        ),
    ] {
        let e = module(&bad).err().expect(&bad);
        assert!(
            e.message().contains("ir::tensor-copy-form") && e.message().contains(why),
            "{bad}: {e}"
        );
    }
}

/// A scratch directory holding the conv sample's kernel and a launch file whose input map has the
/// im2col keys `keys` (replacing the sample's).
fn launch_with(keys: &str) -> Result<ptxrun::launchfile::Launch, String> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ptx-samples/tensor/im2col_conv");
    let dir = std::env::temp_dir().join(format!(
        "ptxrun-im2col-{}-{:x}",
        std::process::id(),
        keys.len() * 7919 + keys.bytes().map(usize::from).sum::<usize>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(src.join("kernel.ptx"), dir.join("kernel.ptx")).unwrap();
    let toml = format!(
        "entry = \"im2col_conv\"\ngrid = 3\nblock = 256\n\n[[params]]\ntensormap = \"x\"\n\
         type = \"f32\"\nlen = 1536\n{keys}\n\n[[params]]\nbuffer = \"w\"\ntype = \"f32\"\nlen = 1152\n\n\
         [[params]]\nbuffer = \"out\"\ntype = \"f32\"\nlen = 768\n"
    );
    std::fs::write(dir.join("launch.toml"), toml).unwrap();
    let r = ptxrun::launchfile::load(&dir, &[]).map_err(|e| e.0);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

const GOOD: &str = "dims = [16, 8, 6, 2]\nmode = \"im2col\"\nlower_corner = [-1, -1]\n\
                    upper_corner = [-1, -1]\nchannels_per_pixel = 16\npixels_per_column = 32";

#[test]
fn malformed_im2col_maps_are_launch_errors_naming_the_field() {
    assert!(launch_with(GOOD).is_ok(), "{:?}", launch_with(GOOD).err());
    let cases: &[(&str, &str, &str)] = &[
        (
            "mode = \"im2col\"",
            "mode = \"im2colw\"",
            ".mode: `im2colw`",
        ),
        (
            "lower_corner = [-1, -1]",
            "lower_corner = [-1]",
            ".lower_corner: 1 entries",
        ),
        ("lower_corner = [-1, -1]", "", ".lower_corner: missing"),
        (
            "upper_corner = [-1, -1]",
            "upper_corner = [-1, 128]",
            "upper_corner[1] = 128 is outside -128..127",
        ),
        (
            "channels_per_pixel = 16",
            "channels_per_pixel = 0",
            "channels_per_pixel = 0 is outside 1..256",
        ),
        (
            "channels_per_pixel = 16",
            "channels_per_pixel = 3",
            "multiple of 16",
        ),
        (
            "channels_per_pixel = 16",
            "",
            ".channels_per_pixel: missing",
        ),
        (
            "pixels_per_column = 32",
            "pixels_per_column = 1025",
            "pixels_per_column = 1025 is outside 1..1024",
        ),
        (
            "mode = \"im2col\"",
            "mode = \"im2col\"\nbox = [16, 8, 1, 1]",
            ".box: an im2col map takes no box",
        ),
        (
            "mode = \"im2col\"",
            "mode = \"tile\"",
            ".lower_corner: only an im2col map",
        ),
        (
            "dims = [16, 8, 6, 2]",
            "dims = [16, 96]",
            "3 to 5 dimensions",
        ),
        (
            "pixels_per_column = 32",
            "pixels_per_column = 32\nswizzle = \"32B\"",
            "32-byte swizzle span",
        ),
    ];
    for (from, to, want) in cases {
        let keys = GOOD.replace(from, to);
        let e = launch_with(&keys)
            .err()
            .unwrap_or_else(|| panic!("{keys}: accepted"));
        assert!(e.contains(want), "{keys}\n=> {e}\n(wanted `{want}`)");
        assert!(e.contains("params[0]"), "{e}");
    }
}
