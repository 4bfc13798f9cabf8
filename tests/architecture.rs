//! The architecture rules of issue 12, checked on the source tree itself: no import circle
//! between the files of `src/`, no `too_many_arguments` allowance, no function over 120 lines,
//! and every file opening with a `//!` paragraph. Each rule is its own test and names the
//! offenders; the `checker_*` tests run each rule on a small deliberate violation, so none of
//! the rules can pass by reading nothing.
//!
//! The reader is a small Rust lexer, not a regex over raw text: comments (nested block comments
//! too), string literals (raw ones included) and char literals are blanked before anything is
//! looked at, so a `crate::x` or a `{` inside a string or a comment counts for nothing. Imports
//! are a file's `use crate::..` / `use super::..` / `use self::..` trees (groups expanded) and
//! inline `crate::x::y` paths; `mod.rs` is its directory's module; everything from the first
//! `#[cfg(test)]` on is test code and has no imports that count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest function allowed, in lines from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 120;

/// A source file: its path relative to the crate root and its text.
struct File {
    path: String,
    text: String,
}

fn src_files() -> Vec<File> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut dirs = vec![root.join("src")];
    while let Some(d) = dirs.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&p).expect("a readable source file");
                let rel = p.strip_prefix(root).expect("under the root");
                out.push(File {
                    path: rel.to_string_lossy().replace('\\', "/"),
                    text,
                });
            }
        }
    }
    assert!(out.len() > 10, "found only {} files under src/", out.len());
    out
}

/// `text` with every comment, string literal and char literal blanked to spaces (their quotes
/// kept, newlines kept), so that lines and byte offsets still match the original.
fn blank(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
            wipe(&mut out, i, end);
            i = end;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            wipe(&mut out, i, j);
            i = j;
        } else if c == b'r'
            && (i == 0 || !ident(b[i - 1]) || (b[i - 1] == b'b' && (i < 2 || !ident(b[i - 2]))))
            && matches!(b.get(i + 1), Some(b'"' | b'#'))
        {
            // A raw string r"..", r#".."#, br#".."#, or an identifier starting with r.
            let hashes = b[i + 1..].iter().take_while(|&&h| h == b'#').count();
            let open = i + 1 + hashes;
            if b.get(open) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let end = text[open + 1..]
                .find(&close)
                .map_or(b.len(), |n| open + 1 + n);
            wipe(&mut out, open + 1, end);
            i = (end + close.len()).min(b.len());
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let j = j.min(b.len());
            wipe(&mut out, i + 1, j);
            i = j + 1;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}', 'é') or a lifetime ('a).
            let rest = &text[i + 1..];
            let mut chars = rest.char_indices();
            match chars.next() {
                Some((_, '\\')) => {
                    let end = rest[1..].find('\'').map_or(b.len(), |n| i + 2 + n);
                    wipe(&mut out, i + 1, end);
                    i = end + 1;
                }
                Some((_, ch)) if rest[ch.len_utf8()..].starts_with('\'') => {
                    wipe(&mut out, i + 1, i + 1 + ch.len_utf8());
                    i += 2 + ch.len_utf8();
                }
                _ => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The code of a file that is not test code: everything before its first `#[cfg(test)]`.
fn non_test(code: &str) -> &str {
    code.find("#[cfg(test)]").map_or(code, |i| &code[..i])
}

/// The module a file of `src/` is: `src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`, `lib.rs` the
/// crate root (empty).
fn module_of(path: &str) -> Vec<String> {
    let p = path.strip_prefix("src/").unwrap_or(path);
    let p = p.strip_suffix(".rs").unwrap_or(p);
    let mut parts: Vec<String> = p.split('/').map(str::to_string).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Expands a `use` tree (`crate::a::{b, c::{d, self}}`) into its full paths.
fn expand_use(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else if b.is_empty() || b == "self" {
            a.to_string()
        } else {
            format!("{a}::{b}")
        }
    };
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let base = join(prefix, head);
        let (mut depth, mut start) = (0, 0);
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_use(&inner[start..k], &base, out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand_use(&inner[start..], &base, out);
    } else if !tree.is_empty() {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        out.push(join(prefix, path.trim_end_matches("::*")));
    }
}

/// The paths a file's non-test code names through `crate`, `super` or `self`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // `use` trees, groups expanded.
    let mut rest = code;
    while let Some(k) = find_word(rest, "use") {
        let after = &rest[k + 3..];
        let end = after.find(';').unwrap_or(after.len());
        let tree: String = after[..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let tree = tree.replace(":: ", "::").replace(" ::", "::");
        if tree.starts_with("crate::") || tree.starts_with("super::") || tree.starts_with("self::")
        {
            expand_use(&tree, "", &mut out);
        }
        rest = &after[end..];
    }
    // Inline paths: `crate::x::y(..)`, `super::x::Y`.
    let b = code.as_bytes();
    for root in ["crate", "super", "self"] {
        let mut from = 0;
        while let Some(k) = find_word(&code[from..], root) {
            let start = from + k;
            let mut j = start + root.len();
            while code[j..].starts_with("::") {
                let seg = code[j + 2..]
                    .bytes()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    .count();
                if seg == 0 {
                    break;
                }
                j += 2 + seg;
            }
            let preceded = start >= 2 && &b[start - 2..start] == b"::";
            if j > start + root.len() && !preceded {
                out.push(code[start..j].to_string());
            }
            from = j.max(start + 1);
        }
    }
    out
}

/// Where `word` stands as a whole word in `s`.
fn find_word(s: &str, word: &str) -> Option<usize> {
    let b = s.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut from = 0;
    while let Some(k) = s[from..].find(word) {
        let at = from + k;
        let end = at + word.len();
        if (at == 0 || !ident(b[at - 1])) && (end >= b.len() || !ident(b[end])) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The module a path from `module` names: its longest prefix that is a file of `src/`.
fn resolve(path: &str, module: &[String], mods: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut parts = path.split("::").map(str::to_string);
    let mut full: Vec<String> = match parts.next()?.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut base = module.to_vec();
            base.pop();
            base
        }
        _ => return None,
    };
    for p in parts {
        if p == "super" {
            full.pop();
        } else if p != "self" {
            full.push(p);
        }
    }
    (1..=full.len())
        .rev()
        .map(|k| full[..k].to_vec())
        .find(|m| mods.contains(m))
}

/// The import graph between the files of the library: module -> modules it names.
fn import_graph(files: &[File]) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    // The binary's `crate` is another crate.
    let lib: Vec<&File> = files.iter().filter(|f| f.path != "src/main.rs").collect();
    let mods: BTreeSet<Vec<String>> = lib.iter().map(|f| module_of(&f.path)).collect();
    let mut g: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for f in lib {
        let m = module_of(&f.path);
        let code = blank(&f.text);
        let edges = g.entry(m.clone()).or_default();
        for path in crate_paths(non_test(&code)) {
            if let Some(to) = resolve(&path, &m, &mods) {
                if to != m && !to.is_empty() {
                    edges.insert(to);
                }
            }
        }
    }
    g
}

/// The strongly connected components of more than one module (Tarjan).
fn circles(g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    struct State<'g> {
        g: &'g BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'g Vec<String>, usize>,
        low: BTreeMap<&'g Vec<String>, usize>,
        stack: Vec<&'g Vec<String>>,
        on: BTreeSet<&'g Vec<String>>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g Vec<String>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.join("::"));
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    let nodes: BTreeSet<&Vec<String>> = g.keys().chain(g.values().flatten()).collect();
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// Each function longer than [`MAX_FN_LINES`]: (file, line of its `fn`, name, lines).
fn long_functions(files: &[File]) -> Vec<(String, usize, String, usize)> {
    let mut out = Vec::new();
    for f in files {
        let code = blank(&f.text);
        let b = code.as_bytes();
        let line_of = |k: usize| code[..k].matches('\n').count() + 1;
        let mut from = 0;
        while let Some(k) = find_word(&code[from..], "fn") {
            let at = from + k;
            from = at + 2;
            let name: String = code[at + 2..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                continue; // `fn(u32) -> u32`, a function pointer type, or `fn $name` in a macro
            }
            // The body starts at the first `{` outside parentheses and brackets; a `;` there
            // first means a declaration without a body.
            let mut depth = 0i32;
            let mut j = at + 2;
            let mut open = None;
            while j < b.len() {
                match b[j] {
                    b'(' | b'[' => depth += 1,
                    b')' | b']' => depth -= 1,
                    b'{' if depth == 0 => {
                        open = Some(j);
                        break;
                    }
                    b';' if depth == 0 => break,
                    _ => {}
                }
                j += 1;
            }
            let Some(open) = open else { continue };
            let mut depth = 0i32;
            let mut close = b.len() - 1;
            for (k, &c) in b.iter().enumerate().skip(open) {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            close = k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let (first, last) = (line_of(at), line_of(close));
            if last - first + 1 > MAX_FN_LINES {
                out.push((f.path.clone(), first, name, last - first + 1));
            }
        }
    }
    out
}

/// Files (and manifests) that allow `clippy::too_many_arguments`.
fn argument_allowances(files: &[File], manifests: &[File]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        let code = blank(&f.text);
        for (n, line) in code.lines().enumerate() {
            if line.contains("too_many_arguments") {
                out.push(format!("{}:{}", f.path, n + 1));
            }
        }
    }
    for m in manifests {
        for (n, line) in m.text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            if line.contains("too_many_arguments") || line.contains("too-many-arguments") {
                out.push(format!("{}:{}", m.path, n + 1));
            }
        }
    }
    out
}

/// Files whose first line is not a `//!` line with text.
fn missing_module_docs(files: &[File]) -> Vec<String> {
    files
        .iter()
        .filter(|f| {
            let first = f.text.lines().next().unwrap_or("");
            !first.starts_with("//! ") || first[4..].trim().is_empty()
        })
        .map(|f| f.path.clone())
        .collect()
}

fn manifests() -> Vec<File> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["Cargo.toml", "clippy.toml", ".clippy.toml"]
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(root.join(p)).ok()?;
            Some(File {
                path: p.to_string(),
                text,
            })
        })
        .collect()
}

#[test]
fn no_import_circle_between_files_of_src() {
    let found = circles(&import_graph(&src_files()));
    let list: Vec<String> = found
        .iter()
        .map(|c| format!("{} files: {}", c.len(), c.join(", ")))
        .collect();
    assert!(
        found.is_empty(),
        "import circles (each a set of files that import each other, directly or through others):\n{}",
        list.join("\n")
    );
}

#[test]
fn no_too_many_arguments_allowance() {
    let found = argument_allowances(&src_files(), &manifests());
    assert!(
        found.is_empty(),
        "`too_many_arguments` allowed at:\n{}\n(group the arguments into a type instead)",
        found.join("\n")
    );
}

#[test]
fn no_function_over_120_lines() {
    let found = long_functions(&src_files());
    let list: Vec<String> = found
        .iter()
        .map(|(f, l, name, n)| format!("{f}:{l} `{name}`: {n} lines"))
        .collect();
    assert!(
        found.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n{}",
        list.join("\n")
    );
}

#[test]
fn every_src_file_opens_with_a_module_paragraph() {
    let found = missing_module_docs(&src_files());
    assert!(
        found.is_empty(),
        "files without a leading `//!` paragraph naming their model and PTX ISA sections:\n{}",
        found.join("\n")
    );
}

fn file(path: &str, text: &str) -> File {
    File {
        path: path.into(),
        text: text.into(),
    }
}

#[test]
fn checker_finds_a_circle_and_ignores_strings_comments_and_tests() {
    let files = [
        file("src/lib.rs", "//! root\nmod a;\nmod b;\n"),
        file(
            "src/a/mod.rs",
            "//! a\nuse crate::b::{self, X};\nfn f() -> &'static str { \"crate::c::Y\" }\n",
        ),
        file(
            "src/b.rs",
            "//! b\n// use crate::c;\nfn g() { let c = 'x'; super::a::h(); }\n",
        ),
        file(
            "src/c.rs",
            "//! c\nfn k() {}\n#[cfg(test)]\nmod tests { use crate::a::f; }\n",
        ),
    ];
    assert_eq!(circles(&import_graph(&files)), vec![vec!["a", "b"]]);
    let one_way = [
        file("src/a.rs", "//! a\nuse crate::b::X;\n"),
        file(
            "src/b.rs",
            "//! b\n/* use crate::a; /* nested */ */ const S: &str = r#\"crate::a\"#;\n",
        ),
    ];
    assert!(circles(&import_graph(&one_way)).is_empty());
    // Through a group, a nested group and a third file.
    let three = [
        file("src/x/p.rs", "//! p\nuse super::{q::{Q, self}};\n"),
        file("src/x/q.rs", "//! q\nfn f() { crate::r::go() }\n"),
        file("src/r.rs", "//! r\nuse crate::{x::{p::P}};\n"),
    ];
    assert_eq!(
        circles(&import_graph(&three)),
        vec![vec!["r", "x::p", "x::q"]]
    );
}

#[test]
fn checker_measures_functions_through_braces_in_strings_and_where_clauses() {
    let body = "    let s = \"}}}\"; let c = '}'; // }\n".repeat(119);
    let long = format!(
        "//! m\nfn long<T>(t: T) -> u32\nwhere\n    T: Fn() -> u32,\n{{\n{body}    {{ 0 }}\n}}\n"
    );
    let found = long_functions(&[file("src/m.rs", &long)]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].1, found[0].2.as_str(), found[0].3),
        (2, "long", 125)
    );
    let short = "//! m\ntrait T { fn d(&self); }\nfn f(x: [u8; 2]) -> fn(u8) -> u8 { g }\n";
    assert!(long_functions(&[file("src/m.rs", short)]).is_empty());
}

#[test]
fn checker_finds_allowances_and_missing_paragraphs() {
    let files = [
        file(
            "src/a.rs",
            "//! a\n#[allow(clippy::too_many_arguments)]\nfn f() {}\n",
        ),
        file(
            "src/b.rs",
            "//! b\nconst S: &str = \"too_many_arguments\";\n",
        ),
        file("src/c.rs", "use x;\n"),
        file(
            "src/d.rs",
            "/// an item doc, not a module paragraph\nfn d() {}\n",
        ),
    ];
    let toml = [file("clippy.toml", "too-many-arguments-threshold = 12\n")];
    assert_eq!(
        argument_allowances(&files, &toml),
        vec!["src/a.rs:2", "clippy.toml:1"]
    );
    assert_eq!(missing_module_docs(&files), vec!["src/c.rs", "src/d.rs"]);
}
