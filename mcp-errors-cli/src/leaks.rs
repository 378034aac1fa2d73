//! What should never reach a model: stack traces, file paths, connection strings, internal
//! host names, environment values.

use std::sync::OnceLock;

use regex::Regex;

/// One leak found in a text.
#[derive(Clone, Debug, PartialEq)]
pub struct Leak {
    /// `stack trace`, `file path`, `connection string`, `internal host` or `environment value`.
    pub kind: &'static str,
    /// What matched, cut to 80 characters.
    pub excerpt: String,
}

struct Rules {
    rules: Vec<(&'static str, Regex)>,
}

fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| {
        let rule = |kind, pattern: &str| (kind, Regex::new(pattern).expect("a valid pattern"));
        Rules {
            rules: vec![
                rule("stack trace", r"Traceback \(most recent call last\)"),
                rule("stack trace", r#"File "[^"]+", line \d+"#),
                rule("stack trace", r"\bat (?:async )?[\w$.<>\[\] ]+ \((?:file://)?[^()\s]+:\d+:\d+\)"),
                rule("stack trace", r"(?m)^\s*at (?:file://)?/[^\s:]+:\d+:\d+"),
                rule("stack trace", r"node:internal/[\w/]+"),
                rule("stack trace", r"panicked at [^\s:]+:\d+"),
                rule("stack trace", r"stack backtrace:"),
                rule("stack trace", r"\bat [a-z][\w]*(?:\.[\w$]+)+\([\w]+\.(?:java|kt|scala):\d+\)"),
                rule("stack trace", r"goroutine \d+ \["),
                rule(
                    "connection string",
                    r"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|jdbc:[a-z]+)://[^\s'\x22]+",
                ),
                rule("connection string", r"(?i)\b(?:password|pwd)=[^;\s'\x22]+"),
                rule("connection string", r"\b[a-z][a-z0-9+.-]*://[^/\s:@'\x22]+:[^/\s@'\x22]+@[^\s'\x22]+"),
                rule(
                    "internal host",
                    r"(?i)\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:internal|local|localdomain|lan|corp|intranet|cluster\.local)\b",
                ),
                rule(
                    "internal host",
                    r"\b(?:10\.\d{1,3}|192\.168|172\.(?:1[6-9]|2\d|3[01]))\.\d{1,3}\.\d{1,3}\b",
                ),
                rule(
                    "file path",
                    r"(?:^|[\s'\x22(=:\[])(/(?:home|root|usr|var|opt|srv|app|etc|tmp|Users|private|mnt|workspace|build|builds|proc)/[^\s'\x22),:\]]+)",
                ),
                rule(
                    "file path",
                    r"(?:^|[\s'\x22(=:\[])(/(?:[^\s'\x22),:\]/]+/)*(?:site-packages|dist-packages|node_modules|\.venv|\.cargo|lib/python[\d.]+)/[^\s'\x22),:\]]+)",
                ),
                rule("file path", r"\b[A-Za-z]:\\(?:Users|Program Files|Windows|inetpub|ProgramData)\\[^\s'\x22]*"),
                rule("environment value", r"(?m)\b(?:PATH|HOME|PWD|SHELL|USER)=/?[^\s'\x22]*"),
            ],
        }
    })
}

fn excerpt(text: &str) -> String {
    let text = text.trim_end_matches(['.', ',', ';', ':', ')', ']', '\'', '"']);
    let mut out: String = text.chars().take(80).collect();
    if text.chars().count() > 80 {
        out.push('…');
    }
    out
}

/// The environment values a leak would show: the canary this check sets, and the values of
/// its own environment whose names say they are secret (8 characters or more).
pub fn secret_values(canary: &str) -> Vec<String> {
    let mut values = vec![canary.to_owned()];
    for (name, value) in std::env::vars() {
        let upper = name.to_ascii_uppercase();
        let secret = [
            "KEY",
            "TOKEN",
            "SECRET",
            "PASSWORD",
            "PASSWD",
            "CREDENTIAL",
            "AUTH",
        ]
        .iter()
        .any(|word| upper.contains(word));
        if secret && value.len() >= 8 {
            values.push(value);
        }
    }
    values
}

/// The directories of this machine a path under which is a leak wherever it sits: the
/// working directory (a stdio server's too) and `HOME`, each at least two levels deep, so that
/// `/` or `/root` alone matches nothing the rules do not.
pub fn local_dirs() -> Vec<String> {
    let mut dirs: Vec<String> = Vec::new();
    let candidates = [
        std::env::current_dir().ok(),
        std::env::var_os("HOME").map(std::path::PathBuf::from),
    ];
    for dir in candidates.into_iter().flatten() {
        let Some(dir) = dir.to_str().map(|d| d.trim_end_matches('/').to_owned()) else {
            continue;
        };
        let deep = dir.starts_with('/') && dir.matches('/').count() >= 2;
        if deep && !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// A character that ends a path in running text.
fn ends_path(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\'' | '"' | ')' | ',' | ':' | ']')
}

/// The first path in `text` that is `dir` or lies under it: `dir` preceded by nothing or a
/// delimiter and followed by `/`, a delimiter or the end, up to where the path ends.
fn under_dir<'t>(text: &'t str, dir: &str) -> Option<&'t str> {
    for (at, _) in text.match_indices(dir) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| !ends_path(c) && !matches!(c, '(' | '=' | '[')) {
            continue;
        }
        let rest = &text[at + dir.len()..];
        if rest
            .chars()
            .next()
            .is_some_and(|c| c != '/' && !ends_path(c))
        {
            continue;
        }
        let end = rest.find(ends_path).unwrap_or(rest.len());
        return Some(&text[at..at + dir.len() + end]);
    }
    None
}

/// The leaks in `text`. A path that is `local` or under one of `local` (see [`local_dirs`])
/// is a file path wherever it is. A match that is part of `sent` (the arguments of the call,
/// as JSON) or of `listed` (what the server published in its tool list) is the server
/// repeating what the model already has, not a leak.
pub fn scan(
    text: &str,
    sent: &str,
    listed: &str,
    secrets: &[String],
    local: &[String],
) -> Vec<Leak> {
    let mut leaks: Vec<Leak> = Vec::new();
    for (kind, regex) in &rules().rules {
        for found in regex.captures_iter(text) {
            let matched = found
                .get(1)
                .or_else(|| found.get(0))
                .map_or("", |m| m.as_str());
            if matched.is_empty() || sent.contains(matched) || listed.contains(matched) {
                continue;
            }
            if leaks.iter().any(|l| l.kind == *kind) {
                break;
            }
            leaks.push(Leak {
                kind,
                excerpt: excerpt(matched),
            });
        }
    }
    if !leaks.iter().any(|l| l.kind == "file path") {
        let found = local
            .iter()
            .filter_map(|dir| under_dir(text, dir))
            .find(|path| !sent.contains(path) && !listed.contains(path));
        if let Some(path) = found {
            leaks.push(Leak {
                kind: "file path",
                excerpt: excerpt(path),
            });
        }
    }
    for secret in secrets {
        if !secret.is_empty() && text.contains(secret.as_str()) && !sent.contains(secret.as_str()) {
            leaks.push(Leak {
                kind: "environment value",
                excerpt: excerpt(&format!("{}…", secret.chars().take(4).collect::<String>())),
            });
            break;
        }
    }
    leaks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        scan(text, "", "", &["s3cr3t-canary".into()], &[])
            .into_iter()
            .map(|l| l.kind)
            .collect()
    }

    #[test]
    fn finds_each_kind() {
        assert_eq!(
            kinds("Traceback (most recent call last):\n  File \"x.py\", line 3"),
            ["stack trace"]
        );
        assert_eq!(
            kinds("TypeError: x\n    at handler (/srv/app/index.js:10:5)"),
            ["stack trace", "file path"]
        );
        assert_eq!(
            kinds("could not connect to postgres://u:p@db:5432/prod"),
            ["connection string"]
        );
        assert_eq!(
            kinds("upstream orders.svc.cluster.local refused"),
            ["internal host"]
        );
        assert_eq!(kinds("upstream 10.2.3.4 refused"), ["internal host"]);
        assert_eq!(
            kinds("open /home/deploy/config.yaml: denied"),
            ["file path"]
        );
        assert_eq!(kinds("token s3cr3t-canary rejected"), ["environment value"]);
        assert_eq!(
            kinds("env: PATH=/usr/bin:/bin"),
            ["file path", "environment value"]
        );
    }

    #[test]
    fn clean_text_and_echoes_are_not_leaks() {
        assert!(kinds("Error INVALID_ARGUMENTS: argument `name`: expected a string.").is_empty());
        assert!(kinds("see https://example.com/docs at 10:30").is_empty());
        assert!(scan("no file /tmp/x/y", "{\"path\":\"/tmp/x/y\"}", "", &[], &[]).is_empty());
        assert!(kinds("GET /api/v1/orders/7 returned 404").is_empty());
    }

    #[test]
    fn a_path_inside_an_installed_package_is_a_leak_under_any_root() {
        assert_eq!(
            kinds(
                "No time zone found with key /work/app/.venv/lib/python3.11/site-packages/tzdata/zoneinfo/x"
            ),
            ["file path"]
        );
        assert_eq!(
            kinds("Cannot find module '/opt2/svc/node_modules/left-pad/index.js'"),
            ["file path"]
        );
    }

    #[test]
    fn a_path_under_the_checkers_own_directories_is_a_leak() {
        let local = ["/work/main".to_owned()];
        let leaks = scan("not a git repository: /work/main", "", "", &[], &local);
        assert_eq!(leaks.len(), 1);
        assert_eq!(leaks[0].excerpt, "/work/main");
        let leaks = scan("open '/work/main/data/x.db' failed", "", "", &[], &local);
        assert_eq!(leaks[0].excerpt, "/work/main/data/x.db");
        // Another directory that shares the prefix, or a path the caller sent, is not.
        assert!(scan("see /work/mainframe/x", "", "", &[], &local).is_empty());
        assert!(scan("x/work/main/y", "", "", &[], &local).is_empty());
        let sent = r#"{"repo_path":"/work/main"}"#;
        assert!(scan("not a git repository: /work/main", sent, "", &[], &local).is_empty());
    }
}
