//! The file-access policy of launch files (README "Files a launch may touch"): a launch file
//! may be written by someone else (a pull request, a downloaded benchmark), so what it names is
//! not trusted.
//!
//! Inputs (the kernel, `init` files, expected outputs and stdout) are resolved relative to the
//! launch file, symbolic links followed, and must end inside the launch file's directory tree
//! or a directory the user allowed (`--allow-path`); they must be regular files (never a FIFO,
//! a device or `/proc`), and their size is checked before a byte is read. Outputs are relative
//! paths without `..`, written under the launch directory (or `--out-dir`) through directories
//! that stay inside it, never over one of the launch's inputs, each to a temporary file renamed
//! into place once every output is ready: an interrupted run leaves the previous file or none,
//! never a truncated one. Errors name the field and the path, never the file's contents.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Where a launch's inputs may come from: canonical directories.
#[derive(Debug, Clone)]
pub struct Access {
    roots: Vec<PathBuf>,
}

impl Access {
    /// Inputs of a launch in `dir`: that tree, and the directories in `allowed`.
    pub fn new(dir: &Path, allowed: &[PathBuf]) -> Result<Access, String> {
        let mut roots = Vec::new();
        for d in std::iter::once(dir).chain(allowed.iter().map(PathBuf::as_path)) {
            let c = std::fs::canonicalize(d)
                .map_err(|e| format!("{}: cannot resolve this directory: {e}", d.display()))?;
            if !c.is_dir() {
                return Err(format!("{}: not a directory", d.display()));
            }
            roots.push(c);
        }
        Ok(Access { roots })
    }

    /// The canonical path of an input, once it is known to be a regular file of at most `max`
    /// bytes inside an allowed directory. `field` names the launch-file field for messages.
    pub fn input(&self, path: &Path, field: &str, max: u64) -> Result<PathBuf, String> {
        let real = std::fs::canonicalize(path)
            .map_err(|e| format!("{field}: cannot read {}: {e}", path.display()))?;
        if !self.roots.iter().any(|r| real.starts_with(r)) {
            return Err(format!(
                "{field}: {} is outside the launch file's directory ({}); inputs must stay in \
                 its tree unless --allow-path names their directory",
                path.display(),
                self.roots[0].display()
            ));
        }
        let meta = std::fs::metadata(&real)
            .map_err(|e| format!("{field}: cannot read {}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!(
                "{field}: {} is not a regular file (FIFOs, devices and directories are refused)",
                path.display()
            ));
        }
        if meta.len() > max {
            return Err(format!(
                "{field}: {} has {} bytes, more than the {max} this input may have",
                path.display(),
                meta.len()
            ));
        }
        Ok(real)
    }

    /// Reads an input checked as [`Access::input`]: its canonical path and bytes.
    pub fn read(&self, path: &Path, field: &str, max: u64) -> Result<(PathBuf, Vec<u8>), String> {
        let real = self.input(path, field, max)?;
        let bytes = read_capped(&real, max)
            .map_err(|e| format!("{field}: cannot read {}: {e}", path.display()))?;
        Ok((real, bytes))
    }
}

/// Reads at most `max` bytes of a regular file (it may have grown since its size was checked).
pub fn read_capped(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    let mut out = Vec::new();
    f.take(max.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > max {
        return Err(std::io::Error::other(format!(
            "it grew past {max} bytes while being read"
        )));
    }
    Ok(out)
}

/// A launch file's `[outputs]` path: relative, no `..`, not empty.
pub fn output_path(text: &str, field: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(text);
    let mut normal = 0;
    for c in p.components() {
        match c {
            Component::Normal(_) => normal += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(format!(
                    "{field}: `{text}` leaves the output directory (`..` is not allowed)"
                ))
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!(
                    "{field}: `{text}` is absolute; outputs are relative to the launch \
                     directory (or --out-dir)"
                ))
            }
        }
    }
    if normal == 0 {
        return Err(format!("{field}: `{text}` names no file"));
    }
    Ok(p)
}

/// Outputs of one run to write together.
pub struct Outputs<'a> {
    /// The launch directory or `--out-dir`.
    pub base: &'a Path,
    /// Canonical paths no output may replace (the launch's own inputs).
    pub protected: &'a [PathBuf],
}

impl Outputs<'_> {
    /// Writes every file or none: all are staged as temporary files beside their targets
    /// first, then renamed into place. Each file is (path relative to the base, a header,
    /// the data).
    pub fn write(&self, files: Vec<(&Path, Vec<u8>, &[u8])>) -> Result<Vec<PathBuf>, String> {
        std::fs::create_dir_all(self.base)
            .map_err(|e| format!("{}: cannot create: {e}", self.base.display()))?;
        let base = std::fs::canonicalize(self.base)
            .map_err(|e| format!("{}: {e}", self.base.display()))?;
        let mut staged = Vec::new();
        for (rel, header, data) in files {
            let target = self.target(&base, rel)?;
            let dir = target.parent().unwrap_or(&base);
            let mut tmp = tempfile::Builder::new()
                .prefix(".ptxrun-")
                .suffix(".partial")
                .tempfile_in(dir)
                .map_err(|e| format!("{}: cannot write: {e}", target.display()))?;
            std::io::Write::write_all(&mut tmp, &header)
                .and_then(|()| std::io::Write::write_all(&mut tmp, data))
                .map_err(|e| format!("{}: cannot write: {e}", target.display()))?;
            staged.push((tmp, target));
        }
        let mut written = Vec::new();
        for (tmp, target) in staged {
            tmp.persist(&target)
                .map_err(|e| format!("{}: cannot write: {}", target.display(), e.error))?;
            written.push(target);
        }
        Ok(written)
    }

    /// The path `rel` will be written at: its directories created one by one, each checked to
    /// stay inside `base` (a symbolic link that leads out is refused, never followed to
    /// create directories elsewhere), and not one of the protected inputs.
    fn target(&self, base: &Path, rel: &Path) -> Result<PathBuf, String> {
        let mut dir = base.to_path_buf();
        let parts: Vec<_> = rel.components().collect();
        let Some((file, dirs)) = parts.split_last() else {
            return Err(format!("{}: names no file", rel.display()));
        };
        for c in dirs {
            let Component::Normal(name) = c else { continue };
            let next = dir.join(name);
            match std::fs::symlink_metadata(&next) {
                Err(_) => std::fs::create_dir(&next)
                    .map_err(|e| format!("{}: cannot create: {e}", next.display()))?,
                Ok(m) if m.file_type().is_symlink() => {}
                Ok(m) if m.is_dir() => {}
                Ok(_) => return Err(format!("{}: not a directory", next.display())),
            }
            dir = std::fs::canonicalize(&next).map_err(|e| format!("{}: {e}", next.display()))?;
            if !dir.starts_with(base) || !dir.is_dir() {
                return Err(format!(
                    "{}: leads outside the output directory {}; outputs stay inside it",
                    next.display(),
                    base.display()
                ));
            }
        }
        let target = dir.join(file.as_os_str());
        let shown = base.join(rel);
        if let Ok(m) = std::fs::symlink_metadata(&target) {
            if m.is_dir() {
                return Err(format!("{}: is a directory", shown.display()));
            }
            // Renaming over a link would not write through it, but a link that leads out is
            // somebody's trap or mistake: say so rather than quietly replace it.
            let leads_out = m.file_type().is_symlink()
                && !std::fs::canonicalize(&target).is_ok_and(|c| c.starts_with(base));
            if leads_out {
                return Err(format!(
                    "{}: is a symbolic link that leads outside the output directory {}; \
                     outputs stay inside it",
                    shown.display(),
                    base.display()
                ));
            }
        }
        if self.protected.iter().any(|p| p == &target)
            || std::fs::canonicalize(&target).is_ok_and(|c| self.protected.contains(&c))
        {
            return Err(format!(
                "{}: is one of the launch's inputs; an output never replaces an input",
                shown.display()
            ));
        }
        Ok(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_paths_stay_relative() {
        assert!(output_path("out/c.bin", "o").is_ok());
        assert!(output_path("./c.bin", "o").is_ok());
        assert!(output_path("../c.bin", "o").is_err());
        assert!(output_path("out/../../c.bin", "o").is_err());
        assert!(output_path("/tmp/c.bin", "o").is_err());
        assert!(output_path("", "o").is_err());
        assert!(output_path(".", "o").is_err());
    }
}
