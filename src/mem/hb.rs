//! Happens-before bookkeeping (PTX ISA 9.0 chapter 8 "Memory Consistency Model", in the style of
//! FastTrack and Miri's data-race detector): vector clocks over *agents*, and the epochs that
//! stamp accesses.
//!
//! Agents: every warp is one agent towards other warps, and its lanes are threads of their own
//! within it ([`LaneClock`]: since sm_70 independent thread scheduling, only synchronisation
//! orders two lanes' accesses, not executing one instruction together). Asynchronous operations are agents too, observed
//! through their completion mechanism, which gives each a completion epoch on a mechanism clock:
//! a warp's non-bulk async-groups complete in commit order, so "the first n `cp.async` of warp W
//! completed" is the epoch (W's cp agent, n); likewise its bulk groups (one clock for completion,
//! one for `.read`); and an operation that completes on an mbarrier has the epoch (the mbarrier's
//! agent, phase + 1) of the phase its complete-tx counted towards. A wait that observes a
//! completion joins that epoch into the waiter's clock; barriers, mbarrier arrivals and waits,
//! the cluster barrier, atomics and fences join clocks as their release/acquire semantics say.

/// An agent id; 0 is "nobody".
pub type Agent = u32;

/// A point in an agent's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Epoch {
    pub agent: Agent,
    pub clock: u32,
}

/// A vector clock: sorted (agent, clock) pairs, absent = 0. Small in practice: warps and
/// mechanism clocks of one cluster, plus what atomics carried in from other CTAs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vc(Vec<(Agent, u32)>);

impl Vc {
    pub fn new() -> Self {
        Vc(Vec::new())
    }

    pub fn get(&self, a: Agent) -> u32 {
        match self.0.binary_search_by_key(&a, |e| e.0) {
            Ok(i) => self.0[i].1,
            Err(_) => 0,
        }
    }

    /// Raises the entry of `a` to at least `c`.
    pub fn raise(&mut self, a: Agent, c: u32) {
        match self.0.binary_search_by_key(&a, |e| e.0) {
            Ok(i) => self.0[i].1 = self.0[i].1.max(c),
            Err(i) => self.0.insert(i, (a, c)),
        }
    }

    /// Whether the event `e` happens before (or is) a point with this clock.
    pub fn covers(&self, e: Epoch) -> bool {
        e.agent == 0 || self.get(e.agent) >= e.clock
    }

    /// Pointwise maximum.
    pub fn join(&mut self, o: &Vc) {
        if o.0.is_empty() {
            return;
        }
        if self.0.is_empty() {
            self.0.clone_from(&o.0);
            return;
        }
        // Most joins bring no agent this clock lacks (a warp acquiring from warps it already
        // knows): raise the entries in place, without a new vector.
        let mut i = 0;
        let in_place = o.0.iter().all(|&(agent, clock)| {
            while i < self.0.len() && self.0[i].0 < agent {
                i += 1;
            }
            match self.0.get_mut(i) {
                Some(e) if e.0 == agent => {
                    e.1 = e.1.max(clock);
                    true
                }
                _ => false,
            }
        });
        if in_place {
            return;
        }
        let mut out = Vec::with_capacity(self.0.len() + o.0.len());
        let (mut i, mut j) = (0, 0);
        while i < self.0.len() && j < o.0.len() {
            let (a, b) = (self.0[i], o.0[j]);
            match a.0.cmp(&b.0) {
                std::cmp::Ordering::Less => {
                    out.push(a);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push((a.0, a.1.max(b.1)));
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&self.0[i..]);
        out.extend_from_slice(&o.0[j..]);
        self.0 = out;
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The scope of a strong access (PTX ISA 9.0 8.5), narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Scope {
    Cta,
    Cluster,
    /// `.gpu` and `.sys`: one device runs the whole grid.
    #[default]
    Gpu,
}

impl Scope {
    pub(crate) fn bits(self) -> u8 {
        match self {
            Scope::Cta => 1,
            Scope::Cluster => 2,
            Scope::Gpu => 3,
        }
    }

    pub(crate) fn from_bits(b: u8) -> Scope {
        match b {
            1 => Scope::Cta,
            2 => Scope::Cluster,
            _ => Scope::Gpu,
        }
    }

    /// Narrowest first, from 0.
    pub fn index(self) -> usize {
        self.bits() as usize - 1
    }

    /// Every scope, narrowest first.
    pub const ALL: [Scope; 3] = [Scope::Cta, Scope::Cluster, Scope::Gpu];

    /// As PTX spells it.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Cta => ".cta",
            Scope::Cluster => ".cluster",
            Scope::Gpu => ".gpu",
        }
    }
}

/// What [`WarpClock::last_acquire`] remembers.
pub type AcquireMemo = ((u32, u64), u64, Scope, u32, (u32, u32));

/// The happens-before state of one warp (one agent) and its mechanism clocks.
#[derive(Debug, Clone)]
pub struct WarpClock {
    /// The warp's own agent, and the agents counting its completed non-bulk operations, its
    /// completed bulk-group operations, and its bulk-group operations that finished reading.
    pub me: Agent,
    pub cp: Agent,
    pub bulk: Agent,
    pub bulk_read: Agent,
    /// The agent counting its completed `wgmma.mma_async` operations.
    pub wg: Agent,
    pub vc: Vc,
    /// `vc`'s entry of `me`, the clock of the warp's next access (read at every access; only
    /// `tick` raises it: no one else's clock holds more of the warp than the warp itself).
    own: u32,
    /// Per scope (`.cta`, `.cluster`, `.gpu`), its clock at its last release fence of at
    /// least that scope: what a relaxed write or arrival of that scope publishes (a later
    /// `.cta` fence does not take back what an earlier `.gpu` fence released to the GPU).
    fence_release: [Vc; 3],
    /// What atomic reads of the warp could not acquire because a scope did not include both
    /// threads, and the last such read (function, instruction, its scope): a race this would
    /// have ordered names the scope.
    pub narrow: Vc,
    pub narrow_at: Option<(u32, u32, Scope)>,
    /// Operations issued so far on the non-bulk and bulk-group sequences.
    pub cp_issued: u32,
    pub bulk_issued: u32,
    pub wg_issued: u32,
    /// What each lane knows of the others' accesses.
    pub lanes: LaneClock,
    /// The warp's last acquire through an atomic location: (location, its version, scope,
    /// lanes, instruction). Acquiring the same again changes nothing, so a spinning read
    /// skips it.
    pub last_acquire: Option<AcquireMemo>,
}

impl WarpClock {
    /// A fresh warp whose four agents start at `first`.
    pub fn new(first: Agent) -> Self {
        let mut vc = Vc::new();
        vc.raise(first, 1);
        WarpClock {
            me: first,
            cp: first + 1,
            bulk: first + 2,
            bulk_read: first + 3,
            wg: first + 4,
            vc,
            own: 1,
            fence_release: Default::default(),
            narrow: Vc::new(),
            narrow_at: None,
            cp_issued: 0,
            bulk_issued: 0,
            wg_issued: 0,
            lanes: LaneClock::default(),
            last_acquire: None,
        }
    }

    /// Agents a warp uses.
    pub const AGENTS: u32 = 5;

    /// The epoch of the warp's next access.
    pub fn now(&self) -> Epoch {
        debug_assert_eq!(self.own, self.vc.get(self.me));
        Epoch {
            agent: self.me,
            clock: self.own,
        }
    }

    /// After a release: later accesses are not covered by what was released.
    pub fn tick(&mut self) {
        self.own = self.vc.get(self.me) + 1;
        self.vc.raise(self.me, self.own);
    }

    /// Lanes `mask` acquire the clock `c` (a barrier, a wait, an atomic read): the warp joins
    /// it, and what it holds of the warp's own history, released by some lane of it, becomes
    /// known to those lanes (of every lane: a release does not say which lane made it, so this
    /// can only hide a race between lanes, never invent one).
    pub fn acquire(&mut self, c: &Vc, mask: u32) {
        self.vc.join(c);
        self.own = self.vc.get(self.me);
        self.lanes.learn(mask, c.get(self.me));
    }

    /// Lanes `mask` synchronise with each other (`bar.warp.sync`, `shfl.sync`, `vote.sync`,
    /// `match.sync`, `redux.sync`): each is ordered after what any of them did or knew.
    pub fn converge(&mut self, mask: u32) {
        let now = self.vc.get(self.me);
        self.lanes.converge(mask, now);
        self.tick();
    }

    /// Whether every lane is ordered after every other alike (no per-lane table): judgements of
    /// this warp's accesses then depend on lanes only through their equality.
    pub fn lanes_alike(&self) -> bool {
        self.lanes.alike()
    }

    /// Whether lane `reader`'s next access is ordered after lane `writer`'s access at `clock`
    /// (both of this warp).
    pub fn lane_knows(&self, reader: u32, writer: u32, clock: u32) -> bool {
        reader == writer || self.lanes.knows(reader, writer, clock)
    }

    /// A fence (`fence.sc`, `fence.acq_rel`, `membar`): becomes the clock relaxed writes and
    /// arrivals publish.
    pub fn fence(&mut self, scope: Scope) {
        for s in &mut self.fence_release[..=scope.index()] {
            s.clone_from(&self.vc);
        }
        self.tick();
    }

    /// What a relaxed write or arrival of scope `scope` publishes: the clock at the warp's last
    /// release fence of at least that scope.
    pub fn fenced(&self, scope: Scope) -> &Vc {
        &self.fence_release[scope.index()]
    }
}

/// The happens-before order between the lanes of one warp, on the warp's epochs: every lane is
/// ordered after every lane's accesses up to `all`; lane `l` after every lane's up to
/// `floor[l]` (what an acquire by some lanes taught them); and after lane `m`'s up to
/// `known[l][m]` (syncs of some lanes). The per-lane parts are dropped once `all` passes them,
/// so a warp that meets at `bar.sync` or a whole-warp `__syncwarp` between its partial syncs
/// costs one number, and judges its lanes alike.
#[derive(Debug, Clone, Default)]
pub struct LaneClock {
    all: u32,
    floor: [u32; 32],
    floor_max: u32,
    known: Option<Box<[[u32; 32]; 32]>>,
    known_max: u32,
}

impl LaneClock {
    fn knows(&self, reader: u32, writer: u32, clock: u32) -> bool {
        let (r, w) = (reader as usize & 31, writer as usize & 31);
        clock <= self.all
            || clock <= self.floor[r]
            || self.known.as_ref().is_some_and(|k| k[r][w] >= clock)
    }

    /// Whether every lane is ordered after every other alike.
    fn alike(&self) -> bool {
        self.known.is_none() && self.floor_max <= self.all
    }

    /// Drops the per-lane parts that `all` has passed.
    fn tidy(&mut self) {
        if self.floor_max <= self.all {
            self.floor = [0; 32];
            self.floor_max = 0;
        }
        if self.known_max <= self.all {
            self.known = None;
            self.known_max = 0;
        }
    }

    /// Lanes `mask` learn every lane's accesses up to `upto`.
    fn learn(&mut self, mask: u32, upto: u32) {
        if upto <= self.all || mask == 0 {
            return;
        }
        if mask == u32::MAX {
            self.all = upto;
            self.tidy();
            return;
        }
        for l in (0..32).filter(|l| mask >> l & 1 != 0) {
            self.floor[l] = self.floor[l].max(upto);
        }
        self.floor_max = self.floor_max.max(upto);
    }

    /// Lanes `mask` meet at epoch `now`: each learns what any of them knew and their accesses
    /// up to `now`.
    fn converge(&mut self, mask: u32, now: u32) {
        if mask == u32::MAX {
            self.all = self.all.max(now);
            self.tidy();
            return;
        }
        let floor = self.floor;
        let t = self.known.get_or_insert_with(|| Box::new([[0; 32]; 32]));
        let mut row = [0u32; 32];
        for l in (0..32).filter(|l| mask >> l & 1 != 0) {
            for (r, k) in row.iter_mut().zip(t[l]) {
                *r = (*r).max(k).max(floor[l]);
            }
            row[l] = row[l].max(now);
        }
        for l in (0..32).filter(|l| mask >> l & 1 != 0) {
            t[l] = row;
        }
        self.known_max = row.iter().fold(self.known_max, |m, &k| m.max(k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vc(p: &[(u32, u32)]) -> Vc {
        let mut v = Vc::new();
        for &(a, c) in p {
            v.raise(a, c);
        }
        v
    }

    #[test]
    fn join_is_pointwise_max() {
        let mut a = vc(&[(1, 3), (4, 1), (9, 2)]);
        a.join(&vc(&[(2, 5), (4, 7), (9, 1), (12, 1)]));
        assert_eq!(a, vc(&[(1, 3), (2, 5), (4, 7), (9, 2), (12, 1)]));
        assert_eq!(a.get(3), 0);
        assert!(a.covers(Epoch { agent: 4, clock: 7 }));
        assert!(!a.covers(Epoch { agent: 4, clock: 8 }));
        assert!(a.covers(Epoch::default()));
    }

    #[test]
    fn ticks_separate_accesses_from_releases() {
        let mut w = WarpClock::new(10);
        let before = w.now();
        let released = w.vc.clone();
        w.tick();
        let after = w.now();
        assert!(released.covers(before) && !released.covers(after));
        assert_eq!((w.cp, w.bulk, w.bulk_read), (11, 12, 13));
    }

    #[test]
    fn lanes_are_ordered_only_by_synchronisation() {
        let mut w = WarpClock::new(1);
        let write = w.now();
        // Another lane of the converged warp, with nothing between: unordered.
        assert!(!w.lane_knows(5, 0, write.clock));
        assert!(w.lane_knows(0, 0, write.clock), "program order");
        // __syncwarp of lanes 0 and 5 orders them, and nobody else.
        w.converge(0b10_0001);
        assert!(w.lane_knows(5, 0, write.clock));
        assert!(!w.lane_knows(6, 0, write.clock));
        // Their next accesses are after the sync: unordered again.
        assert!(!w.lane_knows(5, 0, w.now().clock));
        // A whole-warp sync orders every lane, and the lanes are alike again.
        assert!(!w.lanes_alike());
        w.converge(u32::MAX);
        assert!(w.lane_knows(6, 0, write.clock));
        assert!(w.lanes_alike());
    }

    #[test]
    fn an_acquire_teaches_the_acquiring_lanes_what_the_warp_released() {
        let mut w = WarpClock::new(1);
        let write = w.now();
        let released = w.vc.clone();
        w.tick();
        w.acquire(&released, 1 << 3);
        assert!(w.lane_knows(3, 0, write.clock));
        assert!(!w.lane_knows(4, 0, write.clock));
        assert!(!w.lane_knows(3, 0, w.now().clock));
        // A partial sync afterwards passes lane 3's knowledge on to lane 4.
        w.converge(1 << 3 | 1 << 4);
        assert!(w.lane_knows(4, 0, write.clock));
        assert!(!w.lanes_alike());
        let all = w.vc.clone();
        w.tick();
        w.acquire(&all, u32::MAX);
        assert!(w.lanes_alike());
    }

    #[test]
    fn fences_publish_the_clock_before_them() {
        let mut w = WarpClock::new(1);
        let before = w.now();
        w.fence(Scope::Gpu);
        assert!(w.fenced(Scope::Gpu).covers(before));
        assert!(!w.fenced(Scope::Gpu).covers(w.now()));
        // A later, narrower fence publishes more to its scope and takes nothing back.
        let between = w.now();
        w.fence(Scope::Cta);
        assert!(w.fenced(Scope::Cta).covers(between));
        assert!(!w.fenced(Scope::Gpu).covers(between) && w.fenced(Scope::Gpu).covers(before));
    }
}
