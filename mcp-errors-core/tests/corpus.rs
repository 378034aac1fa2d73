//! The corpus of real servers' answers (`tests/corpus/<server>/<case>.json` at the workspace
//! root): each raw answer line through `classify_bytes` and `classify`, which must agree, and
//! the outcome through the default policy's first decision, which must be safe.
//!
//! Unsafe is a `Retry` of a call its label says is not idempotent and may have run, or a
//! `Done` for an answer labelled as a failure (`done` is neither its labelled decision nor one
//! of the alternatives, or its text plainly says it failed), flagged as looking like a failure
//! ([`Outcome::looks_like_failure`]) or not. The cases where today's rules decide `Done` on a
//! failure are listed in `tests/corpus/KNOWN_UNSAFE`; a case not listed that is unsafe fails
//! the test, and so does a listed case that has become safe.
//!
//! The category read is [`Outcome::category`], whatever channel the failure came on.
//!
//! The match rates (decisions and categories against the hand labels) are computed and
//! printed, not asserted. With `CORPUS_RESULTS` set to a path, one tab-separated line per case
//! is written there for `scripts/corpus-scores`: id, server, outcome kind, decision, escalation
//! reason, category read, labelled decision, labelled category, `safe` or `unsafe`, `match` or
//! `miss`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_errors_core::Category;
use mcp_errors_core::client::{
    Attempt, Decision, Outcome, RetryPolicy, UnknownCause, classify, classify_bytes,
};
use serde_json::Value;

const MIN_CASES: usize = 300;
const MIN_SERVERS: usize = 16;
const MIN_SDKS: usize = 4;

/// The names serde writes for `Decision`'s variants.
const DECISIONS: [&str; 15] = [
    "done",
    "retry",
    "fix_input",
    "reread_state",
    "reauthenticate",
    "explain_to_user",
    "provide_input",
    "check_state",
    "relist_tools",
    "reinitialize",
    "fix_headers",
    "declare_capabilities",
    "renegotiate",
    "retry_with_state",
    "escalate",
];

struct Labels {
    decision: String,
    alternatives: Vec<String>,
    category: Option<Category>,
    idempotent: bool,
    may_have_run: bool,
    looks_like_failure: bool,
}

struct Case {
    id: String,
    server: String,
    sdk: String,
    answer: Option<String>,
    labels: Labels,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .join("tests")
        .join("corpus")
}

fn string_field<'a>(value: &'a Value, key: &str, id: &str) -> &'a str {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{id}: `{key}` is not a string"))
}

fn bool_field(value: &Value, key: &str, id: &str) -> bool {
    value
        .get(key)
        .and_then(Value::as_bool)
        .unwrap_or_else(|| panic!("{id}: `{key}` is not a bool"))
}

fn decision_name(name: &str, id: &str) -> String {
    assert!(
        DECISIONS.contains(&name),
        "{id}: `{name}` is not a decision"
    );
    name.to_owned()
}

fn read_labels(labels: &Value, id: &str) -> Labels {
    assert!(labels.is_object(), "{id}: no labels");
    let category = match string_field(labels, "category", id) {
        "unknowable" => None,
        name => Some(
            name.parse::<Category>()
                .unwrap_or_else(|_| panic!("{id}: `{name}` is not a category")),
        ),
    };
    let alternatives = labels
        .get("alternatives")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{id}: `alternatives` is not a list"))
        .iter()
        .map(|v| decision_name(v.as_str().expect("an alternative is a string"), id))
        .collect();
    Labels {
        decision: decision_name(string_field(labels, "decision", id), id),
        alternatives,
        category,
        idempotent: bool_field(labels, "idempotent", id),
        may_have_run: bool_field(labels, "may_have_run", id),
        looks_like_failure: bool_field(labels, "looks_like_failure", id),
    }
}

fn read_corpus() -> Vec<Case> {
    let root = corpus_dir();
    let mut cases = Vec::new();
    let mut servers: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/corpus exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_dir())
        .collect();
    servers.sort();
    for dir in servers {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("a server directory")
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        files.sort();
        for file in files {
            let id = file
                .strip_prefix(&root)
                .expect("under the corpus")
                .with_extension("")
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&file).expect("a case file");
            let case: Value = serde_json::from_str(&text).expect("a case is JSON");
            let answer = match case.get("answer") {
                Some(Value::Null) => None,
                Some(Value::String(line)) => Some(line.clone()),
                _ => panic!("{id}: `answer` is neither a string nor null"),
            };
            cases.push(Case {
                server: string_field(&case, "server", &id).to_owned(),
                sdk: string_field(&case, "sdk", &id).to_owned(),
                labels: read_labels(case.get("labels").unwrap_or(&Value::Null), &id),
                answer,
                id,
            });
        }
    }
    cases
}

fn known_unsafe() -> BTreeSet<String> {
    let text = std::fs::read_to_string(corpus_dir().join("KNOWN_UNSAFE")).unwrap_or_default();
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The outcome of a case: a local timeout for no answer, else both classifiers, which must
/// agree.
fn outcome(case: &Case) -> Outcome {
    let Some(line) = &case.answer else {
        return Outcome::Unknown(UnknownCause::Timeout);
    };
    let from_bytes = classify_bytes(line.as_bytes());
    let value: Value = serde_json::from_str(line).expect("an answer line is JSON");
    let from_value = classify(&value);
    assert_eq!(
        from_bytes, from_value,
        "{}: classify_bytes and classify disagree",
        case.id
    );
    from_bytes
}

/// The decision's name as serde writes it, and its escalation reason if any.
fn name_of(decision: &Decision) -> (String, Option<String>) {
    let value = serde_json::to_value(decision).expect("a decision serializes");
    let name = value["decision"].as_str().expect("a decision has a name");
    let reason = value
        .get("reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    (name.to_owned(), reason)
}

fn category_of(outcome: &Outcome) -> Option<Category> {
    outcome.category()
}

/// Why a decision is unsafe, if it is.
fn unsafe_because(case: &Case, outcome: &Outcome, decision: &Decision) -> Option<&'static str> {
    let labels = &case.labels;
    let retries = matches!(
        decision,
        Decision::Retry { .. } | Decision::RetryWithState { .. }
    );
    if retries && !labels.idempotent && labels.may_have_run {
        return Some("retries a call that is not idempotent and may have run");
    }
    // A failure by its labels: `done` is neither the labelled decision nor one as defensible,
    // or the text plainly says it failed.
    let done_defensible =
        labels.decision == "done" || labels.alternatives.iter().any(|a| a == "done");
    let labelled_failure = !done_defensible || labels.looks_like_failure;
    if *decision == Decision::Done && labelled_failure && outcome.is_success() {
        return Some("done on an answer labelled as a failure");
    }
    None
}

#[derive(Default)]
struct Tally {
    cases: usize,
    safe: usize,
    decision_matches: usize,
    with_category: usize,
    category_matches: usize,
}

impl Tally {
    fn add(&mut self, safe: bool, decision_matches: bool, category: Option<bool>) {
        self.cases += 1;
        self.safe += usize::from(safe);
        self.decision_matches += usize::from(decision_matches);
        if let Some(matches) = category {
            self.with_category += 1;
            self.category_matches += usize::from(matches);
        }
    }
}

#[test]
fn every_case_is_classified_alike_and_decided_safely() {
    let cases = read_corpus();
    let known = known_unsafe();
    let policy = RetryPolicy::default();
    let mut results = String::new();
    let mut unexpected = Vec::new();
    let mut now_safe = Vec::new();
    let mut totals = Tally::default();
    let mut by_server: BTreeMap<&str, Tally> = BTreeMap::new();
    for case in &cases {
        let outcome = outcome(case);
        let attempt = Attempt::new(1, Duration::ZERO).idempotent(case.labels.idempotent);
        let decision = policy.decide(&outcome, attempt.with_jitter(1.0));
        let (name, reason) = name_of(&decision);
        let why = unsafe_because(case, &outcome, &decision);
        match (why, known.contains(&case.id)) {
            (Some(why), false) => unexpected.push(format!("{}: {name} {why}", case.id)),
            (None, true) => now_safe.push(case.id.clone()),
            _ => {}
        }
        let labels = &case.labels;
        let decision_matches = labels.decision == name || labels.alternatives.contains(&name);
        let got = category_of(&outcome);
        let category_matches = labels.category.map(|want| got == Some(want));
        totals.add(why.is_none(), decision_matches, category_matches);
        by_server.entry(&case.server).or_default().add(
            why.is_none(),
            decision_matches,
            category_matches,
        );
        let _ = writeln!(
            results,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            case.id,
            case.server,
            outcome.kind(),
            name,
            reason.as_deref().unwrap_or("-"),
            got.map_or("-", Category::as_str),
            labels.decision,
            labels.category.map_or("unknowable", Category::as_str),
            if why.is_none() { "safe" } else { "unsafe" },
            if decision_matches { "match" } else { "miss" },
        );
    }
    if let Some(path) = std::env::var_os("CORPUS_RESULTS") {
        std::fs::write(path, &results).expect("CORPUS_RESULTS is writable");
    }
    for (server, tally) in &by_server {
        println!(
            "{server}: {} cases, {} safe, {} decisions match, {}/{} categories match",
            tally.cases,
            tally.safe,
            tally.decision_matches,
            tally.category_matches,
            tally.with_category
        );
    }
    println!(
        "total: {} cases, {} safe, {} decisions match, {}/{} categories match",
        totals.cases,
        totals.safe,
        totals.decision_matches,
        totals.category_matches,
        totals.with_category
    );
    assert!(
        unexpected.is_empty(),
        "unsafe decisions:\n{}",
        unexpected.join("\n")
    );
    assert!(
        now_safe.is_empty(),
        "safe now, remove from tests/corpus/KNOWN_UNSAFE:\n{}",
        now_safe.join("\n")
    );
}

#[test]
fn the_corpus_keeps_its_minimums() {
    let cases = read_corpus();
    let servers: BTreeSet<_> = cases.iter().map(|case| case.server.as_str()).collect();
    let sdks: BTreeSet<_> = cases.iter().map(|case| case.sdk.as_str()).collect();
    assert!(
        cases.len() >= MIN_CASES,
        "{} cases, fewer than {MIN_CASES}",
        cases.len()
    );
    assert!(
        servers.len() >= MIN_SERVERS,
        "{} servers, fewer than {MIN_SERVERS}",
        servers.len()
    );
    assert!(
        sdks.len() >= MIN_SDKS,
        "SDKs {sdks:?}, fewer than {MIN_SDKS}"
    );
}

#[test]
fn every_known_unsafe_case_exists() {
    let ids: BTreeSet<_> = read_corpus().into_iter().map(|case| case.id).collect();
    let missing: Vec<_> = known_unsafe()
        .into_iter()
        .filter(|id| !ids.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "KNOWN_UNSAFE names cases that do not exist: {missing:?}"
    );
}

/// What reading the corpus costs: every answer line through `classify_bytes`, then also the
/// default policy's first decision (which reads a success's text for the looks-like-failure
/// rules), each timed over many rounds. Run in release, alone:
/// `cargo test --release -p mcp-errors-core --features client --test corpus -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn what_the_corpus_costs_through_classify_bytes() {
    let lines: Vec<(Vec<u8>, bool)> = read_corpus()
        .into_iter()
        .filter_map(|case| Some((case.answer?.into_bytes(), case.labels.idempotent)))
        .collect();
    let policy = RetryPolicy::default();
    let rounds = 2_000;
    let per_answer = |f: &dyn Fn(&[u8], bool)| {
        let mut samples: Vec<f64> = (0..5)
            .map(|_| {
                let start = std::time::Instant::now();
                for _ in 0..rounds {
                    for (line, idempotent) in &lines {
                        f(std::hint::black_box(line), *idempotent);
                    }
                }
                start.elapsed().as_nanos() as f64 / (rounds * lines.len()) as f64
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        samples
    };
    let classify_only = per_answer(&|line, _| {
        std::hint::black_box(classify_bytes(line));
    });
    let with_decision = per_answer(&|line, idempotent| {
        let outcome = classify_bytes(line);
        let attempt = Attempt::new(1, Duration::ZERO).idempotent(idempotent);
        std::hint::black_box(policy.decide(&outcome, attempt.with_jitter(1.0)));
        std::hint::black_box(outcome.looks_like_failure());
    });
    println!(
        "{} answers, {rounds} rounds x 5; ns per answer, sorted: classify_bytes {classify_only:.0?}; \
         classify_bytes + decide + looks_like_failure {with_decision:.0?}",
        lines.len()
    );
}
