//! Texture and surface objects through the library facade: what ptxrun does not model stops
//! with an error naming it (never a nearby answer), surface misuse faults as the H100 does,
//! and texture reads take part in race checking. The sampling arithmetic itself is pinned by
//! the H100 goldens under `ptx-samples/texture`.

use ptxrun::api::Type;
use ptxrun::api::{AddrMode, Chan, Mips, TexObject};
use ptxrun::api::{Arg, Buffer, Launch, Module, Report, RunOptions};

/// A kernel of one instruction `ins` between loading the handle (`%rd1`), the output address
/// (`%rd2`) and the texture's buffer (`%rd3`), and storing `%f3..%f6` and `%r1`.
fn kernel(ins: &str) -> String {
    format!(
        ".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t, .param .u64 o, .param .u64 b) {{
  .reg .pred %p<4>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  .reg .b32 %r<8>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [o];
  ld.param.u64 %rd3, [b];
  mov.f32 %f1, 0f3FC00000;
  mov.f32 %f2, 0f3F000000;
  mov.b32 %r1, 0;
  mov.b32 %r2, 2;
  mov.b32 %r3, 1;
  mov.u32 %r4, %ctaid.x;
  setp.eq.u32 %p1, %r4, 0;
  {ins}
  st.global.v4.f32 [%rd2], {{%f3, %f4, %f5, %f6}};
  st.global.u32 [%rd2+16], %r1;
  ret;
}}
"
    )
}

fn object(chan: Chan, size: [u32; 3], ndim: u8) -> TexObject {
    TexObject {
        surface: false,
        base: 0,
        chan,
        channels: 1,
        size,
        ndim,
        layers: None,
        pitch: u64::from(size[0]) * chan.bytes() as u64,
        linear: false,
        normalized: false,
        address: [AddrMode::Clamp; 3],
        read_float: false,
        border: [0; 4],
        cube: false,
        mips: Mips::NONE,
    }
}

/// A mipmapped 2D object of `levels` levels, dense.
fn mipmapped(chan: Chan, size: [u32; 3], levels: u32, linear: bool) -> TexObject {
    TexObject {
        normalized: true,
        mips: Mips {
            levels,
            linear,
            bias: 0,
            min: 0,
            max: (levels - 1) * 256,
        },
        ..object(chan, size, 2)
    }
}

fn run(ins: &str, o: TexObject, grid: u32, check: bool) -> Report {
    run_ptx(&kernel(ins), o, grid, check)
}

/// Runs `ptx` (parameters as [`kernel`]'s) on object `o` over a buffer holding `i` at byte `i`.
fn run_ptx(ptx: &str, o: TexObject, grid: u32, check: bool) -> Report {
    let m = Module::parse(ptx).unwrap_or_else(|e| panic!("{ptx}: {e:?}"));
    let bytes = o.extent() as usize;
    let launch = Launch {
        grid: [grid, 1, 1],
        block: [1, 1, 1],
        buffers: vec![
            Buffer {
                name: "texels".into(),
                ty: Type::U8,
                data: (0..bytes).map(|i| i as u8).collect(),
            },
            Buffer {
                name: "out".into(),
                ty: Type::U8,
                data: vec![0; 32],
            },
        ],
        args: vec![
            Arg::Texture {
                buffer: 0,
                offset: 0,
                object: o,
            },
            Arg::buffer(1),
            Arg::buffer(0),
        ],
        ..Launch::default()
    };
    let opts = RunOptions {
        check,
        ..RunOptions::default()
    };
    m.kernel(None).unwrap().launch(&launch, &opts).unwrap()
}

/// The one diagnostic of a run that stopped: (kind, message).
fn stopped(r: &Report) -> (String, String) {
    let d = r.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    (d[0].kind.clone(), d[0].message.clone())
}

const TEX2D: &str = "tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];";
/// At lod %f1 = 1.5.
const TEX_LEVEL: &str = "tex.level.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f2, %f2}], %f1;";

#[test]
fn what_is_not_modelled_is_an_error_naming_it() {
    let f32_2d = object(Chan::F32, [4, 4, 1], 2);
    let linear = |mut o: TexObject| {
        o.linear = true;
        o
    };
    let cases: Vec<(&str, TexObject, &str)> = vec![
        (
            "tex.grad.3d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2, %f2, %f2}], {%f1, %f2, %f2, %f2}, {%f1, %f2, %f2, %f2};",
            mipmapped(Chan::F32, [4, 4, 1], 3, false),
            "`.grad` on `.3d`",
        ),
        (
            "tld4.r.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];",
            TexObject {
                normalized: true,
                ..object(Chan::F32, [5, 4, 1], 2)
            },
            "`tld4` with normalized coordinates",
        ),
        (
            TEX_LEVEL,
            TexObject {
                address: [AddrMode::Border; 3],
                ..linear(mipmapped(Chan::F32, [4, 4, 1], 3, false))
            },
            "mipmapped texture in border mode",
        ),
        (
            TEX_LEVEL,
            TexObject {
                address: [AddrMode::Wrap; 3],
                ..mipmapped(Chan::F32, [4, 4, 1], 3, true)
            },
            "other address modes than clamp",
        ),
        (
            TEX_LEVEL,
            TexObject {
                read_float: true,
                ..mipmapped(Chan::U16, [4, 4, 1], 3, true)
            },
            "other than f32 and u8 read as normalized floats",
        ),
        (
            "tex.level.1d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f2}], %f1;",
            TexObject {
                ndim: 1,
                ..linear(mipmapped(Chan::F32, [4, 1, 1], 3, true))
            },
            "trilinear filtering of a 1D texture",
        ),
        (
            "mov.f32 %f1, 0f7FC00000; tex.cube.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2, %f2, %f2}];",
            TexObject {
                cube: true,
                normalized: true,
                ..f32_2d.clone()
            },
            "infinite or NaN",
        ),
        (
            TEX2D,
            TexObject {
                address: [AddrMode::Border; 3],
                ..linear(object(Chan::F16, [4, 4, 1], 2))
            },
            "border mode of texels other than f32",
        ),
        (
            "mov.b32 %r1, 0; tex.a2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%r1, %f1, %f2, %f2}];",
            TexObject {
                address: [AddrMode::Border; 3],
                layers: Some(2),
                ..linear(f32_2d.clone())
            },
            "layered texture or cube map in border mode",
        ),
        (
            // x = -5: in the border.
            "mov.f32 %f1, 0fC0A00000; tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];",
            TexObject {
                address: [AddrMode::Border; 3],
                border: [0.5f32.to_bits(); 4],
                read_float: true,
                ..object(Chan::S8, [4, 4, 1], 2)
            },
            "this border colour in this format",
        ),
        (
            "mov.f32 %f1, 0fC0A00000; tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];",
            TexObject {
                address: [AddrMode::Border; 3],
                border: [f32::NAN.to_bits(); 4],
                read_float: true,
                ..linear(object(Chan::U8, [4, 4, 1], 2))
            },
            "NaN or subnormal border colour",
        ),
        (
            TEX_LEVEL,
            mipmapped(Chan::F32, [16384, 4, 1], 3, false),
            "more than 8192 texels",
        ),
        (
            "tex.3d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2, %f2, %f2}];",
            TexObject {
                read_float: true,
                ..linear(object(Chan::U16, [4, 4, 4], 3))
            },
            "3D linear filtering of texels other than f32",
        ),
        (
            "txq.channel_order.b32 %r1, [%rd1];",
            f32_2d.clone(),
            "refuses to load a module with the `.channel_order` query",
        ),
        (
            "tex.2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}];",
            f32_2d.clone(),
            "result type does not match",
        ),
        (
            "tex.2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}];",
            TexObject {
                address: [AddrMode::Border; 3],
                border: [1, 0, 0, 0],
                ..object(Chan::S32, [4, 4, 1], 2)
            },
            "border colour read into integer registers",
        ),
    ];
    for (ins, o, want) in cases {
        let r = run(ins, o, 1, false);
        assert!(!r.diagnostics().is_empty(), "{ins} ran");
        let (kind, msg) = stopped(&r);
        assert_eq!(kind, "unsupported", "{ins}: {msg}");
        assert!(msg.contains(want), "{ins}: {msg}");
    }
}

#[test]
fn point_sampling_reads_the_texel_under_the_coordinate() {
    // Texel (1, 0) of a 4x4 f32 texture: bytes 4..8 of the buffer, which holds i at byte i.
    let r = run(TEX2D, object(Chan::F32, [4, 4, 1], 2), 1, true);
    assert_eq!(r.status(), "ok", "{:?}", r.diagnostics());
    let out = r.buffer("out").unwrap();
    assert_eq!(&out[..4], &[4, 5, 6, 7]);
    // Missing channels read as 0.
    assert_eq!(&out[4..16], &[0; 12]);
    let r = run(
        "txq.height.b32 %r1, [%rd1];",
        object(Chan::F32, [4, 3, 1], 2),
        1,
        false,
    );
    assert_eq!(r.buffer("out").unwrap()[16], 3);
}

#[test]
fn surface_misuse_faults_as_on_the_h100() {
    let surface = TexObject {
        surface: true,
        ..object(Chan::U32, [4, 4, 1], 2)
    };
    let cases = [
        // x is in bytes: 2 is not a multiple of the 4-byte access.
        (
            "suld.b.2d.b32.zero {%r1}, [%rd1, {%r2, %r3}];",
            "misaligned",
        ),
        (
            "suld.b.2d.b32.trap {%r1}, [%rd1, {%r1, %r4}]; mov.b32 %r5, 16; suld.b.2d.b32.trap {%r1}, [%rd1, {%r5, %r1}];",
            "out of bounds (.trap)",
        ),
        (
            "sust.p.2d.b32.trap [%rd1, {%r1, %r1}], {%r1};",
            "formatted surface access",
        ),
        // A surface handle where a texture is expected.
        (TEX2D, "is not a texture object"),
    ];
    for (ins, want) in cases {
        let r = run(ins, surface.clone(), 1, false);
        let (_, msg) = stopped(&r);
        assert!(msg.contains(want), "{ins}: {msg}");
    }
    // Zero mode: loads outside read 0 and stores outside are dropped.
    let r = run(
        "mov.b32 %r5, 16; sust.b.2d.b32.zero [%rd1, {%r5, %r1}], %r5; suld.b.2d.b32.zero {%r1}, [%rd1, {%r5, %r1}];",
        surface,
        1,
        true,
    );
    assert_eq!(r.status(), "ok", "{:?}", r.diagnostics());
    assert_eq!(&r.buffer("out").unwrap()[16..20], &[0; 4]);
    assert_eq!(r.buffer("texels").unwrap()[..4], [0, 1, 2, 3]);
}

#[test]
fn a_texture_read_races_with_a_store_to_its_texels() {
    // CTA 0 stores to texel (1, 0) while CTA 1 samples it: nothing orders them.
    let ins = format!("@%p1 st.global.f32 [%rd3+4], %f1; @!%p1 {TEX2D}");
    let r = run(&ins, object(Chan::F32, [4, 4, 1], 2), 2, true);
    let kinds: Vec<String> = r.diagnostics().iter().map(|d| d.kind.clone()).collect();
    assert!(kinds.contains(&"data-race".to_string()), "{kinds:?}");
}

/// A `.param .texref` kernel parameter named in `tex` (what ptxas takes besides a `.u64`
/// register) is the object whose handle the parameter holds, as `ld.param` then `tex` through a
/// register reads it (the parameter's `.param` address, its offset, is no handle).
#[test]
fn a_texref_parameter_names_the_object_it_holds() {
    let o = object(Chan::F32, [4, 4, 1], 2);
    let by_register = run(TEX2D, o.clone(), 1, true);
    let by_name = TEX2D.replace("[%rd1,", "[t,");
    assert_ne!(by_name, TEX2D);
    let ptx = kernel(&by_name).replace(".param .u64 t,", ".param .texref t,");
    let r = run_ptx(&ptx, o, 1, true);
    assert_eq!(r.status(), "ok", "{:?}", r.diagnostics());
    assert_eq!(r.buffer("out"), by_register.buffer("out"));
    assert_eq!(&r.buffer("out").unwrap()[..4], &[4, 5, 6, 7]);
}

/// The byte a `.u32` sample of `ins` reads from an object whose texel at byte `i` holds `i`.
fn texel_read(ins: &str, o: TexObject) -> u32 {
    let r = run(ins, o, 1, false);
    assert!(r.diagnostics().is_empty(), "{ins}: {:?}", r.diagnostics());
    let out = &r.buffer("out").unwrap();
    u32::from_le_bytes(out[16..20].try_into().unwrap())
}

#[test]
fn tex_level_picks_the_measured_level() {
    // 4x4 u8 texels, levels at bytes 0, 16 (2x2) and 20 (1x1); sampled at (0.5, 0.5).
    let u8_mips = |bias: i32, min: u32| TexObject {
        mips: Mips {
            bias,
            min,
            ..mipmapped(Chan::U8, [4, 4, 1], 3, false).mips
        },
        ..mipmapped(Chan::U8, [4, 4, 1], 3, false)
    };
    let at = |lod: &str| {
        format!("mov.f32 %f1, {lod}; tex.level.2d.v4.u32.f32 {{%r1, %r2, %r3, %r4}}, [%rd1, {{%f2, %f2}}], %f1;")
    };
    // lod 1.5: the nearest level, halves up; 1.5 - 1/256: level 1, texel (1, 1).
    assert_eq!(texel_read(&at("0f3FC00000"), u8_mips(0, 0)), 20);
    assert_eq!(texel_read(&at("0f3FBF8000"), u8_mips(0, 0)), 19);
    // A bias of -1/2 (in 1/256: -128), and a minimum of level 2.
    assert_eq!(texel_read(&at("0f3FC00000"), u8_mips(-128, 0)), 19);
    assert_eq!(texel_read(&at("0f00000000"), u8_mips(0, 512)), 20);
    // NaN is lod 0: texel (2, 2) of level 0.
    assert_eq!(texel_read(&at("0f7FC00000"), u8_mips(0, 0)), 10);
    // Plain `tex` reads lod 0 without the bias, within the clamps; `.level` on a texture
    // without levels reads level 0.
    let plain = "tex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f2, %f2}];";
    assert_eq!(texel_read(plain, u8_mips(512, 0)), 10);
    assert_eq!(texel_read(plain, u8_mips(0, 256)), 19);
    let flat = TexObject {
        normalized: true,
        ..object(Chan::U8, [4, 4, 1], 2)
    };
    assert_eq!(texel_read(&at("0f40400000"), flat), 10);
}

#[test]
fn tex_cube_picks_the_face_and_texel_of_the_table() {
    // Six 2x2 u8 faces, face f at byte 4f.
    let cube = TexObject {
        cube: true,
        normalized: true,
        ..object(Chan::U8, [2, 2, 1], 2)
    };
    let dir = |x: &str, y: &str, z: &str| {
        format!("mov.f32 %f1, {x}; mov.f32 %f2, {y}; mov.f32 %f3, {z}; tex.cube.v4.u32.f32 {{%r1, %r2, %r3, %r4}}, [%rd1, {{%f1, %f2, %f3, %f3}}];")
    };
    // (0, 0, -1): face -z, its centre (texel (1, 1)).
    assert_eq!(
        texel_read(&dir("0f00000000", "0f00000000", "0fBF800000"), cube.clone()),
        23
    );
    // (1, 0.5, 0): face +x, s = 0.5, t = 0.25.
    assert_eq!(
        texel_read(&dir("0f3F800000", "0f3F000000", "0f00000000"), cube.clone()),
        1
    );
    // (-1, -1, 0.5): x and y tie, y wins: face -y, s = 0, t = 0.25.
    assert_eq!(
        texel_read(&dir("0fBF800000", "0fBF800000", "0f3F000000"), cube),
        12
    );
}

#[test]
fn launch_checks_refuse_unmeasured_mipmap_and_cube_settings() {
    use ptxrun::api::{MipSpec, TexSpec};
    let spec = |levels: u32, min: f32, normalized: bool, cubemap: bool| TexSpec {
        surface: false,
        ty: Type::F32,
        channels: 1,
        dims: vec![8, 8],
        layers: None,
        pitch: None,
        resource: "array",
        filter: "point",
        address: vec!["clamp"],
        normalized,
        read: "element",
        border: None,
        cubemap,
        mips: MipSpec {
            levels,
            min,
            ..MipSpec::default()
        },
    };
    let err = |s: TexSpec| s.build().unwrap_err();
    assert!(err(spec(2, 2.0, true, false)).contains("than the last level"));
    assert!(err(spec(2, 0.0, false, false)).contains("normalized coordinates only"));
    assert!(err(spec(1, 0.5, true, false)).contains("mipmap settings need `levels`"));
    assert!(err(spec(1, 0.5, true, true)).contains("mipmap settings need `levels`"));
    assert!(err(spec(5, 0.0, true, false)).contains(".levels: 1 to 4"));
    let (o, texels) = spec(4, 0.0, true, false).build().unwrap();
    assert_eq!(texels, 64 + 16 + 4 + 1);
    assert_eq!(o.mips.max, 3 * 256);
    let (cube, texels) = spec(1, 0.0, true, true).build().unwrap();
    assert!(cube.cube);
    assert_eq!(texels, 6 * 64);
}

#[test]
fn unnormalized_3d_wrap_and_mirror_filter_as_clamp() {
    // Unnormalized coordinates clamp in wrap and mirror modes (measured in 1D and 2D): in 3D
    // that includes clamping the coordinate before its fraction is taken.
    // x = -0.25 (a fraction of 64 unclamped, 0 clamped), y = 0.5 + 1/256, z = 0.5 + 129/256:
    // there the y split of the upper z slice (weight 129, the larger texels) differs by one.
    let tex3d = "mov.f32 %f1, 0fBE800000; mov.f32 %f2, 0f3F010000; mov.f32 %f7, 0f3F808000; tex.3d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2, %f7, %f7}];";
    let out = |mode: AddrMode| {
        let o = TexObject {
            linear: true,
            address: [mode; 3],
            ..object(Chan::F32, [4, 4, 4], 3)
        };
        let r = run(tex3d, o, 1, false);
        assert_eq!(r.status(), "ok", "{:?}", r.diagnostics());
        r.buffer("out").unwrap()[..16].to_vec()
    };
    let clamp = out(AddrMode::Clamp);
    assert_eq!(out(AddrMode::Wrap), clamp);
    assert_eq!(out(AddrMode::Mirror), clamp);
}
