//! `ad check` over the real scripts in ../shared/corpus, snapshotted: a review of what the
//! validator finds in scripts people actually wrote and recorded. A change here is a change in
//! what users see; read the diff line by line.

use ad_tests::corpus_dir;

#[test]
fn corpus_findings() {
    let mut files: Vec<_> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ad"))
        .collect();
    files.sort();
    let mut report = String::new();
    for path in &files {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let analysis = ad_compiler::analyze(&text);
        let index = ad_grammar::LineIndex::new(&text);
        let name = path.file_name().unwrap().to_string_lossy();
        report.push_str(&format!("{name}\n"));
        for d in &analysis.diagnostics {
            let (line, col) = index.line_col(&text, d.primary_span().start);
            let parity = if d.is_parity_error() {
                " [agent-device rejects]"
            } else {
                ""
            };
            report.push_str(&format!(
                "  {line}:{col} {} {} {}{parity}\n",
                d.code,
                d.severity.as_str(),
                d.message
            ));
        }
    }
    insta::assert_snapshot!("corpus-check", report);
}
