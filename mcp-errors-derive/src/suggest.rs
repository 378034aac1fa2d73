//! "Did you mean" for a mistyped name.

/// The closest known name, if one is close enough to be a likely typo.
pub fn did_you_mean<'a>(wanted: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|candidate| (strsim::jaro_winkler(wanted, candidate), *candidate))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let names = ["validation", "transient"];
        assert_eq!(did_you_mean("validaton", &names), Some("validation"));
        assert_eq!(did_you_mean("zzz", &names), None);
    }
}
