//! The attribute language's reference: each file under `tests/ui/pass` shows a feature
//! working, each under `tests/ui/fail` a rule and the message a user gets.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/*.rs");
}
