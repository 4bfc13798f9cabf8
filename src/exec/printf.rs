//! The device runtime functions nvcc calls but does not define: `vprintf` (device `printf`;
//! CUDA Programming Guide "Formatted Output"), `malloc`/`free`, and `__assertfail`. `printf`
//! output goes to the run's stdout, lane by lane in lane order at the moment the warp executes
//! the call, which is deterministic for a given seed.
//!
//! Both are bounded as CUDA bounds them. `printf` output goes through a FIFO of
//! `cudaLimitPrintfFifoSize` bytes (1 MiB by default) that the host drains only when the launch
//! ends: calls are kept in order until the first that does not fit, which is dropped with every
//! later one, and the outcome says how many bytes were ([`Fifo`]). `malloc` hands out at most
//! `cudaLimitMallocHeapSize` bytes (8 MiB by default) at once and returns NULL beyond them;
//! `free` gives an allocation's bytes back ([`Heap`]).

use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::{lanes, WARP};
use super::machine::{Machine, WarpRef};
use super::warp::Cluster;
use crate::ir::{Function, OpRange, Operand, Symbol};

/// The call of `callee`, a function the module declares but does not define, by the lanes of
/// `w` (its caller `w.func`), with argument operands `args` and return operands `rets`.
pub(crate) fn builtin<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    w: WarpRef<'m>,
    callee: &'m Function,
    args: &[Operand],
    rets: Option<OpRange>,
) -> Res<()> {
    let WarpRef {
        ci,
        wi,
        gi,
        func: caller,
        active,
        ..
    } = w;
    let Cluster { ctas, smem, .. } = cl;
    let shared = &smem[ctas[ci].rank as usize].bytes;
    let cta = ctas[ci].id;
    let rank = ctas[ci].rank;
    let warp = &mut ctas[ci].warps[wi];
    let gi = warp
        .groups
        .iter()
        .position(|x| x.mask == active)
        .unwrap_or(gi);
    let g = warp.groups[gi].clone();
    let frame_idx = g.frame as usize;
    let at = super::devrt::Caller {
        cta,
        rank,
        call: (warp.frames[frame_idx].func.0, g.pc),
    };
    // Argument values: each is a call-site `.param` variable holding a 64-bit value.
    let arg = |warp: &super::warp::Warp, i: usize, lane: usize| -> u64 {
        let bytes = super::devrt::call_arg(&mc.layout, warp, frame_idx, args, i, lane, 8);
        crate::mem::read_le(&bytes)
    };
    let mut results = [0u64; WARP];
    match callee.name.as_str() {
        "vprintf" => {
            for lane in lanes(active) {
                let fmt_addr = arg(warp, 0, lane);
                let args_addr = arg(warp, 1, lane);
                let local = &warp.local[lane];
                let global = &mc.global;
                let shared: &[u8] = shared;
                let read = |addr: u64, n: usize| -> Result<Vec<u8>, String> {
                    generic_read(global, shared, local, addr, n)
                };
                let text = format(&read, fmt_addr, args_addr)
                    .map_err(|e| fault(FaultKind::Memory, format!("printf: {e}")))?;
                mc.stdout.push(&text.0);
                results[lane] = text.1 as u64;
            }
        }
        "malloc" => {
            let sizes: Vec<(usize, u64)> = lanes(active).map(|l| (l, arg(warp, 0, l))).collect();
            for (lane, size) in sizes {
                results[lane] = super::devrt::device_malloc(mc, size);
            }
        }
        "free" => {
            let addrs: Vec<u64> = lanes(active).map(|l| arg(warp, 0, l)).collect();
            for addr in addrs {
                super::devrt::device_free(mc, addr);
            }
        }
        "__assertfail" => {
            let lane = lanes(active).next().unwrap_or(0);
            let (global, shared, local) = (&mc.global, &shared[..], &warp.local[lane]);
            let read = |addr: u64, n: usize| generic_read(global, shared, local, addr, n);
            let msg = read_cstr(&read, arg(warp, 0, lane)).unwrap_or_default();
            let file = read_cstr(&read, arg(warp, 1, lane)).unwrap_or_default();
            let line = arg(warp, 2, lane) as u32;
            return Err(fault(
                FaultKind::Trap,
                format!("device assertion `{msg}` failed ({file}:{line})"),
            ));
        }
        // The device runtime behind device-side launches (nvcc -rdc, `kernel<<<...>>>` in
        // device code): `cdp.rs`.
        name if super::devrt::answers(name) => {
            for lane in lanes(active) {
                results[lane] =
                    super::devrt::device_runtime(mc, name, warp, at, frame_idx, args, lane)?;
            }
        }
        other if is_device_launch(other) => {
            return Err(fault(
                FaultKind::Unsupported,
                format!("device runtime call `{other}` (CUDA dynamic parallelism): ptxrun runs device-side launches, streams, errors and their strings, cudaMalloc, cudaFree, cudaMemcpyAsync and cudaMemsetAsync, not this"),
            ));
        }
        other => {
            return Err(fault(
                FaultKind::Unsupported,
                format!("call to `{other}`, which is declared but not defined in this module"),
            ));
        }
    }
    // Return value into the caller's first `retval` variable.
    if let Some(range) = rets {
        if let Some(Operand::Sym(Symbol::Var(v), k)) = caller.sub_ops(range).first() {
            let size = mc.m.vars[v.0 as usize].size.min(8) as usize;
            let fr = &mut warp.frames[frame_idx];
            for lane in lanes(active) {
                let off =
                    lane * fr.param_size + mc.layout.var_addr[v.0 as usize] as usize + *k as usize;
                if let Some(d) = fr.params.get_mut(off..off + size) {
                    crate::mem::write_le(d, results[lane]);
                }
            }
        }
    }
    warp.groups[gi].pc += 1;
    Ok(())
}

/// Reads `n` bytes at a generic address, from the space it falls in.
fn generic_read(
    global: &crate::mem::Global,
    shared: &[u8],
    local: &crate::mem::local::Local,
    addr: u64,
    n: usize,
) -> Result<Vec<u8>, String> {
    if let crate::mem::Generic::Local(o) = crate::mem::classify(addr) {
        let mut out = vec![0; n];
        return local.read(o, &mut out).map(|()| out).map_err(|e| e.message);
    }
    use crate::mem::{classify, slice, Generic};
    let bytes = match classify(addr) {
        Generic::Global(a) => global.read(a, n),
        Generic::Shared(o) => slice(shared, "shared", o, n),
        Generic::Local(_) => unreachable!("read above"),
        Generic::Param(o) => Err(crate::mem::MemFault {
            message: format!("printf argument in parameter space (+{o:#x})"),
        }),
    };
    bytes.map(<[u8]>::to_vec).map_err(|e| e.message)
}

type Reader<'r> = dyn Fn(u64, usize) -> Result<Vec<u8>, String> + 'r;

/// Bytes a C string is read in at a time (then byte by byte where a chunk would cross the end
/// of its memory): a kernel printing in a loop reads its format string every call.
const CSTR_CHUNK: u64 = 64;

fn read_cstr(read: &Reader<'_>, addr: u64) -> Result<String, String> {
    const MAX: usize = 4096;
    let mut out = Vec::new();
    while out.len() < MAX {
        let at = addr.wrapping_add(out.len() as u64);
        let chunk = read(at, CSTR_CHUNK as usize).or_else(|_| read(at, 1))?;
        match chunk.iter().position(|&b| b == 0) {
            Some(end) if out.len() + end < MAX => {
                out.extend_from_slice(&chunk[..end]);
                return Ok(String::from_utf8_lossy(&out).into_owned());
            }
            Some(_) => break,
            None => out.extend_from_slice(&chunk),
        }
    }
    Err("string longer than 4096 bytes".into())
}

/// Formats like C `printf`; returns the text and the number of arguments consumed.
pub(crate) fn format(
    read: &Reader<'_>,
    fmt_addr: u64,
    args: u64,
) -> Result<(String, usize), String> {
    let fmt = read_cstr(read, fmt_addr)?;
    let mut out = String::new();
    let mut off = 0u64;
    let mut count = 0;
    let mut next = |size: u64| -> Result<u64, String> {
        off = off.next_multiple_of(size);
        let v = crate::mem::read_le(&read(args.wrapping_add(off), size as usize)?);
        off += size;
        Ok(v)
    };
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.get(i) {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        let num = |i: &mut usize| -> Option<usize> {
            let start = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            (start != *i).then(|| {
                chars[start..*i]
                    .iter()
                    .collect::<String>()
                    .parse()
                    .unwrap_or(0)
            })
        };
        spec.width = num(&mut i).unwrap_or(0);
        if chars.get(i) == Some(&'.') {
            i += 1;
            spec.prec = Some(num(&mut i).unwrap_or(0));
        }
        let mut long = 0;
        while let Some(&l) = chars.get(i) {
            match l {
                'l' | 'q' | 'j' | 'z' | 't' => long += 1,
                'h' => long -= 1,
                'L' => long = 2,
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = chars.get(i) else { break };
        i += 1;
        count += 1;
        let text = match conv {
            'd' | 'i' => {
                let v = if long > 0 {
                    next(8)? as i64
                } else {
                    next(4)? as u32 as i32 as i64
                };
                spec.int(v.unsigned_abs(), v < 0, 10, false)
            }
            'u' | 'x' | 'X' | 'o' => {
                let v = if long > 0 {
                    next(8)?
                } else {
                    next(4)? & 0xffff_ffff
                };
                let base = match conv {
                    'x' | 'X' => 16,
                    'o' => 8,
                    _ => 10,
                };
                spec.int(v, false, base, conv == 'X')
            }
            'c' => spec.pad((next(4)? as u8 as char).to_string(), false),
            'p' => spec.pad(format!("0x{:x}", next(8)?), false),
            's' => {
                let s = read_cstr(read, next(8)?)?;
                let s = match spec.prec {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                };
                spec.pad(s, false)
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
                let v = f64::from_bits(next(8)?);
                spec.float(v, conv)
            }
            other => format!("%{other}"),
        };
        out.push_str(&text);
    }
    Ok((out, count))
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

impl Spec {
    fn pad(&self, body: String, numeric: bool) -> String {
        let len = body.chars().count();
        if len >= self.width {
            return body;
        }
        let fill = self.width - len;
        if self.left {
            format!("{body}{}", " ".repeat(fill))
        } else if self.zero && numeric {
            // Zeros go after the sign or 0x prefix.
            let mut split = usize::from(body.starts_with(['+', '-', ' ']));
            if body[split..].starts_with("0x") || body[split..].starts_with("0X") {
                split += 2;
            }
            let (sign, digits) = body.split_at(split);
            format!("{sign}{}{digits}", "0".repeat(fill))
        } else {
            format!("{}{body}", " ".repeat(fill))
        }
    }

    fn sign(&self, neg: bool) -> &'static str {
        if neg {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }

    fn int(&self, v: u64, neg: bool, base: u32, upper: bool) -> String {
        let mut digits = match base {
            16 if upper => format!("{v:X}"),
            16 => format!("{v:x}"),
            8 => format!("{v:o}"),
            _ => v.to_string(),
        };
        if let Some(p) = self.prec {
            if p == 0 && v == 0 {
                digits.clear();
            }
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        let prefix = match (self.alt, base) {
            (true, 16) if v != 0 => {
                if upper {
                    "0X"
                } else {
                    "0x"
                }
            }
            (true, 8) if !digits.starts_with('0') => "0",
            _ => "",
        };
        let signed = base == 10;
        let s = format!(
            "{}{prefix}{digits}",
            if signed { self.sign(neg) } else { "" }
        );
        Spec {
            zero: self.zero && self.prec.is_none(),
            ..*self
        }
        .pad(s, true)
    }

    fn float(&self, v: f64, conv: char) -> String {
        let upper = conv.is_ascii_uppercase();
        let neg = v.is_sign_negative();
        let a = v.abs();
        let body = if v.is_nan() {
            "nan".to_string()
        } else if v.is_infinite() {
            "inf".to_string()
        } else {
            let p = self.prec.unwrap_or(6);
            match conv.to_ascii_lowercase() {
                'f' => format!("{a:.p$}"),
                'e' => exp_form(a, p),
                'a' => format!("{a:e}"),
                _ => {
                    // %g: the shorter of %e and %f with P significant digits, trailing zeros cut.
                    let p = if p == 0 { 1 } else { p };
                    let x = if a == 0.0 { 0 } else { exp_of(a, p) };
                    let s = if x < -4 || x >= p as i32 {
                        exp_form(a, p - 1)
                    } else {
                        format!("{a:.*}", (p as i32 - 1 - x).max(0) as usize)
                    };
                    if self.alt {
                        s
                    } else {
                        strip_zeros(&s)
                    }
                }
            }
        };
        let body = if upper { body.to_uppercase() } else { body };
        let finite = v.is_finite();
        let s = format!("{}{body}", self.sign(neg && !(v.is_nan())));
        Spec {
            zero: self.zero && finite,
            ..*self
        }
        .pad(s, true)
    }
}

/// The decimal exponent of `a` once rounded to `p` significant digits.
fn exp_of(a: f64, p: usize) -> i32 {
    let s = format!("{a:.*e}", p.saturating_sub(1));
    s.split('e')
        .nth(1)
        .and_then(|e| e.parse().ok())
        .unwrap_or(0)
}

/// `1.234560e+05` (C style: at least two exponent digits, explicit sign).
fn exp_form(a: f64, p: usize) -> String {
    let s = format!("{a:.p$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

fn strip_zeros(s: &str) -> String {
    let (mant, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.')
    } else {
        mant
    };
    format!("{mant}{exp}")
}

/// The device runtime's functions (CUDA 12+ `__cudaCDP2*`, and the documented
/// `cudaGetParameterBuffer` / `cudaLaunchDevice` of older PTX): those `cdp.rs` does not answer
/// stop the run as unsupported.
fn is_device_launch(name: &str) -> bool {
    name.starts_with("__cudaCDP")
        || name.starts_with("cudaGetParameterBuffer")
        || name.starts_with("cudaLaunchDevice")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(f: &str, args: &[u8]) -> String {
        let mut g = crate::mem::Global::new();
        let mut s = f.as_bytes().to_vec();
        s.push(0);
        let fa = g.alloc("fmt", s, true);
        let aa = g.alloc("args", args.to_vec(), true);
        let read = |a: u64, n: usize| g.read(a, n).map(<[u8]>::to_vec).map_err(|e| e.message);
        format(&read, fa, aa).unwrap().0
    }

    #[test]
    fn c_style_formatting() {
        assert_eq!(
            fmt(
                "x=%5d|%-4d|%08.3f|%ld\n",
                &[
                    &42i32.to_le_bytes()[..],
                    &7i32.to_le_bytes(),
                    &1.5f64.to_le_bytes(),
                    &(-7i64).to_le_bytes()
                ]
                .concat()
            ),
            "x=   42|7   |0001.500|-7\n"
        );
        assert_eq!(
            fmt(
                "%x %X %#x %o",
                &[
                    &255u32.to_le_bytes()[..],
                    &255u32.to_le_bytes(),
                    &255u32.to_le_bytes(),
                    &8u32.to_le_bytes()
                ]
                .concat()
            ),
            "ff FF 0xff 10"
        );
        assert_eq!(
            fmt(
                "%e|%g|%g|%g",
                &[
                    &123456.0f64.to_le_bytes()[..],
                    &0.0001f64.to_le_bytes(),
                    &123456789.0f64.to_le_bytes(),
                    &100.0f64.to_le_bytes()
                ]
                .concat()
            ),
            "1.234560e+05|0.0001|1.23457e+08|100"
        );
        assert_eq!(
            fmt(
                "%%|%c|%+d",
                &[&65i32.to_le_bytes()[..], &3i32.to_le_bytes()].concat()
            ),
            "%|A|+3"
        );
    }
}
