// A type with a `#[sensitive]` field gets its `Debug` from `ToolError` (so `Debug` is not in
// its `#[derive]`): the `Debug` a `#[derive(Debug)]` writes, with the sensitive value printed
// as `<redacted>`. A field of a generic type gets the bound `Debug` unless it is sensitive, so
// a sensitive `S` need not be `Debug` at all.
use mcp_errors_core::ToolError;

struct Key(&'static str); // no `Debug`, no `Display`

#[derive(thiserror::Error, ToolError)]
enum VaultError<K, S> {
    #[error("no secret under this key")]
    #[category(not_found)]
    Missing { key: K, #[sensitive] secret: S },

    #[error("sealed")]
    #[category(unauthenticated)]
    Sealed(u32, #[sensitive] S),

    #[error("vault down")]
    #[category(transient)]
    Down,
}

fn main() {
    let missing: VaultError<u32, Key> = VaultError::Missing { key: 7, secret: Key("k-1") };
    assert_eq!(format!("{missing:?}"), "Missing { key: 7, secret: <redacted> }");
    let sealed: VaultError<u32, Key> = VaultError::Sealed(3, Key("k-2"));
    assert_eq!(format!("{sealed:?}"), "Sealed(3, <redacted>)");
    assert_eq!(format!("{:?}", VaultError::<u32, Key>::Down), "Down");
    assert_eq!(format!("{:#?}", sealed), "Sealed(\n    3,\n    <redacted>,\n)");
    let _ = missing.descriptor();
    let _ = Key("unused").0;
}
