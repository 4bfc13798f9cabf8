//! The checker's one report place, in the manner of Miri's `report_result`: a rule hands over
//! what it found ([`Finding`]: kind, site, message, help, address, related instruction), and
//! [`Reports::record`] decides whether it is new (one dedupe key, [`Hazard::key`], shared with
//! the grid's merge of clusters and the explorer's merge of schedules) and [`render`]s it into
//! the [`Hazard`] a report prints: the message with the related instruction's PTX line, the
//! help text and the severity. Repeats are counted, never rendered again. A rule writes its
//! message as a [`Msg`], text with typed places for PTX lines, which only [`render`] turns into
//! a string (from the checker's line table): no text a message quotes (a buffer's name, a
//! register) is ever read back as a placeholder.

use super::kind::HazardKind;
use super::site::Site;
use crate::diag::Severity;
use crate::ir::FuncId;
use std::collections::BTreeMap;

/// A hazard the happens-before checker found: undefined behaviour at an instruction, related
/// to another (the conflicting access or the asynchronous operation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// The contract's hazard kind (`read-before-complete`, ...).
    pub kind: HazardKind,
    pub message: String,
    /// The usual fix.
    pub help: String,
    /// The offending access: function and instruction index.
    pub at: (FuncId, u32),
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    /// The thread's index within its CTA, before it becomes `thread`.
    pub linear_thread: u32,
    /// `buffer+offset (n bytes)` or `shared+offset (n bytes)`.
    pub address: String,
    pub related: Vec<Related>,
    /// How many times this (kind, instruction, related instruction) occurred.
    pub count: u64,
    /// `Error` for undefined behaviour; `Warning` for what the memory model defines but is
    /// usually unintended (a plain read that races only with atomic writes).
    pub severity: Severity,
}

/// The other side of a hazard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub at: (FuncId, u32),
    pub label: String,
}

/// What makes a hazard distinct: its kind, instruction and related instruction.
pub(crate) type HazardKey = (HazardKind, (u32, u32), Option<(u32, u32)>);

/// The one definition of a hazard's dedupe key: repeats of a (kind, instruction, first related
/// instruction) are counted, not reported again, by the checker, by the grid that merges the
/// clusters' reports and by the explorer that merges schedules'.
fn hazard_key(kind: HazardKind, at: (u32, u32), related: Option<(u32, u32)>) -> HazardKey {
    (kind, at, related)
}

impl Hazard {
    /// Its dedupe key ([`hazard_key`]).
    pub(crate) fn key(&self) -> HazardKey {
        let related = self.related.first().map(|r| (r.at.0 .0, r.at.1));
        hazard_key(self.kind, (self.at.0 .0, self.at.1), related)
    }

    /// Counts `h`, a repeat of this hazard (the same key) found elsewhere (another cluster,
    /// grid or schedule); a graver repeat (an error where this is a warning) takes its place.
    /// Returns whether it did.
    pub(crate) fn absorb(&mut self, h: Hazard) -> bool {
        let count = self.count + h.count;
        let graver = h.severity.graver_than(self.severity);
        if graver {
            *self = h;
        }
        self.count = count;
        graver
    }
}

/// A hazard's message as a rule writes it: text and the places where PTX lines go, which only
/// [`render`] knows. Built in order: `Msg::text("... at line ").related_line().then(": ...")`;
/// a plain `String` is a message without lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Msg(Vec<Part>);

/// A piece of a [`Msg`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// Text, printed as it is.
    Text(String),
    /// The PTX line of the finding's related instruction (0 if it names none).
    RelatedLine,
    /// The PTX line of instruction (function, pc).
    LineOf(u32, u32),
}

impl Msg {
    /// A message that starts with `text`.
    pub(crate) fn text(text: impl Into<String>) -> Msg {
        Msg(vec![Part::Text(text.into())])
    }

    /// The message followed by `text`.
    pub(crate) fn then(mut self, text: impl Into<String>) -> Msg {
        self.0.push(Part::Text(text.into()));
        self
    }

    /// The message followed by the related instruction's PTX line.
    pub(crate) fn related_line(mut self) -> Msg {
        self.0.push(Part::RelatedLine);
        self
    }

    /// The message followed by the PTX line of instruction `pc` of function `func`.
    pub(crate) fn line_of(mut self, func: u32, pc: u32) -> Msg {
        self.0.push(Part::LineOf(func, pc));
        self
    }

    /// The message followed by another.
    pub(crate) fn then_msg(mut self, more: Msg) -> Msg {
        self.0.extend(more.0);
        self
    }

    /// The text, with `line` giving the PTX line of an instruction (function, pc) and `related`
    /// the related instruction.
    fn render(&self, related: Option<(u32, u32)>, line: impl Fn(u32, u32) -> u32) -> String {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::RelatedLine => {
                    let n = related.map_or(0, |(f, pc)| line(f, pc));
                    out.push_str(&n.to_string());
                }
                Part::LineOf(f, pc) => out.push_str(&line(*f, *pc).to_string()),
            }
        }
        out
    }
}

impl From<String> for Msg {
    fn from(text: String) -> Msg {
        Msg::text(text)
    }
}

/// What a rule found, before it becomes a [`Hazard`].
pub(crate) struct Finding<'h> {
    pub severity: Severity,
    pub kind: HazardKind,
    pub site: Site,
    pub message: Msg,
    pub help: &'h str,
    pub address: String,
    /// The related instruction (function, pc) and how the report labels it.
    pub related: Option<(u32, u32, String)>,
}

impl Finding<'_> {
    /// Its dedupe key ([`hazard_key`]).
    fn key(&self) -> HazardKey {
        let related = self.related.as_ref().map(|r| (r.0, r.1));
        hazard_key(self.kind, (self.site.func, self.site.pc), related)
    }
}

/// The hazards found so far, each distinct one once, with its count.
#[derive(Default)]
pub(crate) struct Reports {
    hazards: Vec<Hazard>,
    seen: BTreeMap<HazardKey, usize>,
}

impl Reports {
    /// Records a finding as a hazard, or counts a repeat of one already recorded. `line` gives
    /// the PTX line of instruction (function, pc).
    pub(crate) fn record(&mut self, f: Finding<'_>, line: impl Fn(u32, u32) -> u32) {
        let key = f.key();
        if let Some(&i) = self.seen.get(&key) {
            let h = &mut self.hazards[i];
            // One key, two severities (a store kept in one word, not in the next): the error
            // is what the report must show. A repeat is rendered only then.
            if f.severity.graver_than(h.severity) {
                h.absorb(render(f, line));
            } else {
                h.count += 1;
            }
            return;
        }
        self.seen.insert(key, self.hazards.len());
        self.hazards.push(render(f, line));
    }

    /// Records `f`, graver than the finding of the same key recorded before, in that one's
    /// place: the same occurrence judged again, not counted again.
    pub(crate) fn upgrade(&mut self, f: Finding<'_>, line: impl Fn(u32, u32) -> u32) {
        match self.seen.get(&f.key()) {
            Some(&i) => {
                let mut h = render(f, line);
                h.count = 0;
                self.hazards[i].absorb(h);
            }
            None => self.record(f, line),
        }
    }

    /// The hazards recorded, leaving none.
    pub(crate) fn take(&mut self) -> Vec<Hazard> {
        self.seen.clear();
        std::mem::take(&mut self.hazards)
    }
}

/// The one place a finding becomes the hazard reports print: its message with the PTX lines it
/// names (`line` gives the line of instruction (function, pc)), its help text, its severity,
/// and the thread and instructions it names.
fn render(f: Finding<'_>, line: impl Fn(u32, u32) -> u32) -> Hazard {
    let related = f.related.as_ref().map(|r| (r.0, r.1));
    Hazard {
        kind: f.kind,
        message: f.message.render(related, line),
        help: f.help.to_string(),
        at: (FuncId(f.site.func), f.site.pc),
        cta: f.site.cta,
        thread: [0; 3],
        linear_thread: f.site.warp * 32 + f.site.lane,
        address: f.address,
        related: f
            .related
            .into_iter()
            .map(|(func, pc, label)| Related {
                at: (FuncId(func), pc),
                label,
            })
            .collect(),
        count: 1,
        severity: f.severity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(pc: u32, related_pc: u32) -> Finding<'static> {
        Finding {
            severity: Severity::Warning,
            kind: HazardKind::DataRace,
            site: Site {
                func: 1,
                pc,
                rank: 0,
                cta: [2, 0, 0],
                warp: 2,
                lane: 3,
            },
            message: Msg::text("read of x races with a write at line ")
                .related_line()
                .then(": unordered"),
            help: "order them",
            address: "x (4 bytes)".into(),
            related: Some((1, related_pc, "the write".into())),
        }
    }

    #[test]
    fn a_finding_is_rendered_once_with_its_related_line_and_repeats_are_counted() {
        let mut reports = Reports::default();
        let line = |f: u32, pc: u32| 100 * f + pc;
        reports.record(finding(5, 7), line);
        reports.record(finding(5, 7), |_, _| {
            unreachable!("a repeat is not rendered")
        });
        reports.record(finding(5, 8), line);
        let hazards = reports.take();
        assert_eq!(hazards.len(), 2);
        let h = &hazards[0];
        assert_eq!(
            h.message,
            "read of x races with a write at line 107: unordered"
        );
        assert_eq!((h.count, h.help.as_str()), (2, "order them"));
        assert_eq!(
            (h.at, h.linear_thread, h.cta),
            ((FuncId(1), 5), 67, [2, 0, 0])
        );
        assert_eq!(h.severity, Severity::Warning);
        assert_eq!(h.related[0].at, (FuncId(1), 7));
        assert_eq!(h.key(), finding(5, 7).key(), "one dedupe key");
        assert_eq!(
            hazards[1].message,
            "read of x races with a write at line 108: unordered"
        );
        assert!(reports.take().is_empty(), "taking leaves none");
        reports.record(finding(5, 7), line);
        assert_eq!(reports.take()[0].count, 1, "and forgets what it saw");
    }

    #[test]
    fn a_repeat_that_is_an_error_takes_the_place_of_a_warning() {
        let mut reports = Reports::default();
        let line = |f: u32, pc: u32| 100 * f + pc;
        reports.record(finding(5, 7), line);
        let mut error = finding(5, 7);
        error.severity = Severity::Error;
        reports.record(error, line);
        reports.record(finding(5, 7), |_, _| {
            unreachable!("a repeat no graver is not rendered")
        });
        let hazards = reports.take();
        assert_eq!(hazards.len(), 1);
        assert_eq!(
            (hazards[0].severity, hazards[0].count),
            (Severity::Error, 3)
        );
    }

    /// Text a message quotes (a buffer named `{L}` by its launch) is printed as it is: only the
    /// message's typed places become lines.
    #[test]
    fn quoted_text_that_looks_like_a_placeholder_is_kept() {
        let mut reports = Reports::default();
        let mut f = finding(5, 7);
        f.message = Msg::text("read of {L}+0x4 races with the write of `{L}` at line ")
            .related_line()
            .then(" and line ")
            .line_of(2, 3)
            .then(": {L} {{L}}");
        reports.record(f, |f, pc| 100 * f + pc);
        assert_eq!(
            reports.take()[0].message,
            "read of {L}+0x4 races with the write of `{L}` at line 107 and line 203: {L} {{L}}"
        );
    }

    #[test]
    fn a_message_without_a_related_instruction_says_line_0() {
        let mut reports = Reports::default();
        let mut f = finding(5, 7);
        f.related = None;
        reports.record(f, |_, _| 9);
        let h = &reports.take()[0];
        assert_eq!(
            h.message,
            "read of x races with a write at line 0: unordered"
        );
        assert!(h.related.is_empty());
    }
}
