//! Assembles the browser UI into the one file that `GET /` serves.
//!
//! The page is written as small ES modules under `assets/ui/` (so that `node --test`
//! can import the pure ones). Here they are joined, in dependency order, into one
//! `<script type="module">`: single-line `import { .. } from './x.js';` statements
//! are dropped and `export` keywords removed, so every module shares one top-level
//! scope (the build refuses two modules declaring the same top-level name). The
//! result goes into `assets/ui/index.html` with `style.css`, and is also written
//! gzip-compressed. No npm, no network: plain text processing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

const UI_DIR: &str = "assets/ui";
/// The page must stay under this many bytes uncompressed.
const MAX_PAGE_BYTES: usize = 200_000;

fn main() {
    println!("cargo:rerun-if-changed={UI_DIR}");
    let dir = Path::new(UI_DIR);
    let modules = read_modules(dir);
    let order = dependency_order(&modules);
    let mut script = String::new();
    let mut declared: BTreeMap<String, String> = BTreeMap::new();
    for name in &order {
        let m = &modules[name];
        for decl in &m.declarations {
            if let Some(other) = declared.insert(decl.clone(), name.clone()) {
                fail(&format!(
                    "`{decl}` is declared at the top level of both {other} and {name}: \
                     the modules share one scope in the page, rename one"
                ));
            }
        }
        script.push_str(&m.body);
        script.push('\n');
    }
    if script.to_ascii_lowercase().contains("</script") {
        fail("a module contains \"</script\", which would end the page's script early");
    }
    let template = read(&dir.join("index.html"));
    let style: String = read(&dir.join("style.css"))
        .lines()
        .map(str::trim)
        .filter(|l| !(l.is_empty() || l.starts_with("/*") && l.ends_with("*/")))
        .collect::<Vec<_>>()
        .join("\n");
    for marker in ["/*@STYLE@*/", "/*@SCRIPT@*/"] {
        if template.matches(marker).count() != 1 {
            fail(&format!("index.html must hold {marker} exactly once"));
        }
    }
    let script = format!(
        "// rigweb browser UI, assembled from assets/ui/ (comments and indentation are in the sources)\n{script}"
    );
    let page = template
        .replace("/*@STYLE@*/", &style)
        .replace("/*@SCRIPT@*/", script.trim_end());
    if page.len() > MAX_PAGE_BYTES {
        fail(&format!(
            "the page is {} bytes; it must stay under {MAX_PAGE_BYTES}",
            page.len()
        ));
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    write(&out.join("ui.html"), page.as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(page.as_bytes())
        .and_then(|_| gz.finish())
        .map(|bytes| write(&out.join("ui.html.gz"), &bytes))
        .unwrap_or_else(|e| fail(&format!("gzip: {e}")));
}

/// One module: its dependencies, top-level declarations and its text without the
/// import lines and export keywords.
struct Module {
    deps: Vec<String>,
    declarations: Vec<String>,
    body: String,
}

fn fail(msg: &str) -> ! {
    panic!("assembling the browser UI ({UI_DIR}): {msg}");
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|e| fail(&format!("{}: {e}", p.display())))
}

fn write(p: &Path, bytes: &[u8]) {
    fs::write(p, bytes).unwrap_or_else(|e| fail(&format!("{}: {e}", p.display())));
}

fn read_modules(dir: &Path) -> BTreeMap<String, Module> {
    let mut modules = BTreeMap::new();
    let entries = fs::read_dir(dir).unwrap_or_else(|e| fail(&format!("{e}")));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| fail(&format!("{e}"))).path();
        if path.extension().and_then(|e| e.to_str()) != Some("js") {
            continue;
        }
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_else(|| fail("a module name is not UTF-8"))
            .to_string();
        let m = parse_module(&name, &read(&path));
        modules.insert(name, m);
    }
    if modules.is_empty() {
        fail("no modules found");
    }
    modules
}

fn parse_module(name: &str, text: &str) -> Module {
    let mut deps = Vec::new();
    let mut declarations = Vec::new();
    let mut body = String::with_capacity(text.len());
    let mut in_doc = false;
    for (i, line) in text.lines().enumerate() {
        let at = || format!("{name}:{}", i + 1);
        // comments and indentation stay in the sources, not in the page
        let trimmed = line.trim_start();
        if in_doc || trimmed.starts_with("/*") {
            in_doc = !trimmed.contains("*/");
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        if trimmed.matches('`').count() % 2 == 1 {
            fail(&format!(
                "{}: template literals must not span lines (the build strips indentation)",
                at()
            ));
        }
        if let Some(rest) = line.strip_prefix("import ") {
            let dep = rest
                .split_once(" from '")
                .and_then(|(_, r)| r.strip_suffix("';"))
                .and_then(|r| r.strip_prefix("./"))
                .filter(|d| d.ends_with(".js") && !d.contains('/') && rest.starts_with('{'))
                .unwrap_or_else(|| {
                    fail(&format!(
                        "{}: only single-line `import {{ .. }} from './x.js';` is supported",
                        at()
                    ))
                });
            deps.push(dep.to_string());
            continue;
        }
        if line.trim_start().starts_with("import ") || line.contains("import(") {
            fail(&format!(
                "{}: imports must be single lines at the top",
                at()
            ));
        }
        let line = match line.strip_prefix("export ") {
            Some(rest) => {
                if rest.starts_with("default") || rest.starts_with('{') || rest.starts_with('*') {
                    fail(&format!(
                        "{}: only `export <declaration>` is supported",
                        at()
                    ));
                }
                rest
            }
            None => line,
        };
        if let Some(decl) = top_level_name(line) {
            declarations.push(decl);
        }
        body.push_str(line.trim_start());
        body.push('\n');
    }
    Module {
        deps,
        declarations,
        body,
    }
}

/// The name a top-level (unindented) declaration introduces.
fn top_level_name(line: &str) -> Option<String> {
    let rest = ["async function ", "function ", "const ", "let ", "class "]
        .iter()
        .find_map(|kw| line.strip_prefix(kw))?;
    let rest = rest.trim_start_matches('*').trim_start();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Modules ordered so that every module comes after the ones it imports.
fn dependency_order(modules: &BTreeMap<String, Module>) -> Vec<String> {
    fn visit(
        name: &str,
        modules: &BTreeMap<String, Module>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
        out: &mut Vec<String>,
    ) {
        if done.contains(name) {
            return;
        }
        if path.iter().any(|p| p == name) {
            fail(&format!("import cycle: {} -> {name}", path.join(" -> ")));
        }
        let Some(m) = modules.get(name) else {
            fail(&format!(
                "{} imports {name}, which does not exist",
                path.join(" -> ")
            ));
        };
        path.push(name.to_string());
        for d in &m.deps {
            visit(d, modules, done, path, out);
        }
        path.pop();
        done.insert(name.to_string());
        out.push(name.to_string());
    }
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    // main.js starts the page, so it comes last; the rest in name order
    let mut roots: Vec<&String> = modules.keys().filter(|k| *k != "main.js").collect();
    if modules.contains_key("main.js") {
        roots.push(modules.keys().find(|k| *k == "main.js").expect("checked"));
    }
    for name in roots {
        visit(name, modules, &mut done, &mut Vec::new(), &mut out);
    }
    out
}
