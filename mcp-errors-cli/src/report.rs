//! The whole run: per-tool grades, the overall grade, and the two renderings (terminal, JSON).

use std::io::Write;

use anstyle::{AnsiColor, Style};
use serde::Serialize;
use serde_json::Value;

use crate::grade::{self, Probe, Severity};

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
    /// What the schema and annotations alone show.
    pub notes: Vec<String>,
    /// The calls made and their grades.
    pub probes: Vec<Probe>,
}

impl ToolReport {
    /// A tool's report from its probes.
    pub fn new(name: String, called: bool, notes: Vec<String>, probes: Vec<Probe>) -> Self {
        let score = grade::score(&probes);
        ToolReport {
            name,
            called,
            score,
            grade: score.map(grade::letter),
            notes,
            probes,
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
    /// The calls made.
    pub calls: usize,
    /// Per tool, worst first.
    pub tools: Vec<ToolReport>,
}

impl Report {
    /// The report of `tools` (any order).
    pub fn new(server: Value, protocol_version: String, mut tools: Vec<ToolReport>) -> Self {
        let scores: Vec<f64> = tools.iter().filter_map(|t| t.score).collect();
        let score = (!scores.is_empty())
            .then(|| (scores.iter().sum::<f64>() / scores.len() as f64 * 10.0).round() / 10.0);
        tools.sort_by(|a, b| {
            let key = |t: &ToolReport| t.score.unwrap_or(f64::INFINITY);
            key(a).total_cmp(&key(b)).then_with(|| a.name.cmp(&b.name))
        });
        let calls = tools.iter().map(|t| t.probes.len()).sum();
        Report {
            server,
            protocol_version,
            score,
            grade: score.map(grade::letter),
            calls,
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
        let name = self
            .server
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("server");
        let version = self
            .server
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or("");
        let listed = self
            .tools
            .iter()
            .filter(|t| t.name != UNKNOWN_TOOL_ROW)
            .count();
        writeln!(
            out,
            "{bold}mcp-errors check{bold:#}: {name} {version} (protocol {}), {listed} tools, {} calls",
            self.protocol_version, self.calls
        )?;
        writeln!(out)?;
        let width = self
            .tools
            .iter()
            .map(|t| t.name.len())
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
                match tool.worst() {
                    Some((Severity::Info, ..)) | None => {
                        format!("{}, no findings", calls(tool.probes.len()))
                    }
                    Some((_, what, message)) => {
                        format!("{}; worst: {what}: {message}", calls(tool.probes.len()))
                    }
                }
            };
            writeln!(
                out,
                "  {style}{letter} {score}{style:#}  {:<width$}  {summary}",
                tool.name
            )?;
        }
        // The same finding on several calls of a tool is one line, naming the calls.
        let mut findings: Vec<(Severity, &str, &str, Vec<&str>)> = Vec::new();
        for tool in &self.tools {
            for probe in &tool.probes {
                for f in probe
                    .findings
                    .iter()
                    .filter(|f| f.severity != Severity::Info)
                {
                    match findings
                        .iter_mut()
                        .find(|(s, t, m, _)| *s == f.severity && *t == tool.name && *m == f.message)
                    {
                        Some((.., calls)) => calls.push(&probe.description),
                        None => findings.push((
                            f.severity,
                            &tool.name,
                            &f.message,
                            vec![&probe.description],
                        )),
                    }
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
                    "  {style}{label}{style:#}  {tool}: {message} {dim}[{}]{dim:#}",
                    calls.join("; ")
                )?;
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
                writeln!(out, "  {dim}note{dim:#}  {tool}: {note}")?;
            }
        }
        writeln!(out)?;
        match (self.grade, self.score) {
            (Some(g), Some(s)) => {
                let style = colour(Some(g));
                writeln!(
                    out,
                    "{bold}overall{bold:#}: {style}{g} ({s:.1}/100){style:#}"
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
