use proptest::prelude::*;

use super::*;

/// A literal without offsets, for comparisons.
#[derive(Debug, Clone, PartialEq)]
enum Plain {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    None,
    List(Vec<Plain>),
    Tuple(Vec<Plain>),
}

fn plain(node: &Node<'_>) -> Plain {
    match &node.value {
        Literal::Str(s) => Plain::Str(s.to_string()),
        Literal::Int(i) => Plain::Int(*i),
        Literal::Float(f) => Plain::Float(*f),
        Literal::Bool(b) => Plain::Bool(*b),
        Literal::None => Plain::None,
        Literal::List(items) => Plain::List(items.iter().map(plain).collect()),
        Literal::Tuple(items) => Plain::Tuple(items.iter().map(plain).collect()),
    }
}

/// Python source for a literal, as `repr` writes it (strings quoted with `quote`).
fn python(value: &Plain, quote: char, out: &mut String) {
    match value {
        Plain::Str(s) => {
            out.push(quote);
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c == quote => {
                        out.push('\\');
                        out.push(c);
                    }
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push(quote);
        }
        Plain::Int(i) => out.push_str(&i.to_string()),
        Plain::Float(f) => out.push_str(&format!("{f:?}")),
        Plain::Bool(true) => out.push_str("True"),
        Plain::Bool(false) => out.push_str("False"),
        Plain::None => out.push_str("None"),
        Plain::List(items) | Plain::Tuple(items) => {
            let (open, close) = if matches!(value, Plain::List(_)) { ('[', ']') } else { ('(', ')') };
            out.push(open);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                python(item, quote, out);
            }
            if matches!(value, Plain::Tuple(_)) && items.len() == 1 {
                out.push(',');
            }
            out.push(close);
        }
    }
}

fn parse_plain(text: &str) -> Plain {
    plain(&parse(text).unwrap())
}

fn error_of(text: &str) -> LiteralError {
    parse(text).unwrap_err()
}

#[test]
fn scalars() {
    assert_eq!(parse_plain("'a'"), Plain::Str("a".into()));
    assert_eq!(parse_plain("\"a'b\""), Plain::Str("a'b".into()));
    assert_eq!(parse_plain(" -12 "), Plain::Int(-12));
    assert_eq!(parse_plain("+3"), Plain::Int(3));
    assert_eq!(parse_plain("-0.98118526"), Plain::Float(-0.98118526));
    assert_eq!(parse_plain("1e-3"), Plain::Float(0.001));
    assert_eq!(parse_plain("2.5E+2"), Plain::Float(250.0));
    assert_eq!(parse_plain(".5"), Plain::Float(0.5));
    assert_eq!(parse_plain("5."), Plain::Float(5.0));
    assert_eq!(parse_plain("True"), Plain::Bool(true));
    assert_eq!(parse_plain("False"), Plain::Bool(false));
    assert_eq!(parse_plain("None"), Plain::None);
}

#[test]
fn escapes_and_prefixes() {
    assert_eq!(parse_plain(r"'a\'b\\c\n\t\x41\u00e9\U0001F600\101'"), Plain::Str("a'b\\c\n\tAé😀A".into()));
    assert_eq!(parse_plain(r"'\q'"), Plain::Str("\\q".into()));
    assert_eq!(parse_plain(r"r'a\'b\n'"), Plain::Str("a\\'b\\n".into()));
    assert_eq!(parse_plain("u'x'"), Plain::Str("x".into()));
}

#[test]
fn sequences() {
    assert_eq!(parse_plain("[]"), Plain::List(vec![]));
    assert_eq!(parse_plain("()"), Plain::Tuple(vec![]));
    assert_eq!(parse_plain("('a',)"), Plain::Tuple(vec![Plain::Str("a".into())]));
    assert_eq!(parse_plain("('a')"), Plain::Str("a".into()));
    assert_eq!(
        parse_plain("[('x', 0.5, False), ['y', 1, True],]"),
        Plain::List(vec![
            Plain::Tuple(vec![Plain::Str("x".into()), Plain::Float(0.5), Plain::Bool(false)]),
            Plain::List(vec![Plain::Str("y".into()), Plain::Int(1), Plain::Bool(true)]),
        ])
    );
}

#[test]
fn offsets_point_at_each_item() {
    let node = parse("[ 'a', ('b', 2)]").unwrap();
    let items = node.value.as_sequence().unwrap();
    assert_eq!(items[0].offset, 2);
    assert_eq!(items[1].offset, 7);
    assert_eq!(items[1].value.as_sequence().unwrap()[1].offset, 13);
}

#[test]
fn errors_say_where_and_what() {
    let e = error_of("['a', 'b");
    assert_eq!(e.offset, 6);
    assert!(e.message.contains("never closed"), "{}", e.message);
    let e = error_of("['a' 'b']");
    assert_eq!((e.offset, e.message.as_str()), (5, "found `'`, expected `,` or `]`"));
    let e = error_of("[nan]");
    assert_eq!(e.offset, 1);
    assert!(e.message.starts_with("found `nan`, expected a Python literal"), "{}", e.message);
    let e = error_of("[1.2.3]");
    assert_eq!((e.offset, e.message.as_str()), (1, "found `1.2.3`, expected a number"));
    let e = error_of("'a' x");
    assert_eq!(e.offset, 4);
    let e = error_of("[{'a': 1}]");
    assert_eq!(e.offset, 1);
    let e = error_of("");
    assert_eq!(
        e.message,
        "found the end of the value, expected a Python literal (a string, number, True, False, None, list or tuple)"
    );
    let e = error_of("99999999999999999999");
    assert!(e.message.contains("between -2^63"), "{}", e.message);
    let e = error_of(r"'\x4'");
    assert_eq!(e.offset, 1);
    let e = error_of("b'x'");
    assert!(e.message.contains("string prefix `b`"), "{}", e.message);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let text = "[".repeat(100_000);
    let e = error_of(&text);
    assert_eq!(e.offset, MAX_DEPTH);
    assert!(e.message.contains("nested deeper"));
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(parse(&ok).is_ok());
}

fn plain_strategy() -> impl Strategy<Value = Plain> {
    let leaf = prop_oneof![
        any::<String>().prop_map(Plain::Str),
        any::<i64>().prop_map(Plain::Int),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Plain::Float),
        any::<bool>().prop_map(Plain::Bool),
        Just(Plain::None),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Plain::List),
            prop::collection::vec(inner, 0..8).prop_map(Plain::Tuple),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = parse(&text);
    }

    #[test]
    fn arbitrary_literal_like_text_never_panics(text in "[\\[\\]() ,'\"\\\\a-z0-9.eE+_-]{0,40}") {
        if let Err(e) = parse(&text) {
            prop_assert!(e.offset <= text.len());
            prop_assert!(e.message.starts_with("found "));
        }
    }

    #[test]
    fn generated_literals_round_trip(value in plain_strategy(), double in any::<bool>()) {
        let mut text = String::new();
        python(&value, if double { '"' } else { '\'' }, &mut text);
        prop_assert_eq!(parse_plain(&text), value);
    }
}
