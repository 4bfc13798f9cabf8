//! Proxy fences (PTX ISA 9.0 8.6 "Proxies", 9.7.12.4 `fence.proxy`): ordinary stores are
//! generic-proxy writes; a bulk or tensor copy (async proxy) may read or overwrite them only
//! after a `fence.proxy.async` of their state space by the writer, ordered before the issue,
//! or by the issuer once the write was visible to it (else `missing-proxy-fence`, found at
//! issue by `copies.rs`). A tensor map written by ordinary stores is read by the tensor-map
//! proxy only after the writer's `fence.proxy.tensormap::generic.release` and the user's
//! `.acquire` of its 128 bytes: else `missing-tensormap-proxy-fence`.

use super::kind::HazardKind;
use super::report::Msg;
use super::site::{describe, Region, Site};
use super::state::op_name;
use super::state::{Checker, TensormapAcquire};
use crate::mem::copy::{Engine, OpId};
use crate::mem::hb::{Agent, Epoch, Scope, Vc};
use crate::mem::shadow::{Stamp, Who};
use crate::mem::Global;

/// State spaces a proxy fence orders.
pub(crate) const FENCE_SHARED: u8 = 1;

pub(crate) const FENCE_GLOBAL: u8 = 2;

/// Tensor-map fences remembered per agent (the last ones: memory stays bounded in loops).
pub(super) const TENSORMAP_FENCES: usize = 16;

/// One side of an asynchronous operation's segment: the `len` bytes of `region` it writes (its
/// destination) or reads (its source).
#[derive(Debug, Clone, Copy)]
pub(super) struct Side {
    pub region: Region,
    pub len: usize,
    pub write: bool,
}

impl Checker {
    /// The ordinary stores `stores`, ordered before the issue of the async-proxy operation `op`
    /// at `site` (clock `issue_vc`), whose bytes it reads or overwrites on `side`: each needs a
    /// `fence.proxy.async` of that state space between it and the issue ([`Self::fenced`]),
    /// else `missing-proxy-fence`.
    pub(super) fn check_proxy_fences(
        &mut self,
        engine: &Engine,
        global: &Global,
        (op, site): (OpId, Site),
        side: Side,
        issue_vc: &Vc,
        stores: Vec<Stamp>,
    ) {
        let Side { region, len, write } = side;
        let space = match region {
            Region::Shared(..) => FENCE_SHARED,
            Region::Global(_) => FENCE_GLOBAL,
        };
        let issuer = self.warps[site.rank as usize][site.warp as usize].me;
        for prev in stores {
            let Who::Warp { at, .. } = prev.who() else {
                continue;
            };
            // A grid's launch (and a finished grid) orders its stores before the later grid's
            // operations of every proxy, as a launch from the host does.
            if at.agent < self.grid_first || self.fenced(at, space, issue_vc, issuer) {
                continue;
            }
            let (f, pc) = prev.site();
            let address = describe(global, region, len, site.rank);
            let name = op_name(engine, op);
            let what = if write { "overwrites" } else { "reads" };
            self.report(
                HazardKind::MissingProxyFence,
                site,
                Msg::text(format!("the {name} (async proxy) {what} {address}, last written by an ordinary store at line ")).related_line().then(" that no fence.proxy.async orders before it"),
                "after the ordinary stores, execute fence.proxy.async (cuda::ptx::fence_proxy_async) in the writing threads, before the barrier that orders them before the bulk copy",
                address,
                Some((f, pc, "the ordinary store (generic proxy)".into())),
            );
        }
    }

    /// Whether a `fence.proxy.async` of state space `space` lies between the write `at` and an
    /// issue by `issuer` with clock `vc`: one the writer executed after the write that is
    /// ordered before the issue, or one the issuer executed once the write was visible to it.
    pub(super) fn fenced(&self, at: Epoch, space: u8, vc: &Vc, issuer: Agent) -> bool {
        let by_writer = self.proxy_fences.get(&at.agent).is_some_and(|fs| {
            fs.iter()
                .find(|&&(f, sp)| f >= at.clock && sp & space != 0)
                .is_some_and(|&(f, _)| vc.get(at.agent) >= f)
        });
        let by_issuer = self
            .last_proxy_fence
            .get(&issuer)
            .is_some_and(|(fvc, sp)| sp & space != 0 && fvc.covers(at));
        by_writer || by_issuer
    }

    /// `fence.proxy.tensormap::generic.release` by a warp: its earlier writes of tensor maps
    /// may be used by the tensor-map proxy of a thread that acquires them.
    pub fn tensormap_release(&mut self, rank: u32, warp: u32) {
        let w = &mut self.warps[rank as usize][warp as usize];
        w.fence(Scope::Gpu);
        let now = w.now();
        w.tick();
        let fs = self.tensormap_releases.entry(now.agent).or_default();
        fs.push(now.clock);
        if fs.len() > TENSORMAP_FENCES {
            fs.remove(0);
        }
    }

    /// `fence.proxy.tensormap::generic.acquire [addr], size` by a warp (global `addr`).
    pub fn tensormap_acquire(&mut self, rank: u32, warp: u32, addr: u64, size: u64) {
        let w = &mut self.warps[rank as usize][warp as usize];
        let (me, vc, at) = (w.me, w.vc.clone(), w.now());
        w.tick();
        let fs = self.tensormap_acquires.entry(me).or_default();
        fs.push(TensormapAcquire { addr, size, vc, at });
        if fs.len() > TENSORMAP_FENCES {
            fs.remove(0);
        }
    }

    /// A tensor copy issued at `site` uses the tensor map at global address `map` (PTX ISA 9.0
    /// 8.6 "Proxies", 9.7.12.4 `fence.proxy.tensormap`): a map last written by ordinary stores
    /// is read through the tensor-map proxy only after the writer's
    /// `fence.proxy.tensormap::generic.release` and an `.acquire` of those 128 bytes, in that
    /// order, by a thread of the user's CTA ordered before the use (proxy-preserved base
    /// causality order carries an operation of one proxy to another of the same proxy and
    /// address in the same thread block, 8.9.x; Triton's tensor descriptors: warp 0 acquires,
    /// `bar.sync`, another warp copies); otherwise the copy may use a stale map:
    /// `missing-tensormap-proxy-fence`.
    pub fn tensormap_use(&mut self, global: &Global, site: Site, map: u64) {
        let len = crate::mem::tensormap::SIZE;
        let Ok((i, off)) = global.locate(map, len as u64) else {
            return;
        };
        let Some(Some(shadow)) = self.global.get(i) else {
            return;
        };
        let user = &self.warps[site.rank as usize][site.warp as usize];
        let acquires: Vec<&TensormapAcquire> = self.warps[site.rank as usize]
            .iter()
            .filter_map(|w| self.tensormap_acquires.get(&w.me))
            .flatten()
            .filter(|a| user.vc.covers(a.at))
            .collect();
        let mut unfenced = Vec::new();
        for st in shadow.writes(&self.events, off, len) {
            let Who::Warp { at, .. } = st.who() else {
                continue;
            };
            if at.agent < self.grid_first {
                continue;
            }
            let fenced = self
                .tensormap_releases
                .get(&at.agent)
                .into_iter()
                .flatten()
                .filter(|&&f| f >= at.clock)
                .any(|&f| {
                    acquires.iter().any(|a| {
                        a.addr <= map
                            && map + len as u64 <= a.addr + a.size
                            && a.vc.get(at.agent) >= f
                    })
                });
            if !fenced {
                unfenced.push(st);
            }
        }
        // One finding per tensor copy: the store of the map's first unpublished word.
        if let Some(st) = unfenced.first() {
            let more = match unfenced.len() - 1 {
                0 => String::new(),
                n => format!(" (and {n} more stores of the map)"),
            };
            let (f, pc) = st.site();
            self.report(
                HazardKind::MissingTensormapProxyFence,
                site,
                Msg::text(format!("the tensor copy uses the tensor map at {}, last written by an ordinary store at line ", global.describe(map))).related_line().then(format!("{more} with no fence.proxy.tensormap::generic release (by the writer) and acquire (by a thread of this CTA, ordered before the copy) between them: it may use a stale map")),
                "after writing the map: fence.proxy.tensormap::generic.release.gpu in the writing thread; after that release and before the tensor copy: fence.proxy.tensormap::generic.acquire.gpu [map], 128 in the thread that issues the copy, or in a thread of its CTA ordered before it (CUDA: cuda::ptx::fence_proxy_tensormap_generic)",
                format!("{} (128 bytes)", global.describe(map)),
                Some((f, pc, "the ordinary store of the tensor map (generic proxy)".into())),
            );
        }
    }

    /// `fence.proxy.async` (of the state spaces `spaces`) by a warp.
    pub fn proxy_fence(&mut self, rank: u32, warp: u32, spaces: u8) {
        let w = &mut self.warps[rank as usize][warp as usize];
        let now = w.now();
        self.last_proxy_fence
            .insert(now.agent, (w.vc.clone(), spaces));
        w.tick();
        self.proxy_fences
            .entry(now.agent)
            .or_default()
            .push((now.clock, spaces));
    }
}
