//! `search_docs`: an in-memory policy knowledge base.

use mcp_errors_core::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::faults::{Fault, Faults};

/// The longest `keywords` accepted, in characters: a search is a few words, and an argument
/// the server keeps must not grow it without bound.
pub const MAX_KEYWORDS_CHARS: usize = 200;

/// The departments of the knowledge base.
pub const DEPARTMENTS: [&str; 4] = ["finance", "hr", "legal", "engineering"];

struct Document {
    department: &'static str,
    id: &'static str,
    title: &'static str,
    body: &'static str,
}

const DOCUMENTS: [Document; 8] = [
    Document {
        department: "finance",
        id: "FIN-001",
        title: "Travel expenses",
        body: "Economy class for flights under six hours; hotels up to 180 EUR a night; \
               submit receipts within 30 days of travel.",
    },
    Document {
        department: "finance",
        id: "FIN-002",
        title: "Purchase approvals",
        body: "Purchases above 5000 EUR need the approval of two budget owners.",
    },
    Document {
        department: "hr",
        id: "HR-001",
        title: "Parental leave",
        body: "Sixteen weeks of paid parental leave, to be taken within the child's first year.",
    },
    Document {
        department: "hr",
        id: "HR-002",
        title: "Remote work",
        body: "Up to three remote days a week; travel to the office is not an expense.",
    },
    Document {
        department: "legal",
        id: "LEG-001",
        title: "Signing authority",
        body: "Contracts above 50000 EUR are signed by two directors.",
    },
    Document {
        department: "legal",
        id: "LEG-002",
        title: "Data retention",
        body: "Customer records are kept for six years after the contract ends, then deleted.",
    },
    Document {
        department: "engineering",
        id: "ENG-001",
        title: "On-call rotation",
        body: "One week on call per engineer per quarter; pages are answered within 15 minutes.",
    },
    Document {
        department: "engineering",
        id: "ENG-002",
        title: "Code review",
        body: "Every change is reviewed by one engineer who did not write it.",
    },
];

/// Arguments of `search_docs`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// The department whose policies to search: finance, hr, legal or engineering.
    pub department: String,
    /// Words to look for in the policies' titles and text (any of them matches); at most 200
    /// characters.
    #[schemars(length(max = 200))]
    pub keywords: String,
}

/// One matching document.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct DocHit {
    /// The document's id, e.g. `FIN-001`.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its text.
    pub text: String,
}

/// What `search_docs` returns; `hits` is empty when nothing matched (and the result's `_meta`
/// then says so under `rs.mcp-errors/empty`).
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SearchHits {
    /// The department searched.
    pub department: String,
    /// The keywords searched for.
    pub keywords: String,
    /// How many documents matched.
    pub total: u32,
    /// The matching documents, best first.
    pub hits: Vec<DocHit>,
}

/// How `search_docs` fails.
#[derive(Debug, thiserror::Error, ToolError)]
pub enum SearchError {
    #[error("unknown department \"{department}\"")]
    #[category(validation)]
    #[hint("use one of: {allowed}")]
    UnknownDepartment {
        #[detail]
        department: String,
        #[detail]
        allowed: String,
    },

    #[error("keywords of {length} characters: at most {max} are searched")]
    #[category(validation)]
    #[hint("search with a few words")]
    KeywordsTooLong {
        #[detail]
        length: usize,
        #[detail]
        max: usize,
    },

    #[error("the policy knowledge base is unavailable")]
    #[category(transient)]
    #[hint("nothing was searched; retry the same search in a moment")]
    BackendDown,

    #[error("the access token of the knowledge base has expired")]
    #[category(unauthenticated)]
    #[hint("sign in again to get a fresh token, then repeat the search")]
    TokenExpired,
}

/// Searches `args.department` for any of `args.keywords`.
pub fn search(args: &SearchArgs, faults: &Faults) -> Result<SearchHits, SearchError> {
    if faults.trip(Fault::TokenExpired) {
        return Err(SearchError::TokenExpired);
    }
    let department = args.department.trim().to_lowercase();
    if !DEPARTMENTS.contains(&department.as_str()) {
        return Err(SearchError::UnknownDepartment {
            department: args.department.clone(),
            allowed: DEPARTMENTS.join(", "),
        });
    }
    let length = args.keywords.chars().count();
    if length > MAX_KEYWORDS_CHARS {
        return Err(SearchError::KeywordsTooLong {
            length,
            max: MAX_KEYWORDS_CHARS,
        });
    }
    if faults.trip(Fault::SearchDown) {
        return Err(SearchError::BackendDown);
    }
    let words: Vec<String> = args
        .keywords
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut scored: Vec<(usize, &Document)> = DOCUMENTS
        .iter()
        .filter(|doc| doc.department == department)
        .map(|doc| {
            let haystack = format!("{} {}", doc.title, doc.body).to_lowercase();
            let score = words
                .iter()
                .filter(|w| haystack.contains(w.as_str()))
                .count();
            (score, doc)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(b.1.id)));
    let hits: Vec<DocHit> = scored
        .into_iter()
        .map(|(_, doc)| DocHit {
            id: doc.id.to_owned(),
            title: doc.title.to_owned(),
            text: doc.body.to_owned(),
        })
        .collect();
    Ok(SearchHits {
        department,
        keywords: args.keywords.clone(),
        total: hits.len() as u32,
        hits,
    })
}
