//! `coapcc reproduce all --quick` end to end: the report holds every figure and every claim
//! row of the data files, and its page renders in a real browser (headless Chromium).

use std::path::{Path, PathBuf};
use std::process::Command;

use coapcc_report::{Findings, causes_md, printed_scoreboard, status_md};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `id = "..."` of `[[figure]]` and `[[claim]]` tables in the data files.
fn ids(kind: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in ["fasor", "full-backoff", "makarem-rto", "makarem-rate", "betzler", "lim", "makarem-cooja", "firmware"] {
        let text = std::fs::read_to_string(root().join(format!("data/published/{e}.toml"))).unwrap();
        let table: toml::Table = toml::from_str(&text).unwrap();
        if let Some(items) = table.get(kind).and_then(|v| v.as_array()) {
            for i in items {
                out.push(i["id"].as_str().unwrap().to_string());
            }
        }
    }
    out
}

/// The id of every investigation of every experiment description.
fn investigation_ids() -> Vec<String> {
    let all = coapcc_report::published_results().unwrap();
    all.iter().flat_map(|p| p.investigations.iter().map(|i| i.id().to_string())).collect()
}

fn browser() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"].iter().find_map(|b| {
        let out = Command::new("which").arg(b).output().ok()?;
        out.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    })
}

/// Fraction of clearly coloured pixels (plots) in a PNG screenshot, and whether it is blank.
fn colourfulness(png_path: &Path) -> (f64, bool) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png_path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let px = &buf[..info.buffer_size()];
    let (mut coloured, mut total, mut first, mut all_same) = (0usize, 0usize, None, true);
    for p in px.chunks(channels) {
        let (r, g, b) = (p[0] as i32, p[1.min(channels - 1)] as i32, p[2.min(channels - 1)] as i32);
        let max = r.max(g).max(b);
        let min = r.min(g).min(b);
        if max - min > 60 {
            coloured += 1;
        }
        match first {
            None => first = Some((r, g, b)),
            Some(f) if f != (r, g, b) => all_same = false,
            _ => {}
        }
        total += 1;
    }
    (coloured as f64 / total as f64, all_same)
}

/// Every raw HTML tag in a Markdown text: `<` followed by a letter, `/` or `!` (an element, a
/// closing tag, a comment), up to the next `>` on the same line. `a < b` and `<3` are not tags.
fn html_tags(md: &str) -> Vec<String> {
    let mut tags = Vec::new();
    for line in md.lines() {
        let mut rest = line;
        while let Some(at) = rest.find('<') {
            let after = &rest[at + 1..];
            match after.find('>') {
                Some(end) if after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!') => {
                    tags.push(rest[at..at + end + 2].to_string());
                    rest = &after[end + 1..];
                }
                _ => rest = after,
            }
        }
    }
    tags
}

#[test]
fn a_tag_finder_finds_html_in_markdown_and_nothing_else() {
    assert_eq!(html_tags("x <a id=\"y\"></a> **b**"), vec!["<a id=\"y\">", "</a>"]);
    assert_eq!(html_tags("<!-- c --> and <br>"), vec!["<!-- c -->", "<br>"]);
    assert!(html_tags("a < b, x<3, `x -> y` ![a](b.svg)").is_empty());
}

#[test]
fn the_quick_report_holds_every_figure_and_claim_and_renders_in_a_browser() {
    let dir = tempfile::Builder::new().prefix("coapcc-report-").tempdir().unwrap();
    let out = dir.path().join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .current_dir(root())
        .args(["reproduce", "all", "--quick", "--quiet", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let figures = ids("figure");
    let claims = ids("claim");
    assert!(figures.len() >= 10 && claims.len() >= 20, "{} figures, {} claims", figures.len(), claims.len());
    for f in &figures {
        let at = html.find(&format!("id=\"fig-{f}\"")).unwrap_or_else(|| panic!("figure {f} missing"));
        let rest = &html[at..];
        let end = rest.find("</figure>").unwrap();
        assert!(rest[..end].contains("<svg"), "figure {f} has no SVG");
        assert!(!rest[..end].contains("no data"), "figure {f} has an empty panel");
        assert!(out.join(format!("figures/{f}.svg")).exists());
    }
    for c in &claims {
        assert!(html.contains(&format!("id=\"claim-{c}\"")), "claim {c} missing");
    }
    // The first screen is the scoreboard and the plot of ours/published.
    let board = html.find("id=\"scoreboard\"").expect("no scoreboard");
    let plot = html.find("class=\"ratio-plot\"").expect("no plot of ours/published");
    let first_section = html.find("<section").unwrap();
    assert!(board < plot && plot < first_section, "the report does not open with the scoreboard");
    let csv = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    assert_eq!(std::fs::read_to_string(out.join("status.md")).unwrap(), status_md(&csv).unwrap());
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| claim |") && md.contains("figures/"));
    // report.md is Markdown only: no raw HTML tag anywhere.
    assert_eq!(html_tags(&md), Vec::<String>::new(), "report.md holds raw HTML");
    // Verdicts read without colour, in both pages.
    for page in [&md, &html] {
        assert!(page.contains("✔ holds") && page.contains("✘ differs"), "verdicts without their mark");
    }
    // The burst-scale investigation of the 10-flow error cases: its figure, its finding, and
    // the link from each differing claim it covers.
    assert!(out.join("figures/fasor-burst-scale.svg").exists(), "no burst-scale figure");
    assert!(html.contains("id=\"inv-fasor-burst-scale\"") && html.contains("<strong>Finding:</strong> Time mode"));
    assert!(md.contains("**Finding:** Time mode") && md.contains("Packet mode"), "no burst-scale finding");
    // Every investigation of the descriptions: its figure, its finding, and its causes file.
    for id in investigation_ids() {
        assert!(out.join(format!("figures/{id}.svg")).exists(), "no figure of {id}");
        assert!(html.contains(&format!("id=\"inv-{id}\"")), "no section for {id}");
    }
    let findings = Findings::parse(&std::fs::read_to_string(out.join("investigations.toml")).unwrap()).unwrap();
    assert_eq!(std::fs::read_to_string(out.join("causes.md")).unwrap(), causes_md(&csv, &findings).unwrap());
    assert_eq!(std::fs::read_to_string(out.join("claims.csv")).unwrap().lines().count(), claims.len() + 1);
    // The run's claims.csv, recomputed here from the simulation, is the committed quick-run file
    // byte for byte: a change of a model, a data file or the evaluation that moves any number or
    // verdict shows here (regenerate: `coapcc reproduce all --quick --out DIR` and copy
    // DIR/claims.csv to data/published/claims-quick.csv).
    let committed = std::fs::read_to_string(root().join("data/published/claims-quick.csv")).unwrap();
    if csv != committed {
        let first = csv.lines().zip(committed.lines()).position(|(a, b)| a != b);
        panic!(
            "the quick run's claims.csv differs from data/published/claims-quick.csv (first differing line: {:?}):\n  run:       {:?}\n  committed: {:?}",
            first.map(|i| i + 1),
            first.and_then(|i| csv.lines().nth(i)),
            first.and_then(|i| committed.lines().nth(i))
        );
    }

    let Some(chromium) = browser() else {
        assert!(
            std::env::var("COAPCC_REQUIRE_BROWSER").is_err(),
            "COAPCC_REQUIRE_BROWSER is set but no Chromium was found"
        );
        eprintln!("skipping the browser check: no chromium on PATH (scripts/test installs it)");
        return;
    };
    // One screenshot per experiment, of its first figure: the page's `figure:target` style
    // shows the figure named in the URL fragment alone.
    for e in ["fasor", "full-backoff", "makarem-rto", "makarem-rate", "betzler", "lim", "makarem-cooja", "firmware"] {
        let text = std::fs::read_to_string(root().join(format!("data/published/{e}.toml"))).unwrap();
        let table: toml::Table = toml::from_str(&text).unwrap();
        let Some(first) = table.get("figure").and_then(|v| v.as_array()).and_then(|a| a.first()) else { continue };
        let id = first["id"].as_str().unwrap();
        let png = out.join(format!("shot-{e}.png"));
        let profile = out.join(format!("chrome-profile-{e}"));
        let url = format!("file://{}#fig-{id}", out.join("index.html").display());
        let status = Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1200,1600",
                "--virtual-time-budget=5000",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--screenshot={}", png.display()))
            .arg(&url)
            .output()
            .unwrap();
        assert!(png.exists(), "no screenshot for {e}: {}", String::from_utf8_lossy(&status.stderr));
        let (coloured, blank) = colourfulness(&png);
        assert!(!blank, "the screenshot of {e} is blank");
        assert!(coloured > 0.002, "the figures of {e} did not render: only {:.4} % coloured pixels", coloured * 100.0);
    }
}

/// The page of the reproduction status and the causes (generated sections), linked from the README.
const STATUS_PAGE: &str = "docs/reproduction-status.md";

const STATUS_BEGIN: &str = "<!-- status:begin";
const STATUS_END: &str = "<!-- status:end -->";

#[test]
fn the_readme_status_table_is_what_the_full_runs_claims_csv_gives() {
    let csv = std::fs::read_to_string(root().join("data/published/claims-full.csv")).unwrap();
    // The committed full run covers exactly the claims of the data files, in order.
    let listed: Vec<String> = csv.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().to_string()).collect();
    assert_eq!(listed, ids("claim"), "data/published/claims-full.csv is stale: rerun `coapcc reproduce all`");
    bless();
    let page = std::fs::read_to_string(root().join(STATUS_PAGE)).unwrap();
    let (a, b) = section(&page, STATUS_BEGIN, STATUS_END);
    assert_eq!(
        page[a..b].trim(),
        status_md(&csv).unwrap().trim(),
        "docs/reproduction-status.md: the reproduction status differs from status.md of data/published/claims-full.csv \
(COAPCC_BLESS_README=1 regenerates it)"
    );
}

const CAUSES_BEGIN: &str = "<!-- causes:begin";
const CAUSES_END: &str = "<!-- causes:end -->";

/// The text between the marker comment starting `begin` (after its `-->`) and `end`, and where
/// it starts and ends in `page`.
fn section(page: &str, begin: &str, end: &str) -> (usize, usize) {
    let at = page.find(begin).unwrap_or_else(|| panic!("no `{begin}` marker"));
    let start = at + page[at..].find("-->").unwrap() + 3;
    let stop = start + page[start..].find(end).unwrap_or_else(|| panic!("no `{end}` marker"));
    (start, stop)
}

/// With `COAPCC_BLESS_README` set, rewrites the generated parts once per test run, from the
/// committed full-run files only: the status page's two sections and the README's scoreboard
/// under `coapcc reproduce all`. The checks then read the files back from disk and compare, as
/// without it.
fn bless() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if std::env::var_os("COAPCC_BLESS_README").is_none() {
        return;
    }
    ONCE.call_once(|| {
        let csv = std::fs::read_to_string(root().join("data/published/claims-full.csv")).unwrap();
        let findings =
            Findings::parse(&std::fs::read_to_string(root().join("data/published/investigations-full.toml")).unwrap())
                .unwrap();
        let path = root().join(STATUS_PAGE);
        let mut page = std::fs::read_to_string(&path).unwrap();
        for (begin, end, body) in [
            (STATUS_BEGIN, STATUS_END, status_md(&csv).unwrap()),
            (CAUSES_BEGIN, CAUSES_END, causes_md(&csv, &findings).unwrap()),
        ] {
            let (a, b) = section(&page, begin, end);
            page = format!("{}\n{}\n{}", &page[..a], body.trim_end(), &page[b..]);
        }
        std::fs::write(&path, page).unwrap();
        let path = root().join("README.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let (a, b) = scoreboard_block(&readme);
        let readme = format!("{}{}{}", &readme[..a], printed_scoreboard(&csv).unwrap(), &readme[b..]);
        let (a, b) = quick_block(&readme);
        let quick = printed_scoreboard(&quick_rows(QUICK_EXAMPLE)).unwrap();
        std::fs::write(&path, format!("{}{}{}", &readme[..a], quick, &readme[b..])).unwrap();
    });
}

/// The experiment of the README's first example, `coapcc reproduce EXPERIMENT --quick`.
const QUICK_EXAMPLE: &str = "makarem-rto";

/// The committed quick run's `claims.csv` (which the quick report test recomputes), its header
/// and the rows of `experiment` only: what `coapcc reproduce EXPERIMENT --quick` writes.
fn quick_rows(experiment: &str) -> String {
    let csv = std::fs::read_to_string(root().join("data/published/claims-quick.csv")).unwrap();
    let mut lines = csv.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for l in lines.filter(|l| l.split(',').next() == Some(experiment)) {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Where the scoreboard of the README's first example, `coapcc reproduce QUICK_EXAMPLE --quick`,
/// starts and ends.
fn quick_block(readme: &str) -> (usize, usize) {
    let command = format!("$ coapcc reproduce {QUICK_EXAMPLE} --quick\n");
    let from = readme.find(&command).expect("the README shows the quick example");
    let report = format!("report: reports/{QUICK_EXAMPLE}/index.html");
    let end = readme[from..].find(&report).expect("the example ends with the report's path");
    (from + command.len(), from + end)
}

/// Where the README's scoreboard under `$ coapcc reproduce all` starts and ends.
fn scoreboard_block(readme: &str) -> (usize, usize) {
    const COMMAND: &str = "```console\n$ coapcc reproduce all\n";
    let from = readme.find(COMMAND).expect("the README shows `coapcc reproduce all`");
    let end = readme[from..].find("report: reports/all/index.html").expect("the block ends with the report's path");
    (from + COMMAND.len(), from + end)
}

#[test]
fn the_readme_section_on_why_claims_differ_is_generated_from_the_full_run() {
    let csv = std::fs::read_to_string(root().join("data/published/claims-full.csv")).unwrap();
    let findings =
        Findings::parse(&std::fs::read_to_string(root().join("data/published/investigations-full.toml")).unwrap())
            .unwrap();
    // Every investigation of the descriptions is in the committed full run's findings.
    for id in investigation_ids() {
        assert!(
            findings.investigations.iter().any(|f| f.id == id),
            "data/published/investigations-full.toml is stale: no `{id}` (rerun `coapcc reproduce all`)"
        );
    }
    let generated = causes_md(&csv, &findings).unwrap();
    bless();
    // Read back from disk (blessed or not) and compared with what the committed files give.
    let page = std::fs::read_to_string(root().join(STATUS_PAGE)).unwrap();
    let (a, b) = section(&page, CAUSES_BEGIN, CAUSES_END);
    assert_eq!(
        page[a..b].trim(),
        generated.trim(),
        "docs/reproduction-status.md: the section on why claims differ is not causes.md of data/published/claims-full.csv and \
data/published/investigations-full.toml (COAPCC_BLESS_README=1 regenerates it)"
    );
}

#[test]
fn the_readme_scoreboard_is_what_coapcc_reproduce_all_prints_for_the_full_run() {
    let csv = std::fs::read_to_string(root().join("data/published/claims-full.csv")).unwrap();
    bless();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let (a, b) = scoreboard_block(&readme);
    assert_eq!(
        &readme[a..b],
        printed_scoreboard(&csv).unwrap(),
        "README.md: the scoreboard under `coapcc reproduce all` is not what data/published/claims-full.csv prints"
    );
}

#[test]
fn the_readme_quick_example_prints_what_the_committed_quick_run_gives() {
    let expected = printed_scoreboard(&quick_rows(QUICK_EXAMPLE)).unwrap();
    bless();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let (a, b) = quick_block(&readme);
    assert_eq!(
        &readme[a..b],
        expected,
        "README.md: the scoreboard under `coapcc reproduce {QUICK_EXAMPLE} --quick` is not what the {QUICK_EXAMPLE} \
rows of data/published/claims-quick.csv print (COAPCC_BLESS_README=1 regenerates it)"
    );
}
