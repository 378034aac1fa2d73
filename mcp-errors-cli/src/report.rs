//! The whole run: per-tool grades, the overall grade, and the two renderings (terminal, JSON).

use std::io::Write;

use anstyle::{AnsiColor, Style};
use serde::Serialize;
use serde_json::Value;

use crate::finding::{Finding, Kind, Severity};
use crate::grade::channel::UnknownToolReading;
use crate::grade::{self, Probe};
use crate::printable::printable;

/// A grade on fewer calls than this is provisional: one answer is not yet how a server fails.
pub const PROVISIONAL_BELOW: usize = 3;

/// One tool's part of the report.
#[derive(Clone, Debug, Serialize)]
pub struct ToolReport {
    /// The tool's name (`(unknown tool)` for the server-wide provocation).
    pub name: String,
    /// Whether the check called it.
    pub called: bool,
    /// The score, 0 to 100, when anything was graded.
    pub score: Option<f64>,
    /// The letter for the score.
    pub grade: Option<char>,
    /// Whether the grade rests on fewer than three calls (the unknown-tool row, one call by
    /// design, never is).
    pub provisional: bool,
    /// What the schema and annotations alone show.
    pub notes: Vec<String>,
    /// What the listing alone shows that costs the tool its whole score: its name listed more
    /// than once.
    pub findings: Vec<Finding>,
    /// The calls made and their grades.
    pub probes: Vec<Probe>,
}

impl ToolReport {
    /// A tool's report from its probes.
    pub fn new(name: String, called: bool, notes: Vec<String>, probes: Vec<Probe>) -> Self {
        let score = grade::score(&probes);
        ToolReport {
            provisional: score.is_some()
                && probes.len() < PROVISIONAL_BELOW
                && name != UNKNOWN_TOOL_ROW,
            name,
            called,
            score,
            grade: score.map(grade::letter),
            notes,
            findings: Vec::new(),
            probes,
        }
    }

    /// The report of a tool whose listing alone fails it: 0, not called.
    pub fn failed_by_listing(name: String, notes: Vec<String>, findings: Vec<Finding>) -> Self {
        ToolReport {
            name,
            called: false,
            score: Some(0.0),
            grade: Some(grade::letter(0.0)),
            provisional: false,
            notes,
            findings,
            probes: Vec::new(),
        }
    }

    fn worst(&self) -> Option<(Severity, String, String)> {
        self.probes
            .iter()
            .flat_map(|p| {
                p.findings
                    .iter()
                    .map(move |f| (f.severity, p.description.clone(), f.message.clone()))
            })
            .min_by_key(|(s, _, _)| *s)
    }
}

/// The largest failure the check saw.
#[derive(Clone, Debug, Serialize)]
pub struct LargestFailure {
    /// The tool.
    pub tool: String,
    /// The call's description.
    pub call: String,
    /// The size of the whole response as it came, in bytes.
    pub bytes: usize,
}

/// The report of one run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `serverInfo` of the server.
    pub server: Value,
    /// The protocol version it chose.
    pub protocol_version: String,
    /// The overall score, 0 to 100: the mean of the graded tools' scores, the unknown-tool
    /// provocation counted as one more.
    pub score: Option<f64>,
    /// The letter for the overall score.
    pub grade: Option<char>,
    /// The calls made: what the overall grade rests on.
    pub calls: usize,
    /// Whether the overall grade rests on fewer than three calls.
    pub provisional: bool,
    /// Which answer to an unknown tool was taken as right.
    pub unknown_tool: UnknownToolReading,
    /// The largest failure seen, `_meta` and `structuredContent` included.
    pub largest_failure: Option<LargestFailure>,
    /// Per tool, worst first.
    pub tools: Vec<ToolReport>,
}

impl Report {
    /// The report of `tools` (any order).
    pub fn new(
        server: Value,
        protocol_version: String,
        unknown_tool: UnknownToolReading,
        mut tools: Vec<ToolReport>,
    ) -> Self {
        let scores: Vec<f64> = tools.iter().filter_map(|t| t.score).collect();
        let score = (!scores.is_empty())
            .then(|| (scores.iter().sum::<f64>() / scores.len() as f64 * 10.0).round() / 10.0);
        tools.sort_by(|a, b| {
            let key = |t: &ToolReport| t.score.unwrap_or(f64::INFINITY);
            key(a).total_cmp(&key(b)).then_with(|| a.name.cmp(&b.name))
        });
        let calls = tools.iter().map(|t| t.probes.len()).sum();
        let largest_failure = tools
            .iter()
            .flat_map(|t| t.probes.iter().map(move |p| (t, p)))
            .filter(|(_, p)| p.failed)
            .max_by_key(|(_, p)| p.bytes)
            .map(|(t, p)| LargestFailure {
                tool: t.name.clone(),
                call: p.description.clone(),
                bytes: p.bytes,
            });
        Report {
            server,
            protocol_version,
            score,
            grade: score.map(grade::letter),
            calls,
            provisional: score.is_some() && calls < PROVISIONAL_BELOW,
            unknown_tool,
            largest_failure,
            tools,
        }
    }

    /// Writes the terminal report. `anstream` drops the colours when `out` is no terminal or
    /// `NO_COLOR` is set.
    pub fn render(&self, out: &mut impl Write) -> std::io::Result<()> {
        let bold = Style::new().bold();
        let dim = Style::new().dimmed();
        let colour = |grade: Option<char>| {
            let c = match grade {
                Some('A') => AnsiColor::Green,
                Some('B') | Some('C') => AnsiColor::Yellow,
                Some(_) => AnsiColor::Red,
                None => return dim,
            };
            Style::new().fg_color(Some(c.into())).bold()
        };
        let severity = |s: Severity| match s {
            Severity::Fail => (
                "FAIL",
                Style::new().fg_color(Some(AnsiColor::Red.into())).bold(),
            ),
            Severity::Warn => (
                "warn",
                Style::new().fg_color(Some(AnsiColor::Yellow.into())),
            ),
            Severity::Info => ("info", dim),
        };
        let field = |key: &str| {
            printable(self.server.get(key).and_then(Value::as_str).unwrap_or("")).into_owned()
        };
        let (name, version) = (field("name"), field("version"));
        let name = if name.is_empty() {
            "server".into()
        } else {
            name
        };
        let listed = self
            .tools
            .iter()
            .filter(|t| t.name != UNKNOWN_TOOL_ROW)
            .count();
        writeln!(
            out,
            "{bold}mcp-errors check{bold:#}: {name} {version} (protocol {}), {listed} tools, {} calls",
            printable(&self.protocol_version),
            self.calls
        )?;
        writeln!(
            out,
            "  {dim}an unknown tool's answer is right as {}{dim:#}",
            self.unknown_tool.describe()
        )?;
        writeln!(out)?;
        let width = self
            .tools
            .iter()
            .map(|t| printable(&t.name).chars().count())
            .max()
            .unwrap_or(4)
            .min(40);
        for tool in &self.tools {
            let style = colour(tool.grade);
            let (letter, score) = match (tool.grade, tool.score) {
                (Some(g), Some(s)) => (g.to_string(), format!("{s:>5.1}")),
                _ => ("-".into(), "    -".into()),
            };
            let summary = if !tool.called {
                tool.notes.first().cloned().unwrap_or_default()
            } else if tool.probes.is_empty() {
                "no arguments: nothing to provoke".into()
            } else {
                let on = if tool.provisional {
                    format!("{}, provisional", calls(tool.probes.len()))
                } else {
                    calls(tool.probes.len())
                };
                match tool.worst() {
                    Some((Severity::Info, ..)) | None => format!("{on}, no findings"),
                    Some((_, what, message)) => format!("{on}; worst: {what}: {message}"),
                }
            };
            writeln!(
                out,
                "  {style}{letter} {score}{style:#}  {:<width$}  {}",
                printable(&tool.name),
                printable(&summary)
            )?;
        }
        // The same finding on several calls of a tool is one line, naming the calls.
        let mut findings: Vec<(Severity, &str, &str, Vec<&str>)> = Vec::new();
        let mut kinds: Vec<(Severity, Kind)> = Vec::new();
        for tool in &self.tools {
            let listing = tool.findings.iter().map(|f| (f, LISTING));
            let probes = tool
                .probes
                .iter()
                .flat_map(|p| p.findings.iter().map(move |f| (f, p.description.as_str())));
            for (f, call) in listing
                .chain(probes)
                .filter(|(f, _)| f.severity != Severity::Info)
            {
                match kinds.iter_mut().find(|(_, k)| *k == f.kind) {
                    Some((s, _)) => *s = (*s).min(f.severity),
                    None => kinds.push((f.severity, f.kind)),
                }
                match findings
                    .iter_mut()
                    .find(|(s, t, m, _)| *s == f.severity && *t == tool.name && *m == f.message)
                {
                    Some((.., calls)) => calls.push(call),
                    None => findings.push((f.severity, &tool.name, &f.message, vec![call])),
                }
            }
        }
        findings.sort_by_key(|(s, ..)| *s);
        if !findings.is_empty() {
            writeln!(out)?;
            writeln!(out, "{bold}Findings, worst first{bold:#}")?;
            for (s, tool, message, calls) in findings {
                let (label, style) = severity(s);
                writeln!(
                    out,
                    "  {style}{label}{style:#}  {}: {} {dim}[{}]{dim:#}",
                    printable(tool),
                    printable(message),
                    printable(&calls.join("; "))
                )?;
            }
        }
        // One line per kind of finding, worst first: what to change, and the page showing how.
        kinds.sort_by_key(|(s, _)| *s);
        if !kinds.is_empty() {
            writeln!(out)?;
            writeln!(out, "{bold}How to fix{bold:#}")?;
            for (_, kind) in kinds {
                let (fix, docs) = kind.fix();
                writeln!(out, "  {}: {fix} {dim}({docs}){dim:#}", kind.label())?;
            }
        }
        let notes: Vec<(&str, &str)> = self
            .tools
            .iter()
            .flat_map(|t| {
                t.notes
                    .iter()
                    .skip(usize::from(!t.called))
                    .map(move |n| (t.name.as_str(), n.as_str()))
            })
            .collect();
        if !notes.is_empty() {
            writeln!(out)?;
            writeln!(out, "{bold}From the schemas and annotations{bold:#}")?;
            for (tool, note) in notes {
                writeln!(
                    out,
                    "  {dim}note{dim:#}  {}: {}",
                    printable(tool),
                    printable(note)
                )?;
            }
        }
        if let Some(largest) = &self.largest_failure {
            writeln!(out)?;
            writeln!(
                out,
                "{bold}largest failure{bold:#}: {} bytes, {}: {}",
                largest.bytes,
                printable(&largest.tool),
                printable(&largest.call)
            )?;
        }
        writeln!(out)?;
        match (self.grade, self.score) {
            (Some(g), Some(s)) => {
                let style = colour(Some(g));
                let on = if self.provisional {
                    format!(
                        "on {}: provisional, fewer than {PROVISIONAL_BELOW} calls",
                        calls(self.calls)
                    )
                } else {
                    format!("on {}", calls(self.calls))
                };
                writeln!(
                    out,
                    "{bold}overall{bold:#}: {style}{g} ({s:.1}/100){style:#} {on}"
                )?;
            }
            _ => writeln!(out, "{bold}overall{bold:#}: nothing graded")?,
        }
        Ok(())
    }
}

fn calls(n: usize) -> String {
    if n == 1 {
        "1 call".into()
    } else {
        format!("{n} calls")
    }
}

/// The name of the row for the unknown-tool provocation.
pub const UNKNOWN_TOOL_ROW: &str = "(unknown tool)";

/// Where a finding of the listing alone is said to come from.
const LISTING: &str = "the tool list";

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::grade::Check;
    use crate::probes::Provocation;

    fn probe(findings: Vec<Finding>) -> Probe {
        Probe {
            provocation: Provocation::NoArguments,
            description: Provocation::NoArguments.describe(),
            outcome: "protocol_error -32603".into(),
            failed: true,
            elapsed_ms: 1,
            bytes: 60,
            text: "Internal error".into(),
            checks: vec![Check {
                name: "channel",
                weight: 3,
                earned: 0.0,
            }],
            findings,
        }
    }

    fn rendered(report: &Report) -> String {
        let mut out = Vec::new();
        report.render(&mut out).unwrap();
        anstream::adapter::strip_str(&String::from_utf8(out).unwrap()).to_string()
    }

    #[test]
    fn a_grade_on_fewer_than_three_calls_is_provisional() {
        let one = ToolReport::new("t".into(), true, Vec::new(), vec![probe(Vec::new())]);
        let three = ToolReport::new(
            "u".into(),
            true,
            Vec::new(),
            vec![probe(Vec::new()), probe(Vec::new()), probe(Vec::new())],
        );
        assert!(one.provisional && !three.provisional);
        let report = Report::new(
            json!({"name": "s"}),
            "2025-11-25".into(),
            UnknownToolReading::Either,
            vec![one.clone()],
        );
        assert!(report.provisional);
        assert_eq!(serde_json::to_value(&report).unwrap()["provisional"], true);
        let text = rendered(&report);
        assert!(text.contains("1 call, provisional"), "{text}");
        assert!(
            text.contains("F (0.0/100) on 1 call: provisional, fewer than 3 calls"),
            "{text}"
        );
        let settled = Report::new(
            json!({"name": "s"}),
            "2025-11-25".into(),
            UnknownToolReading::Either,
            vec![one, three],
        );
        assert!(!settled.provisional);
        assert!(rendered(&settled).contains("on 4 calls\n"));
    }

    #[test]
    fn each_kind_of_finding_gets_one_line_of_how_to_fix() {
        let finding = |kind, message: &str| Finding::new(Severity::Fail, kind, message);
        let tool = ToolReport::new(
            "t".into(),
            true,
            Vec::new(),
            vec![
                probe(vec![finding(Kind::InternalError, "-32603 once")]),
                probe(vec![finding(Kind::InternalError, "-32603 again")]),
                probe(vec![finding(Kind::Leak, "a stack trace")]),
            ],
        );
        let report = Report::new(
            json!({"name": "s"}),
            "2025-11-25".into(),
            UnknownToolReading::Protocol,
            vec![tool],
        );
        let text = rendered(&report);
        let fixes: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "How to fix")
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert_eq!(fixes.len(), 2, "{text}");
        assert!(
            fixes[0].starts_with("  internal_error: keep -32603"),
            "{text}"
        );
        assert!(
            fixes.iter().all(|l| l.contains(concat!(
                "(",
                env!("CARGO_PKG_REPOSITORY"),
                "/blob/main/"
            ))),
            "{text}"
        );
        assert!(text.contains("right as only JSON-RPC -32602 (--unknown-tool protocol)"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["unknown_tool"], "protocol");
        assert_eq!(json["tools"][0]["probes"][2]["findings"][0]["kind"], "leak");
    }
}
