//! Where every variable lives at run time: global addresses of module variables (with their
//! initial bytes and relocations applied), shared-memory offsets (static variables in
//! declaration order, then the dynamic `.extern .shared` area), and per-function frames for
//! `.local` variables and call-site `.param` variables (PTX ISA 9.0 section 5.1.5 and 7).

use crate::ir::{FuncId, Linkage, Module, Space, Symbol};
use crate::mem::Global;

/// Function pointers are these addresses plus 16 times the function index.
pub const FUNC_BASE: u64 = 0x0004_0000_0000_0000;

/// Static shared memory a kernel may declare, bytes.
pub const MAX_STATIC_SHARED_BYTES: u64 = 48 * 1024;

/// Shared memory a CTA may use on sm_90 (opt-in maximum), bytes.
pub const MAX_SHARED_BYTES: u64 = 227 * 1024;

#[derive(Debug, Clone)]
pub struct Layout {
    /// Per variable: global address (global/const), shared offset, or frame offset (local/param).
    pub var_addr: Vec<u64>,
    /// Static shared bytes; the dynamic area starts at `dynamic_offset`.
    pub static_shared: u64,
    pub dynamic_offset: u64,
    /// Per function: bytes of `.local` variables, and of its parameter frame.
    pub local_size: Vec<u64>,
    pub param_size: Vec<u64>,
    /// Per function: offset of each parameter and return value in its parameter frame.
    pub param_off: Vec<Vec<u64>>,
    pub ret_off: Vec<Vec<u64>>,
}

impl Layout {
    /// Shared memory one CTA needs: the static variables (or where the dynamic area starts,
    /// past them) plus the launch's dynamic bytes.
    pub fn cta_shared_bytes(&self, dynamic: u32) -> u64 {
        self.dynamic_offset.max(self.static_shared) + u64::from(dynamic)
    }

    /// Lays the module out for a launch of `entry`, placing global and constant variables into
    /// `global`. Shared memory holds the module's shared variables and those of `entry` and of
    /// device functions, never those another kernel declares in its body (each kernel's static
    /// shared memory is its own, as the driver allocates it).
    pub fn new(
        m: &Module,
        entry: crate::ir::FuncId,
        global: &mut Global,
    ) -> Result<Layout, String> {
        let mut var_addr = vec![0u64; m.vars.len()];
        let mut local_size = vec![0u64; m.functions.len()];
        let (mut param_size, param_off, ret_off) = param_frames(m);
        let mut shared = 0u64;
        let mut dynamic_align = 16u64;
        for (i, v) in m.vars.iter().enumerate() {
            let align = u64::from(v.align.max(1));
            match v.space {
                Space::Global | Space::Const => {
                    let size = usize::try_from(v.size)
                        .map_err(|_| format!("`{}` is too large", v.name))?;
                    // Zeroed pages cost nothing until touched: a large variable costs what the
                    // kernel touches.
                    let mut data = vec![0u8; size];
                    let n = v.init.len().min(size);
                    data[..n].copy_from_slice(&v.init[..n]);
                    var_addr[i] = global.alloc(&v.name, data, v.space == Space::Const);
                }
                Space::Shared | Space::SharedCluster
                    if v.linkage == Linkage::Extern && v.size == 0 =>
                {
                    dynamic_align = dynamic_align.max(align);
                }
                Space::Shared | Space::SharedCluster
                    if v.owner.is_some_and(|o| {
                        o != entry && m.functions.get(o.0 as usize).is_some_and(|f| f.is_entry)
                    }) => {}
                Space::Shared | Space::SharedCluster => {
                    shared = shared.next_multiple_of(align);
                    var_addr[i] = shared;
                    shared += v.size;
                }
                Space::Local => {
                    let f = v.owner.map_or(0, |o| o.0 as usize);
                    let off = local_size[f].next_multiple_of(align);
                    var_addr[i] = off;
                    local_size[f] = off + v.size;
                }
                Space::Param | Space::ParamEntry | Space::ParamFunc => {
                    let f = v.owner.map_or(0, |o| o.0 as usize);
                    let off = param_size[f].next_multiple_of(align);
                    var_addr[i] = off;
                    param_size[f] = off + v.size;
                }
                _ => {}
            }
        }
        let dynamic_offset = shared.next_multiple_of(dynamic_align);
        for (i, v) in m.vars.iter().enumerate() {
            if matches!(v.space, Space::Shared | Space::SharedCluster)
                && v.linkage == Linkage::Extern
                && v.size == 0
            {
                var_addr[i] = dynamic_offset;
            }
        }
        if shared > MAX_STATIC_SHARED_BYTES {
            return Err(format!(
                "the module declares {shared} bytes of static shared memory; CUDA allows at most {MAX_STATIC_SHARED_BYTES} (use dynamic shared memory beyond that)"
            ));
        }
        let layout = Layout {
            var_addr,
            static_shared: shared,
            dynamic_offset,
            local_size,
            param_size,
            param_off,
            ret_off,
        };
        relocate(m, &layout, global)?;
        Ok(layout)
    }
}

/// Parameter frames of every function: params, then return values (call-site variables are
/// added after them); per function the frame size and the params' and returns' offsets.
fn param_frames(m: &Module) -> (Vec<u64>, Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let nf = m.functions.len();
    let mut param_size = vec![0u64; nf];
    let mut param_off = vec![Vec::new(); nf];
    let mut ret_off = vec![Vec::new(); nf];
    for (fi, f) in m.functions.iter().enumerate() {
        let mut off = 0u64;
        for p in &f.params {
            off = off.next_multiple_of(u64::from(p.align.max(1)));
            param_off[fi].push(off);
            off += u64::from(p.size);
        }
        for p in &f.rets {
            off = off.next_multiple_of(u64::from(p.align.max(1)));
            ret_off[fi].push(off);
            off += u64::from(p.size);
        }
        param_size[fi] = off;
    }
    (param_size, param_off, ret_off)
}

/// Writes the relocations of global and constant variables' initial data: the addresses of
/// other variables and functions.
fn relocate(m: &Module, layout: &Layout, global: &mut Global) -> Result<(), String> {
    // Relocations: addresses of other variables and functions inside initial data.
    for (i, v) in m.vars.iter().enumerate() {
        if v.relocs.is_empty() || !matches!(v.space, Space::Global | Space::Const) {
            continue;
        }
        for r in &v.relocs {
            let target = match r.target {
                Symbol::Var(t) => {
                    let tv = &m.vars[t.0 as usize];
                    let a = layout.var_addr[t.0 as usize];
                    match tv.space {
                        Space::Shared if r.generic => a + crate::mem::SHARED_WINDOW,
                        _ => a,
                    }
                }
                Symbol::Func(f) => func_addr(f),
                Symbol::Param(_) | Symbol::Ret(_) => 0,
            };
            let value = target.wrapping_add(r.addend as u64);
            let addr = layout.var_addr[i] + r.offset;
            let bytes = global
                .write_init(addr, r.size as usize)
                .map_err(|e| e.message)?;
            crate::mem::write_le(bytes, value);
        }
    }
    Ok(())
}

pub fn func_addr(f: FuncId) -> u64 {
    FUNC_BASE + 16 * u64::from(f.0)
}

/// The function a function-pointer value names.
pub fn func_of(addr: u64, m: &Module) -> Option<FuncId> {
    let off = addr.checked_sub(FUNC_BASE)?;
    (off % 16 == 0 && off / 16 < m.functions.len() as u64).then_some(FuncId((off / 16) as u32))
}
