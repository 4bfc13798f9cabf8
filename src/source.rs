//! A compiled module together with the text it was compiled from and the name reports give it:
//! what every report points into (PTX ISA 9.0 chapter 11, "Directives": `.file`/`.loc` lead a
//! report from the PTX line to the CUDA line). Shared between a module's launches and their
//! reports through an `Arc`.

use crate::diag;
use crate::ir;

/// PTX text, its IR and its name (usually the file it came from).
pub struct Compiled {
    pub ir: ir::Module,
    pub text: String,
    pub name: String,
}

impl Compiled {
    /// Compiles PTX text; errors come back rendered with their source lines.
    pub fn new(text: String, name: &str) -> Result<Compiled, String> {
        let ir = ir::compile(&text).map_err(|d| diag::render(&d, name, &text, false))?;
        Ok(Compiled {
            ir,
            text,
            name: name.to_string(),
        })
    }

    /// Source position of instruction `pc` of function `func`.
    pub fn src_of(&self, at: (ir::FuncId, u32)) -> Option<&ir::SrcInfo> {
        self.ir
            .functions
            .get(at.0 .0 as usize)?
            .srcs
            .get(at.1 as usize)
    }

    /// (line, column, instruction text with its white space folded) of an instruction.
    pub fn line_of(&self, at: (ir::FuncId, u32)) -> (usize, usize, String) {
        match self.src_of(at) {
            Some(s) => {
                let (l, c) = diag::line_col(&self.text, s.span.start);
                let text = self.text[s.span.clone()]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                (l, c, text)
            }
            None => (0, 0, String::new()),
        }
    }

    /// `file:line` of the CUDA source line (`.loc`) in force at an instruction.
    pub fn cuda_of(&self, at: (ir::FuncId, u32)) -> Option<String> {
        let (file, line, _) = self.src_of(at)?.loc?;
        Some(format!("{}:{line}", self.ir.file(file).unwrap_or("?")))
    }
}
