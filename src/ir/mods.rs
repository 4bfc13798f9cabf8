//! Instruction modifiers as the PTX manual writes them: each dotted word of an opcode is one of a
//! handful of *classes* (a type, a state space, a rounding mode, a comparison, a memory-order
//! semantic, a scope, a vector width, a cache operator, a sub-operation, a flag, a cache hint).
//! [`vocabulary`] maps a word to the classes it can belong to; the opcode's table entry
//! (see `opcode.rs`) says which classes and which sub-operations and flags it accepts, which
//! settles the few words that mean different things for different opcodes (`.lo` is a
//! comparison for `setp` and a half-selector for `mul`; `.and` a combiner for `setp` and an
//! operation for `atom`). PTX ISA 9.0 chapter 9 gives each instruction's syntax.

use super::types::{Space, Type};
use std::fmt;

macro_rules! word_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),* }
        impl $name {
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)* _ => None }
            }
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, ".{}", self.name())
            }
        }
    };
}

word_enum!(
    /// Floating-point (`.rn`...) and float-to-integer (`.rni`...) rounding (section 9.7.3, 9.7.9.21).
    Rounding { Rn = "rn", Rz = "rz", Rm = "rm", Rp = "rp", Rna = "rna", Rs = "rs", Rni = "rni", Rzi = "rzi", Rmi = "rmi", Rpi = "rpi" }
);

word_enum!(
    /// Comparison operators of `setp`/`set` (section 9.7.7.1).
    Cmp {
        Eq = "eq", Ne = "ne", Lt = "lt", Le = "le", Gt = "gt", Ge = "ge",
        Lo = "lo", Ls = "ls", Hi = "hi", Hs = "hs",
        Equ = "equ", Neu = "neu", Ltu = "ltu", Leu = "leu", Gtu = "gtu", Geu = "geu",
        Num = "num", Nan = "nan",
    }
);

word_enum!(
    /// The boolean combiner of `setp.cmp.bool` and `set.cmp.bool`.
    BoolOp { And = "and", Or = "or", Xor = "xor" }
);

word_enum!(
    /// Memory-order semantics (section 8.4).
    Sem { Relaxed = "relaxed", Acquire = "acquire", Release = "release", AcqRel = "acq_rel", Sc = "sc", Volatile = "volatile", Weak = "weak", Mmio = "mmio" }
);

word_enum!(
    /// Memory scopes (section 8.5); `membar.gl` is the GPU scope.
    Scope { Cta = "cta", Cluster = "cluster", Gpu = "gpu", Sys = "sys", Gl = "gl" }
);

word_enum!(
    /// Cache operators of ld/st/cp.async (section 9.7.9.1).
    CacheOp { Ca = "ca", Cg = "cg", Cs = "cs", Lu = "lu", Cv = "cv", Wb = "wb", Wt = "wt" }
);

word_enum!(
    /// Sub-operations: the word that picks which variant of an instruction runs.
    SubOp {
        Lo = "lo", Hi = "hi", Wide = "wide",
        L = "l", R = "r",
        Up = "up", Down = "down", Bfly = "bfly", Idx = "idx",
        All = "all", Any = "any", Uni = "uni", Ballot = "ballot",
        Add = "add", Min = "min", Max = "max", Inc = "inc", Dec = "dec",
        And = "and", Or = "or", Xor = "xor", Exch = "exch", Cas = "cas", Popc = "popc",
        Sync = "sync", Arrive = "arrive", Red = "red", Wait = "wait",
        F4e = "f4e", B4e = "b4e", Rc8 = "rc8", Ecl = "ecl", Ecr = "ecr", Rc16 = "rc16",
        Finite = "finite", Infinite = "infinite", Number = "number", NotANumber = "notanumber",
        Normal = "normal", Subnormal = "subnormal",
        LaunchDependents = "launch_dependents",
        Clamp = "clamp", Wrap = "wrap",
        // `vmad`'s plus-one mode and result scales (section 9.7.16.1.3).
        Po = "po", Shr7 = "shr7", Shr15 = "shr15",
        // The fragment a `wmma.load`/`wmma.store` moves (section 9.7.14.4).
        FragA = "a", FragB = "b", FragC = "c", FragD = "d",
        // The field a `tensormap.replace` writes (section 9.7.9.27).
        GlobalAddress = "global_address", Rank = "rank", BoxDim = "box_dim",
        GlobalDim = "global_dim", GlobalStride = "global_stride",
        ElementStride = "element_stride", Elemtype = "elemtype",
        InterleaveLayout = "interleave_layout", SwizzleMode = "swizzle_mode",
        SwizzleAtomicity = "swizzle_atomicity", FillMode = "fill_mode",
        // Textures and surfaces (section 9.7.10): `tld4`'s component (`.r` above, `.a`/`.b`
        // are `FragA`/`FragB`), `.p` formatted surface access (`.b` is `FragB`), `tex`'s
        // mipmap forms and the `txq`/`suq` queries.
        G = "g", P = "p", Base = "base", Level = "level", Grad = "grad",
        Width = "width", Height = "height", Depth = "depth",
        ChannelDataType = "channel_data_type", ChannelOrder = "channel_order",
        NormalizedCoords = "normalized_coords", ArraySize = "array_size",
        NumMipmapLevels = "num_mipmap_levels", NumSamples = "num_samples",
        FilterMode = "filter_mode", AddrMode0 = "addr_mode_0", AddrMode1 = "addr_mode_1",
        AddrMode2 = "addr_mode_2", ForceUnnormalizedCoords = "force_unnormalized_coords",
        MemoryLayout = "memory_layout",
    }
);

word_enum!(
    /// What a surface access out of bounds does (`.trap`, `.clamp`, `.zero`; section 9.7.10.5).
    Oob { Trap = "trap", Clamp = "clamp", Zero = "zero" }
);

/// Boolean modifiers, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Flags(pub u64);

macro_rules! flags {
    ($($name:ident = $bit:literal, $text:literal;)*) => {
        impl Flags {
            $(pub const $name: Flags = Flags(1 << $bit);)*
            const NAMES: &'static [(Flags, &'static str)] = &[$((Flags::$name, $text)),*];
        }
    };
}

flags! {
    FTZ = 0, "ftz";
    SAT = 1, "sat";
    APPROX = 2, "approx";
    FULL = 3, "full";
    RELU = 4, "relu";
    NAN = 5, "NaN";
    XORSIGN = 6, "xorsign";
    ABS = 7, "abs";
    CC = 8, "cc";
    UNI = 9, "uni";
    SYNC = 10, "sync";
    ALIGNED = 11, "aligned";
    NC = 12, "nc";
    NOINC = 13, "noinc";
    EXPECT_TX = 14, "expect_tx";
    NO_COMPLETE = 15, "noComplete";
    PARITY = 16, "parity";
    READ = 17, "read";
    BULK_GROUP = 18, "bulk_group";
    COMPLETE_TX = 19, "mbarrier::complete_tx::bytes";
    MULTICAST = 20, "multicast::cluster";
    CACHE_HINT = 21, "L2::cache_hint";
    SHIFTAMT = 22, "shiftamt";
    TO = 23, "to";
    TILE = 24, "tile";
    IM2COL = 25, "im2col";
    NOFTZ = 26, "noftz";
    SATFINITE = 27, "satfinite";
    OOB = 28, "oob";
    UNIFIED = 29, "unified";
    PACK = 30, "pack";
    IM2COL_NO_OFFS = 32, "im2col_no_offs";
    TILE_GATHER4 = 33, "tile::gather4";
    NON_BLOCKING = 36, "nonblocking";
    // A tensor map's size in `tensormap.replace` and the proxy of `tensormap.cp_fenceproxy`.
    B1024 = 38, "b1024";
    TRAP = 39, "trap";
    TENSORMAP_GENERIC = 41, "tensormap::generic";
    ZERO = 40, "zero";
    CP_MASK = 42, "cp_mask";
    IGNORE_OOB = 43, "ignore_oob";
    // Set when the instruction carried cache hints (`.L2::128B`, `.L1::evict_last`): they do
    // not change results; the source span keeps their text.
    HINTED = 44, "hints";
    MASK = 45, "mask";
    CTA_GROUP_1 = 46, "cta_group::1";
    CTA_GROUP_2 = 47, "cta_group::2";
    TILE_SCATTER4 = 48, "tile::scatter4";
    SYNC_RESTRICT_CTA = 49, "sync_restrict::shared::cta";
    SYNC_RESTRICT_CLUSTER = 50, "sync_restrict::shared::cluster";
    OP_RESTRICT = 51, "op_restrict";
    // Not a PTX modifier: this add/sub is fused with a preceding mul (see ir/contract.rs).
    CONTRACTED = 52, "contracted";
    // Matrix shapes and counts of ldmatrix/stmatrix (section 9.7.14.5.15-16).
    M8N8 = 53, "m8n8";
    M16N16 = 54, "m16n16";
    M8N16 = 55, "m8n16";
    M16N8 = 56, "m16n8";
    X1 = 57, "x1";
    X2 = 58, "x2";
    X4 = 59, "x4";
    TRANS = 60, "trans";
    // sm_100 ldmatrix/stmatrix element formats (decoded so such modules parse; not executed).
    B8X16 = 61, "b8x16";
    B6X16_P32 = 62, "b6x16_p32";
    B4X16_P64 = 63, "b4x16_p64";
    // Operand layouts of matrix multiplies (`.row`/`.col`, section 9.7.14.5.14): the first
    // word is A's layout, the second B's. Decoded from `Mod::Layout`, never parsed by name.
    ROW_A = 31, "row";
    COL_A = 34, "col";
    ROW_B = 35, "row";
    COL_B = 37, "col";
}

impl Flags {
    pub const NONE: Flags = Flags(0);

    pub const fn or(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn parse(s: &str) -> Option<Flags> {
        Flags::NAMES.iter().find(|(_, n)| *n == s).map(|(f, _)| *f)
    }

    /// Names of the set bits, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Flags::NAMES
            .iter()
            .filter(move |(f, _)| self.contains(*f) && f.0 != 0)
            .map(|(_, n)| *n)
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        self.or(rhs)
    }
}

/// What one modifier word can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mod {
    Type(Type),
    Space(Space),
    Rnd(Rounding),
    Cmp(Cmp),
    Bool(BoolOp),
    Sem(Sem),
    Scope(Scope),
    Vec(u8),
    Cache(CacheOp),
    Sub(SubOp),
    Flag(Flags),
    /// Tensor dimensionality of `cp.async.bulk.tensor.Nd`, or a texture geometry
    /// (`.a1d` and the others above 5: see [`Geom`]).
    Dim(u8),
    /// A surface instruction's out-of-bounds mode.
    Oob(Oob),
    /// A matrix shape `.mMnNkK` (an index into [`MatShape::ALL`]).
    Shape(u8),
    /// A matrix operand layout: `.row` (false) or `.col` (true).
    Layout(bool),
    /// Cache eviction and prefetch-size hints (`.L1::evict_last`, `.L2::128B`, `.level::...`):
    /// accepted and kept for printing, no semantic effect on results.
    Hint,
}

/// The classes of [`Mod`], as a bit set that opcode table entries use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classes(pub u16);

impl Classes {
    pub const TYPE: Classes = Classes(1);
    pub const SPACE: Classes = Classes(1 << 1);
    pub const RND: Classes = Classes(1 << 2);
    pub const CMP: Classes = Classes(1 << 3);
    pub const BOOL: Classes = Classes(1 << 4);
    pub const SEM: Classes = Classes(1 << 5);
    pub const SCOPE: Classes = Classes(1 << 6);
    pub const VEC: Classes = Classes(1 << 7);
    pub const CACHE: Classes = Classes(1 << 8);
    pub const HINT: Classes = Classes(1 << 9);
    pub const DIM: Classes = Classes(1 << 10);
    /// Matrix shapes and layouts (`mma`, `wmma`, `wgmma`); bit 11 is the opcode table's SP2.
    pub const SHAPE: Classes = Classes(1 << 12);
    pub const OOB: Classes = Classes(1 << 13);
    pub const NONE: Classes = Classes(0);

    pub const fn or(self, o: Classes) -> Classes {
        Classes(self.0 | o.0)
    }

    pub fn has(self, o: Classes) -> bool {
        self.0 & o.0 != 0
    }
}

impl Mod {
    pub fn class(self) -> Option<Classes> {
        Some(match self {
            Mod::Type(_) => Classes::TYPE,
            Mod::Space(_) => Classes::SPACE,
            Mod::Rnd(_) => Classes::RND,
            Mod::Cmp(_) => Classes::CMP,
            Mod::Bool(_) => Classes::BOOL,
            Mod::Sem(_) => Classes::SEM,
            Mod::Scope(_) => Classes::SCOPE,
            Mod::Vec(_) => Classes::VEC,
            Mod::Cache(_) => Classes::CACHE,
            Mod::Hint => Classes::HINT,
            Mod::Dim(_) => Classes::DIM,
            Mod::Oob(_) => Classes::OOB,
            Mod::Shape(_) | Mod::Layout(_) => Classes::SHAPE,
            // Sub-operations and flags are allowed one by one, not by class.
            Mod::Sub(_) | Mod::Flag(_) => return None,
        })
    }
}

/// Every reading of a modifier word, most specific first. Empty if the word is no PTX modifier.
pub fn vocabulary(word: &str) -> Vec<Mod> {
    let mut out = Vec::with_capacity(2);
    if let Some(t) = Type::parse(word) {
        out.push(Mod::Type(t));
    }
    if let Some(s) = Space::parse(word) {
        out.push(Mod::Space(s));
    }
    if let Some(r) = Rounding::parse(word) {
        out.push(Mod::Rnd(r));
    }
    if let Some(s) = SubOp::parse(word) {
        out.push(Mod::Sub(s));
    }
    if let Some(c) = Cmp::parse(word) {
        out.push(Mod::Cmp(c));
    }
    if let Some(b) = BoolOp::parse(word) {
        out.push(Mod::Bool(b));
    }
    if let Some(s) = Sem::parse(word) {
        out.push(Mod::Sem(s));
    }
    if let Some(s) = Scope::parse(word) {
        out.push(Mod::Scope(s));
    }
    if let Some(c) = CacheOp::parse(word) {
        out.push(Mod::Cache(c));
    }
    if let Some(f) = Flags::parse(word) {
        out.push(Mod::Flag(f));
    }
    if let Some(o) = Oob::parse(word) {
        out.push(Mod::Oob(o));
    }
    if let Some(g) = Geom::parse(word) {
        out.push(Mod::Dim(g as u8));
    }
    match word {
        "v2" => out.push(Mod::Vec(2)),
        "v4" => out.push(Mod::Vec(4)),
        "v8" => out.push(Mod::Vec(8)),
        "1d" => out.push(Mod::Dim(1)),
        "2d" => out.push(Mod::Dim(2)),
        "3d" => out.push(Mod::Dim(3)),
        "4d" => out.push(Mod::Dim(4)),
        "5d" => out.push(Mod::Dim(5)),
        "row" => out.push(Mod::Layout(false)),
        "col" => out.push(Mod::Layout(true)),
        _ => {}
    }
    if let Some(i) = MatShape::parse(word) {
        out.push(Mod::Shape(i));
    }
    let is_hint = word == "L1"
        || word == "L2"
        || word == "tensormap"
        || (word.starts_with("L1::") || word.starts_with("L2::") || word.starts_with("level::"))
            && word != "L2::cache_hint";
    if is_hint {
        out.push(Mod::Hint);
    }
    out
}

/// The decoded modifiers of one instruction: one field per class, so each is set at most once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mods {
    /// Instruction types in written order (`cvt.f32.s32`: destination then source).
    pub types: [Option<Type>; 4],
    pub space: Option<Space>,
    /// The second state space of copies, or a surface instruction's out-of-bounds mode (no
    /// instruction has both; one byte keeps `Instr` at 48 bytes): see [`Mods::space2`] and
    /// [`Mods::oob`].
    /// 0: neither; `1 + Space as u8`; `0x80 + Oob as u8`.
    pub second: u8,
    pub rnd: Option<Rounding>,
    pub cmp: Option<Cmp>,
    pub bool_op: Option<BoolOp>,
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    pub cache: Option<CacheOp>,
    pub sub: Option<SubOp>,
    /// A second sub-operation (`bar.red.popc`: `red` then `popc`).
    pub sub2: Option<SubOp>,
    /// Vector width: 1 for scalar.
    pub vec: u8,
    /// Tensor dimensionality or texture geometry, 0 when absent.
    pub dim: u8,
    pub flags: Flags,
}

impl Mods {
    /// The second state space of copies: `cp.async.bulk.<dst>.<src>`.
    pub fn space2(&self) -> Option<Space> {
        match self.second {
            1..0x80 => Space::from_index(self.second - 1),
            _ => None,
        }
    }

    pub fn set_space2(&mut self, s: Space) {
        self.second = 1 + s as u8;
    }

    /// A surface instruction's out-of-bounds mode.
    pub fn oob(&self) -> Option<Oob> {
        [Oob::Trap, Oob::Clamp, Oob::Zero]
            .get(usize::from(self.second.wrapping_sub(0x80)))
            .copied()
    }

    pub fn set_oob(&mut self, o: Oob) {
        self.second = 0x80 + o as u8;
    }

    pub fn ty(&self) -> Option<Type> {
        self.types[0]
    }

    pub fn type_count(&self) -> usize {
        self.types.iter().take_while(|t| t.is_some()).count()
    }

    pub fn has(&self, f: Flags) -> bool {
        self.flags.contains(f)
    }

    /// The matrix shape, for matrix instructions (kept in the `dim` byte, above tensor dims).
    pub fn shape(&self) -> Option<MatShape> {
        let i = self.dim.checked_sub(SHAPE_BASE)?;
        MatShape::ALL.get(usize::from(i)).copied()
    }

    /// Stores a shape index from [`Mod::Shape`].
    pub fn set_shape(&mut self, index: u8) {
        self.dim = SHAPE_BASE + index;
    }

    /// The two operand layouts as written (`true` = `.col`), `None` where absent.
    pub fn layouts(&self) -> [Option<bool>; 2] {
        let one = |row: Flags, col: Flags| {
            if self.has(row) {
                Some(false)
            } else if self.has(col) {
                Some(true)
            } else {
                None
            }
        };
        [
            one(Flags::ROW_A, Flags::COL_A),
            one(Flags::ROW_B, Flags::COL_B),
        ]
    }
}

/// `dim` values from here on are matrix shapes; below, tensor dimensionalities (1..5).
const SHAPE_BASE: u8 = 16;

/// A matrix shape `.mMnNkK` of `mma`, `wmma` and `wgmma` (PTX ISA 9.0 sections 9.7.14.4.1,
/// 9.7.14.5.1 and 9.7.15.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatShape {
    pub m: u16,
    pub n: u16,
    pub k: u16,
}

impl MatShape {
    const fn new(m: u16, n: u16, k: u16) -> MatShape {
        MatShape { m, n, k }
    }

    /// Every shape PTX names: `mma`'s and `wmma`'s, then `wgmma`'s m64nNk{8,16,32,64,256} (k64:
    /// the sparse fp8 and 8-bit integer forms).
    pub const ALL: [MatShape; 17 + 160] = {
        let fixed = [
            MatShape::new(8, 8, 4),
            MatShape::new(16, 8, 4),
            MatShape::new(16, 8, 8),
            MatShape::new(16, 8, 16),
            MatShape::new(16, 8, 32),
            MatShape::new(16, 8, 64),
            MatShape::new(16, 8, 128),
            MatShape::new(16, 8, 256),
            MatShape::new(8, 8, 16),
            MatShape::new(8, 8, 32),
            MatShape::new(8, 8, 128),
            MatShape::new(16, 16, 16),
            MatShape::new(32, 8, 16),
            MatShape::new(8, 32, 16),
            MatShape::new(16, 16, 8),
            MatShape::new(16, 8, 24),
            MatShape::new(16, 8, 48),
        ];
        let mut all = [MatShape::new(0, 0, 0); 17 + 160];
        let mut i = 0;
        while i < fixed.len() {
            all[i] = fixed[i];
            i += 1;
        }
        let ks = [8, 16, 32, 64, 256];
        let mut j = 0;
        while j < 160 {
            all[17 + j] = MatShape::new(64, 8 * (j as u16 / 5 + 1), ks[j % 5]);
            j += 1;
        }
        all
    };

    /// The index of the shape `word` names, if PTX has it.
    pub fn parse(word: &str) -> Option<u8> {
        let rest = word.strip_prefix('m')?;
        let (m, rest) = rest.split_once('n')?;
        let (n, k) = rest.split_once('k')?;
        let shape = MatShape::new(m.parse().ok()?, n.parse().ok()?, k.parse().ok()?);
        let i = MatShape::ALL.iter().position(|s| *s == shape)?;
        u8::try_from(i).ok()
    }
}

impl fmt::Display for MatShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".m{}n{}k{}", self.m, self.n, self.k)
    }
}

/// A texture or surface geometry (`.1d` ... `.a2dms`), kept in [`Mods::dim`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Geom {
    D1 = 1,
    D2 = 2,
    D3 = 3,
    A1d = 6,
    A2d = 7,
    Cube = 8,
    ACube = 9,
    D2ms = 10,
    A2dms = 11,
}

impl Geom {
    const ALL: [Geom; 9] = [
        Geom::D1,
        Geom::D2,
        Geom::D3,
        Geom::A1d,
        Geom::A2d,
        Geom::Cube,
        Geom::ACube,
        Geom::D2ms,
        Geom::A2dms,
    ];

    /// The geometries that are no tensor dimensionality (`.1d`..`.3d` are read as `Dim`).
    pub fn parse(word: &str) -> Option<Geom> {
        Geom::ALL
            .into_iter()
            .find(|g| g.name() == word && *g as u8 > 5)
    }

    pub fn of(dim: u8) -> Option<Geom> {
        Geom::ALL.into_iter().find(|g| *g as u8 == dim)
    }

    pub fn name(self) -> &'static str {
        match self {
            Geom::D1 => "1d",
            Geom::D2 => "2d",
            Geom::D3 => "3d",
            Geom::A1d => "a1d",
            Geom::A2d => "a2d",
            Geom::Cube => "cube",
            Geom::ACube => "acube",
            Geom::D2ms => "2dms",
            Geom::A2dms => "a2dms",
        }
    }

    /// Spatial dimensions (an array's layer index is not one).
    pub fn dims(self) -> usize {
        match self {
            Geom::D1 | Geom::A1d => 1,
            Geom::D2 | Geom::A2d | Geom::D2ms | Geom::A2dms => 2,
            Geom::D3 | Geom::Cube | Geom::ACube => 3,
        }
    }

    pub fn layered(self) -> bool {
        matches!(self, Geom::A1d | Geom::A2d | Geom::ACube | Geom::A2dms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguous_words_have_every_reading() {
        let lo = vocabulary("lo");
        assert!(lo.contains(&Mod::Sub(SubOp::Lo)) && lo.contains(&Mod::Cmp(Cmp::Lo)));
        let and = vocabulary("and");
        assert!(and.contains(&Mod::Sub(SubOp::And)) && and.contains(&Mod::Bool(BoolOp::And)));
        assert_eq!(vocabulary("shared::cta"), vec![Mod::Space(Space::Shared)]);
        assert_eq!(vocabulary("L2::128B"), vec![Mod::Hint]);
        assert_eq!(
            vocabulary("L2::cache_hint"),
            vec![Mod::Flag(Flags::CACHE_HINT)]
        );
        assert_eq!(
            vocabulary("mbarrier::complete_tx::bytes"),
            vec![Mod::Flag(Flags::COMPLETE_TX)]
        );
        assert!(vocabulary("bogus").is_empty());
    }

    #[test]
    fn flag_names_are_unique_per_bit() {
        assert_eq!(
            Flags::FTZ.or(Flags::SAT).names().collect::<Vec<_>>(),
            vec!["ftz", "sat"]
        );
    }
}
