//! Tests of the executor's launch-time tables, moved here from `tests/` when `exec` became
//! crate-private: cooperative residency (`coop::resident_ctas`) against the table the H100's
//! driver gave (`docs/launch/cooperative-residency.md`), and how much of the fast-forms test
//! kernel (`tests/fast_forms/kernel.rs`) has a warp-wide fast form (`translate.rs`).

use super::{fast, resident_ctas, translate, Grid};
use crate::ir::{self, FuncId};

#[path = "../../tests/fast_forms/kernel.rs"]
mod fast_forms_kernel;

fn compile_file(path: &str) -> ir::Module {
    let src = std::fs::read_to_string(path).unwrap();
    ir::compile(&src).unwrap_or_else(|d| panic!("{}", crate::diag::render(&d, path, &src, false)))
}

/// How many instructions of a module have a warp-wide fast form, of how many (`fast.rs`).
fn fast_coverage(m: &ir::Module) -> (usize, usize) {
    let var_addr = vec![0; m.vars.len()];
    m.functions
        .iter()
        .flat_map(|f| translate::translate(m, f, &var_addr))
        .fold((0, 0), |(n, t), f| {
            (n + usize::from(f != fast::Fast::Slow), t + 1)
        })
}

/// Moved from `tests/launch_params.rs`.
#[test]
fn residency_is_what_the_h100_driver_measured() {
    // Every row of the table measured with scripts/coop-residency on the H100.
    let table = std::fs::read_to_string("docs/launch/cooperative-residency.md").unwrap();
    let m = compile_file("ptx-samples/launch/coop_jacobi/kernel.ptx");
    let mut rows = 0;
    for line in table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| block"))
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let num = |i: usize| cells[i].parse::<u64>().unwrap();
        let grid = Grid {
            grid: [1, 1, 1],
            block: [num(1) as u32, 1, 1],
            dynamic_shared_bytes: num(2) as u32,
            cluster: [1, 1, 1],
            explicit_cluster: false,
            cooperative: None,
            objects: Vec::new(),
        };
        let (most, _) = resident_ctas(&m, FuncId(0), &grid);
        assert_eq!(most, num(4), "{line}");
        assert!(cells[6].starts_with(&format!("{most},")), "{line}");
        rows += 1;
    }
    assert_eq!(rows, 30);
}

/// The fast-forms kernel really exercises fast forms: nearly all of its instructions have one
/// (moved from `tests/fast_forms.rs`).
#[test]
fn the_kernel_is_made_of_fast_forms() {
    let (ptx, n32, n64, nf) = fast_forms_kernel::kernel();
    let m = ir::compile(&ptx).unwrap();
    let (fast, total) = fast_coverage(&m);
    assert!(n32 + n64 + nf > 150);
    assert!(
        fast * 10 >= total * 9,
        "only {fast} of {total} instructions have a fast form"
    );
}

/// Every load and store of the fast-forms kernel has a fast form: the narrow ones of 1 and 2
/// bytes too, and the parameters' (`launchval.rs`), so that `tests/fast_forms.rs` compares them
/// with the general path.
#[test]
fn every_load_and_store_of_the_kernel_is_fast() {
    let (ptx, ..) = fast_forms_kernel::kernel();
    let m = ir::compile(&ptx).unwrap();
    let var_addr = vec![0; m.vars.len()];
    let f = &m.functions[0];
    let forms = translate::translate(&m, f, &var_addr);
    let mut narrow = 0;
    for (ins, form) in f.code.iter().zip(&forms) {
        if !matches!(ins.op, ir::Op::Ld | ir::Op::St) {
            continue;
        }
        if ins.mods.space == Some(ir::Space::Param) {
            assert!(
                matches!(form, fast::Fast::Param { .. }),
                "ld.param has no fast form"
            );
            continue;
        }
        assert!(form.is_mem(), "{:?} has no fast form", ins.op);
        narrow += usize::from(ins.mods.ty().is_some_and(|t| t.size() < 4));
    }
    assert!(narrow >= 10, "{narrow} narrow loads and stores");
}
