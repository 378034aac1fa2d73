// A template's format spec is Rust's: fill, alignment, sign, `#`, `0`, width, precision and
// trait (`{x:>8}`, `{n:#x}`, `{n:+.3e}`, `{p:p}`), and a width or precision may name a field
// of the variant (`{x:>w$}`, `{x:.p$}`, `{x:w$.p$}`, `{0:>1$}` in a tuple variant).
// `{self}` shows the whole value.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum ReportError {
    #[error("column overflow")]
    #[category(validation)]
    #[message("[{name:>w$}] [{ratio:.p$}] [{ratio:w$.p$}] [{name:*^9}] [{count:08.3}]")]
    #[hint("count {count:#x} {count:#o} {count:b} {ratio:+.1e} {ratio:E}")]
    Overflow { name: String, w: usize, p: usize, ratio: f64, count: u32 },

    #[error("cell {0} does not fit")]
    #[category(validation)]
    #[message("[{0:>1$}] {self}")]
    Cell(&'static str, usize),

    #[error("static text")]
    #[category(internal)]
    #[expose]
    #[message("at {0:p}")]
    At(&'static str),
}

fn main() {
    let overflow = ReportError::Overflow { name: "id".into(), w: 6, p: 2, ratio: 3.14159, count: 42 };
    assert_eq!(overflow.message(), "[    id] [3.14] [  3.14] [***id****] [00000042]");
    assert_eq!(overflow.hint().unwrap(), "count 0x2a 0o52 101010 +3.1e0 3.14159E0");

    let cell = ReportError::Cell("a1", 4);
    assert_eq!(cell.message(), "[  a1] cell a1 does not fit");

    let text: &'static str = "somewhere";
    assert_eq!(ReportError::At(text).message(), format!("at {text:p}"));
}
